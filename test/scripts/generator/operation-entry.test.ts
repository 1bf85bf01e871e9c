// operationEntry turns one OpenAPI operation into the runtime's entry: its annotations, and self-contained input and output schemas.
import { expect } from 'chai';
import type { OpenApiDocument, OpenApiOperation } from '../../../scripts/generator/contract-source.js';
import { operationEntry } from '../../../scripts/generator/operation-entry.js';
import type { OperationEntry } from '../../../src/contract/types.js';

interface Case {
  name: string;
  given: { path: string; method: string; op: OpenApiOperation };
  want: OperationEntry;
}

const EMPTY_OBJECT = { type: 'object', additionalProperties: false, maxProperties: 0 };

/** The document every case reads its `$ref`s from. */
const doc: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'Test', version: '1.0.0', 'x-api-contract-version': '3.0.0' },
  paths: {},
  components: {
    requestBodies: {
      EmptyObject: { required: true, content: { 'application/json': { schema: { type: 'object', additionalProperties: false, maxProperties: 0 } } } },
      NoteBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } },
    },
    schemas: {
      Note: { type: 'object', required: ['titre'], properties: { titre: { $ref: '#/components/schemas/Titre' } } },
      Titre: { type: 'string', minLength: 1, maxLength: 200 },
      Moi: { type: 'object', properties: { id: { type: 'string' } } },
    },
    responses: { BadRequest: { description: 'Refus.' } },
  },
};

const jsonBody = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const okResponse = (schema: unknown) => ({ '200': { description: 'OK', content: { 'application/json': { schema } } }, '400': { $ref: '#/components/responses/BadRequest' } });

/** A read operation of the contract's shape; each case overrides what it is about. */
function op(operationId: string, overrides: Partial<OpenApiOperation> = {}): OpenApiOperation {
  return {
    operationId,
    summary: `Résumé de ${operationId}`,
    description: 'Décrit.\n\nVersion du contrat : 3.0.0.\n',
    'x-effect': 'read',
    'x-scope': 'mcp:read',
    'x-paid-only': false,
    'x-mcp-tool': operationId.replace('.', '_'),
    requestBody: jsonBody({ type: 'object', additionalProperties: false }),
    responses: okResponse({ type: 'object' }),
    ...overrides,
  };
}

/** The entry of `op(name)` with the given fields changed. */
function entry(name: string, overrides: Partial<OperationEntry> = {}): OperationEntry {
  return {
    name,
    method: 'post',
    path: `/api/mcp/v1/${name}`,
    summary: `Résumé de ${name}`,
    description: 'Décrit.\n\nVersion du contrat : 3.0.0.',
    effect: 'read',
    scope: 'mcp:read',
    paidOnly: false,
    eligibleAccess: false,
    mcpTool: name.replace('.', '_'),
    explicitWriteScope: false,
    idempotent: true,
    destructive: false,
    openWorld: false,
    inputSchema: { type: 'object', additionalProperties: false },
    outputSchema: { type: 'object' },
    ...overrides,
  };
}

const cases: Case[] = [
  {
    name: 'a POST with an inline body takes that body as input, refs inlined',
    given: {
      path: '/api/mcp/v1/notes.chercher',
      method: 'post',
      op: op('notes.chercher', {
        requestBody: jsonBody({ type: 'object', properties: { titre: { $ref: '#/components/schemas/Titre' } } }),
      }),
    },
    want: entry('notes.chercher', {
      inputSchema: { type: 'object', properties: { titre: { type: 'string', minLength: 1, maxLength: 200 } } },
    }),
  },
  {
    name: 'a POST whose requestBody is a $ref takes the referenced body',
    given: { path: '/api/mcp/v1/notes.creer', method: 'post', op: op('notes.creer', { requestBody: { $ref: '#/components/requestBodies/NoteBody' } }) },
    want: entry('notes.creer', {
      inputSchema: { type: 'object', required: ['titre'], properties: { titre: { type: 'string', minLength: 1, maxLength: 200 } } },
    }),
  },
  {
    name: 'the shared EmptyObject body gives the empty-object schema',
    given: { path: '/api/mcp/v1/notes.lister', method: 'post', op: op('notes.lister', { requestBody: { $ref: '#/components/requestBodies/EmptyObject' } }) },
    want: entry('notes.lister', { inputSchema: EMPTY_OBJECT }),
  },
  {
    name: 'a GET without body takes the empty-object schema as input',
    given: { path: '/api/mcp/v1/me', method: 'get', op: op('me', { requestBody: undefined, responses: okResponse({ $ref: '#/components/schemas/Moi' }) }) },
    want: entry('me', { method: 'get', inputSchema: EMPTY_OBJECT, outputSchema: { type: 'object', properties: { id: { type: 'string' } } } }),
  },
  {
    name: 'the 200 response schema becomes the output, refs inlined',
    given: {
      path: '/api/mcp/v1/notes.lire',
      method: 'post',
      op: op('notes.lire', { responses: okResponse({ type: 'array', items: { $ref: '#/components/schemas/Note' } }) }),
    },
    want: entry('notes.lire', {
      outputSchema: {
        type: 'array',
        items: { type: 'object', required: ['titre'], properties: { titre: { type: 'string', minLength: 1, maxLength: 200 } } },
      },
    }),
  },
  {
    name: 'without a 200 response the output is the empty schema',
    given: { path: '/api/mcp/v1/notes.vider', method: 'post', op: op('notes.vider', { responses: { '400': { $ref: '#/components/responses/BadRequest' } } }) },
    want: entry('notes.vider', { outputSchema: {} }),
  },
  {
    name: 'annotations are mapped: x-effect, x-scope, x-paid-only, x-mcp-tool',
    given: {
      path: '/api/mcp/v1/notes.supprimer',
      method: 'post',
      op: op('notes.supprimer', { 'x-effect': 'write', 'x-scope': 'mcp:write', 'x-paid-only': true, 'x-mcp-tool': 'note_effacer' }),
    },
    want: entry('notes.supprimer', { effect: 'write', scope: 'mcp:write', paidOnly: true, mcpTool: 'note_effacer', idempotent: false }),
  },
  {
    name: 'a write is idempotent, destructive or open-world only as declared; a read is always idempotent',
    given: {
      path: '/api/mcp/v1/notes.effacer',
      method: 'post',
      op: op('notes.effacer', { 'x-effect': 'write', 'x-scope': 'mcp:write', 'x-idempotent': true, 'x-destructive': true, 'x-open-world': true }),
    },
    want: entry('notes.effacer', { effect: 'write', scope: 'mcp:write', idempotent: true, destructive: true, openWorld: true }),
  },
  {
    name: 'x-explicit-write-scope marks a write the legacy scope does not open',
    given: {
      path: '/api/mcp/v1/notes.abonner',
      method: 'post',
      op: op('notes.abonner', { 'x-effect': 'write', 'x-scope': 'mcp:write', 'x-explicit-write-scope': true }),
    },
    want: entry('notes.abonner', { effect: 'write', scope: 'mcp:write', explicitWriteScope: true, idempotent: false }),
  },
  {
    name: 'x-eligible-access on a paid-only operation lets a granted eligible access open it',
    given: { path: '/api/mcp/v1/notes.rapport', method: 'post', op: op('notes.rapport', { 'x-paid-only': true, 'x-eligible-access': true }) },
    want: entry('notes.rapport', { paidOnly: true, eligibleAccess: true }),
  },
  {
    name: 'x-eligible-access on an operation that is not paid-only opens nothing more',
    given: { path: '/api/mcp/v1/notes.libre', method: 'post', op: op('notes.libre', { 'x-eligible-access': true }) },
    want: entry('notes.libre', { paidOnly: false, eligibleAccess: false }),
  },
  {
    name: 'missing annotations give paidOnly false, mcpTool and summary empty',
    given: {
      path: '/api/mcp/v1/notes.brut',
      method: 'post',
      op: op('notes.brut', { 'x-paid-only': undefined, 'x-mcp-tool': undefined, summary: undefined }),
    },
    want: entry('notes.brut', { paidOnly: false, mcpTool: '', summary: '' }),
  },
  {
    name: 'the description is trimmed at both ends, its inner line breaks kept',
    given: { path: '/api/mcp/v1/notes.decrire', method: 'post', op: op('notes.decrire', { description: '\n  Première ligne.\nSeconde ligne.\n\n' }) },
    want: entry('notes.decrire', { description: 'Première ligne.\nSeconde ligne.' }),
  },
  {
    name: 'a missing description gives an empty one',
    given: { path: '/api/mcp/v1/notes.muet', method: 'post', op: op('notes.muet', { description: undefined }) },
    want: entry('notes.muet', { description: '' }),
  },
  {
    name: 'path and method are copied as given',
    given: { path: '/ailleurs', method: 'post', op: op('notes.ailleurs') },
    want: entry('notes.ailleurs', { path: '/ailleurs' }),
  },
];

describe('operationEntry', () => {
  for (const c of cases) it(c.name, () => expect(operationEntry(c.given.path, c.given.method, c.given.op, doc)).to.deep.equal(c.want));
});
