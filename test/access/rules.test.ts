// Scope rules: mcp:read opens reads, mcp:write writes; the legacy mcp:public opens MCP reads and writes except explicit-write operations, and REST reads only; writes need an organisation and a writing role; paid-only operations need the subscribed plan, or a granted eligible access where the operation says so.
import { expect } from 'chai';
import { checkPlan, checkWorkspaceRights, missingScope, toolVisible } from '../../src/access/rules.js';
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

describe('checkPlan', () => {
  const plans: { name: string; op: { paidOnly: boolean; eligibleAccess: boolean }; caller: { plan: 'free' | 'subscribed'; eligibleAccess: boolean }; refused: RegExp | null }[] = [
    { name: 'an operation not paid-only is open to the free plan', op: { paidOnly: false, eligibleAccess: false }, caller: { plan: 'free', eligibleAccess: false }, refused: null },
    { name: 'a paid-only operation is open to the subscribed plan', op: { paidOnly: true, eligibleAccess: false }, caller: { plan: 'subscribed', eligibleAccess: false }, refused: null },
    { name: 'a paid-only operation refuses the free plan, naming the subscribed plan', op: { paidOnly: true, eligibleAccess: false }, caller: { plan: 'free', eligibleAccess: false }, refused: /formule abonnée/ },
    { name: 'an eligible access does not open a paid-only operation without x-eligible-access', op: { paidOnly: true, eligibleAccess: false }, caller: { plan: 'free', eligibleAccess: true }, refused: /formule abonnée/ },
    { name: 'an eligible access opens an x-eligible-access operation on the free plan', op: { paidOnly: true, eligibleAccess: true }, caller: { plan: 'free', eligibleAccess: true }, refused: null },
    { name: 'an x-eligible-access operation refuses the free plan without it, naming both ways in', op: { paidOnly: true, eligibleAccess: true }, caller: { plan: 'free', eligibleAccess: false }, refused: /formule abonnée.*accès éligible/ },
  ];
  for (const p of plans) {
    it(p.name, () => {
      let error: { code: string; message: string } | null = null;
      try {
        checkPlan(p.op, { ...p.caller, organisationId: 'o' });
      } catch (err) {
        error = err as { code: string; message: string };
      }
      if (!p.refused) expect(error).to.equal(null);
      else {
        expect(error?.code).to.equal('access_denied');
        expect(error?.message).to.match(p.refused);
      }
    });
  }
});
