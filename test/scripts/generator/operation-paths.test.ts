// operationPaths puts each operation of an `x-<domain>` entry of `paths` under /api/mcp/v1/{its name}, in order, its method as written; a path written out is copied; a path reached twice is refused.
import { expect } from 'chai';
import type { OpenApiOperation } from '../../../scripts/generator/contract-source.js';
import { operationPaths } from '../../../scripts/generator/operation-paths.js';

interface Case {
  name: string;
  given: Record<string, unknown>;
  /** The paths, compared with their key order; or the message operationPaths throws. */
  want: Record<string, unknown> | { error: string };
}

const op = (operationId: string): OpenApiOperation => ({ operationId, summary: operationId, responses: {} });

function run(given: Record<string, unknown>): unknown {
  try {
    return operationPaths(given);
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const cases: Case[] = [
  { name: 'no paths, no operations', given: {}, want: {} },
  {
    name: 'each operation of a domain goes under /api/mcp/v1/{name}, with its method',
    given: { 'x-account': { me: { get: op('me') }, 'quotas.get': { post: op('quotas.get') } } },
    want: { '/api/mcp/v1/me': { get: op('me') }, '/api/mcp/v1/quotas.get': { post: op('quotas.get') } },
  },
  {
    name: 'domains follow one another in the order written',
    given: { 'x-notes': { 'notes.creer': { post: op('notes.creer') } }, 'x-aide': { 'aide.outils': { post: op('aide.outils') } } },
    want: { '/api/mcp/v1/notes.creer': { post: op('notes.creer') }, '/api/mcp/v1/aide.outils': { post: op('aide.outils') } },
  },
  {
    name: 'a path written out is copied as it is, in its place',
    given: { 'x-notes': { 'notes.lire': { post: op('notes.lire') } }, '/api/mcp/v1/notes.vider': { post: op('notes.vider') }, 'x-aide': {} },
    want: { '/api/mcp/v1/notes.lire': { post: op('notes.lire') }, '/api/mcp/v1/notes.vider': { post: op('notes.vider') } },
  },
  {
    name: 'the entry’s name makes the path, even when its operationId differs (checkContract refuses it)',
    given: { 'x-notes': { 'notes.lire': { post: op('notes.lecture') } } },
    want: { '/api/mcp/v1/notes.lire': { post: op('notes.lecture') } },
  },
  {
    name: 'the same name in two domains is refused',
    given: { 'x-notes': { 'notes.lire': { post: op('notes.lire') } }, 'x-aide': { 'notes.lire': { post: op('notes.lire') } } },
    want: { error: 'le chemin /api/mcp/v1/notes.lire est écrit deux fois (x-notes et x-aide)' },
  },
  {
    name: 'a name of a domain that is also written out as a path is refused',
    given: { '/api/mcp/v1/me': { get: op('me') }, 'x-account': { me: { get: op('me') } } },
    want: { error: 'le chemin /api/mcp/v1/me est écrit deux fois (paths et x-account)' },
  },
  {
    name: 'a domain must be a table of operations by name',
    given: { 'x-notes': ['notes.lire'] },
    want: { error: "paths.x-notes doit être une table d'opérations par nom (le contenu d'un fichier contract/paths/)" },
  },
  {
    name: 'a domain cannot be empty-valued',
    given: { 'x-notes': null },
    want: { error: "paths.x-notes doit être une table d'opérations par nom (le contenu d'un fichier contract/paths/)" },
  },
];

describe('operationPaths', () => {
  for (const c of cases) it(c.name, () => expect(JSON.stringify(run(c.given))).to.equal(JSON.stringify(c.want)));
});
