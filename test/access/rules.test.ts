// Scope rules: mcp:read opens reads, mcp:write writes; the legacy mcp:public opens MCP reads and writes except explicit-write operations, and REST reads only; writes need an organisation and a writing role.
import { expect } from 'chai';
import { checkWorkspaceRights, missingScope, toolVisible } from '../../src/access/rules.js';
import type { Caller } from '../../src/access/caller.js';
import type { OperationEntry, ToolEntry } from '../../src/contract/types.js';

const read = { scope: 'mcp:read', effect: 'read', explicitWriteScope: false } as const;
const write = { scope: 'mcp:write', effect: 'write', explicitWriteScope: false } as const;
const subscribe = { scope: 'mcp:write', effect: 'write', explicitWriteScope: true } as const;

const cases: { name: string; op: Pick<OperationEntry, 'scope' | 'effect' | 'explicitWriteScope'>; scopes: string[]; address: Caller['address']; want: string | null }[] = [
  { name: 'mcp:read opens a read on REST', op: read, scopes: ['mcp:read'], address: 'rest', want: null },
  { name: 'mcp:read does not open a write', op: write, scopes: ['mcp:read'], address: 'full', want: 'mcp:write' },
  { name: 'mcp:write opens a write on REST', op: write, scopes: ['mcp:write'], address: 'rest', want: null },
  { name: 'mcp:write alone does not open a read', op: read, scopes: ['mcp:write'], address: 'full', want: 'mcp:read' },
  { name: 'mcp:write opens an event-subscription mutation', op: subscribe, scopes: ['mcp:write'], address: 'full', want: null },
  { name: 'mcp:public opens an MCP read', op: read, scopes: ['mcp:public'], address: 'full', want: null },
  { name: 'mcp:public opens an MCP write', op: write, scopes: ['mcp:public'], address: 'assistant', want: null },
  { name: 'mcp:public does not open an event-subscription mutation, even on MCP', op: subscribe, scopes: ['mcp:public'], address: 'full', want: 'mcp:write' },
  { name: 'mcp:public opens a REST read', op: read, scopes: ['mcp:public'], address: 'rest', want: null },
  { name: 'mcp:public opens no REST write', op: write, scopes: ['mcp:public'], address: 'rest', want: 'mcp:write' },
  { name: 'no scope opens nothing', op: read, scopes: [], address: 'rest', want: 'mcp:read' },
];

describe('missingScope', () => {
  for (const c of cases) it(c.name, () => expect(missingScope(c.op, { scopes: c.scopes, address: c.address })).to.equal(c.want));
});

describe('toolVisible', () => {
  const ops = new Map<string, OperationEntry>([
    ['a.lire', { ...read, name: 'a.lire' } as OperationEntry],
    ['a.ecrire', { ...write, name: 'a.ecrire' } as OperationEntry],
  ]);
  const tool = (operations: string[]) => ({ operations }) as ToolEntry;
  it('announces a tool when the scopes open at least one operation it runs', () => {
    expect(toolVisible(tool(['a.lire']), ops, { scopes: ['mcp:read'], address: 'full' })).to.equal(true);
    expect(toolVisible(tool(['a.ecrire']), ops, { scopes: ['mcp:read'], address: 'full' })).to.equal(false);
    expect(toolVisible(tool(['a.lire', 'a.ecrire']), ops, { scopes: ['mcp:read'], address: 'full' })).to.equal(true);
    expect(toolVisible(tool(['a.lire', 'a.ecrire']), ops, { scopes: ['mcp:write'], address: 'full' })).to.equal(true);
    expect(toolVisible(tool(['inconnue']), ops, { scopes: ['mcp:read'], address: 'full' })).to.equal(false);
  });
});

describe('checkWorkspaceRights', () => {
  const caller = (over: Partial<Caller>): Caller => ({
    accountId: 'u',
    organisationId: 'o',
    role: 'membre',
    plan: 'free',
    emailOption: false,
    eligibleAccess: false,
    limits: { callsPerMinute: 5, callsPerDay: 100, filesPerDay: 5 },
    scopes: ['mcp:write'],
    clientId: 'c',
    grantId: 'g',
    address: 'rest',
    ...over,
  });
  const op = (effect: 'read' | 'write') => ({ effect }) as OperationEntry;
  const rights: { name: string; effect: 'read' | 'write'; caller: Partial<Caller>; code: string | null }[] = [
    { name: 'a read needs no organisation', effect: 'read', caller: { organisationId: null, role: null }, code: null },
    { name: 'a write without organisation is organization_required', effect: 'write', caller: { organisationId: null, role: null }, code: 'organization_required' },
    { name: 'a write by a lecteur is role_denied', effect: 'write', caller: { role: 'lecteur' }, code: 'role_denied' },
    { name: 'a write by a membre is allowed', effect: 'write', caller: { role: 'membre' }, code: null },
    { name: 'a write by an admin is allowed', effect: 'write', caller: { role: 'admin' }, code: null },
  ];
  for (const r of rights) {
    it(r.name, () => {
      let code: string | null = null;
      try {
        checkWorkspaceRights(op(r.effect), caller(r.caller));
      } catch (err) {
        code = (err as { code: string }).code;
        expect((err as Error).message).to.match(/organisation|rôle/);
      }
      expect(code).to.equal(r.code);
    });
  }
});
