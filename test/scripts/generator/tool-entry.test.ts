// toolEntry gives each catalogue entry the schemas of the operation it runs; a historic name takes those of the tool it stands for, a tool in preparation has none.
import { expect } from 'chai';
import type { ToolSource } from '../../../scripts/generator/contract-source.js';
import { cardAddresses, toolAnnotations, toolEntry } from '../../../scripts/generator/tool-entry.js';
import type { OperationEntry, ToolEntry } from '../../../src/contract/types.js';

interface Case {
  name: string;
  given: { tool: ToolSource; tools: ToolSource[]; operations: OperationEntry[] };
  want: ToolEntry;
}

const schemaOf = (name: string, side: 'in' | 'out') => ({ type: 'object', title: `${side}:${name}` });

function operation(name: string, overrides: Partial<OperationEntry> = {}): OperationEntry {
  return {
    name,
    method: 'post',
    path: `/api/mcp/v1/${name}`,
    summary: name,
    description: name,
    effect: 'read',
    scope: 'mcp:read',
    paidOnly: false,
    eligibleAccess: false,
    mcpTool: name.replace('.', '_'),
    explicitWriteScope: false,
    idempotent: true,
    destructive: false,
    openWorld: false,
    inputSchema: schemaOf(name, 'in'),
    outputSchema: schemaOf(name, 'out'),
    ...overrides,
  };
}

const recipe = { title: 'Chercher', steps: ['Appeler notes_chercher.'], example: { q: 'toit' } };

function source(name: string, overrides: Partial<ToolSource> = {}): ToolSource {
  return {
    name,
    title: `Titre ${name}`,
    description: `  Décrit ${name}.\n`,
    operations: [name.replace('_', '.')],
    profiles: ['full'],
    scope: 'mcp:read',
    status: 'active',
    card: false,
    recipes: [],
    ...overrides,
  };
}

const chercher = source('notes_chercher', { profiles: ['full', 'connectors'], card: true, recipes: [recipe] });
const read = operation('notes.chercher');
const write = operation('notes.ecrire', { effect: 'write', scope: 'mcp:write' });
const paid = operation('notes.exporter', { paidOnly: true });

const cases: Case[] = [
  {
    name: 'an active tool takes the schemas of its operation and its own fields, description trimmed',
    given: { tool: chercher, tools: [chercher], operations: [read] },
    want: {
      name: 'notes_chercher',
      title: 'Titre notes_chercher',
      description: 'Décrit notes_chercher.',
      status: 'active',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.chercher'],
      profiles: ['full', 'connectors'],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: false,
      card: ['connectors'],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.chercher', 'in'),
      outputSchema: schemaOf('notes.chercher', 'out'),
      recipes: [recipe],
    },
  },
  {
    name: 'with several operations, the schemas are those of the first',
    given: {
      tool: source('notes_gerer', { operations: ['notes.exporter', 'notes.chercher'] }),
      tools: [],
      operations: [read, paid],
    },
    want: {
      name: 'notes_gerer',
      title: 'Titre notes_gerer',
      description: 'Décrit notes_gerer.',
      status: 'active',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.exporter', 'notes.chercher'],
      profiles: ['full'],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: true,
      card: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.exporter', 'in'),
      outputSchema: schemaOf('notes.exporter', 'out'),
      recipes: [],
    },
  },
  {
    name: "effect is 'write' when any operation writes",
    given: { tool: source('notes_tout', { operations: ['notes.chercher', 'notes.ecrire'], scope: 'mcp:write' }), tools: [], operations: [read, write] },
    want: {
      name: 'notes_tout',
      title: 'Titre notes_tout',
      description: 'Décrit notes_tout.',
      status: 'active',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.chercher', 'notes.ecrire'],
      profiles: ['full'],
      scope: 'mcp:write',
      effect: 'write',
      paidOnly: false,
      card: [],
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.chercher', 'in'),
      outputSchema: schemaOf('notes.chercher', 'out'),
      recipes: [],
    },
  },
  {
    name: 'paidOnly when any operation is paid',
    given: { tool: source('notes_exporter', { operations: ['notes.chercher', 'notes.exporter'] }), tools: [], operations: [read, paid] },
    want: {
      name: 'notes_exporter',
      title: 'Titre notes_exporter',
      description: 'Décrit notes_exporter.',
      status: 'active',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.chercher', 'notes.exporter'],
      profiles: ['full'],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: true,
      card: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.chercher', 'in'),
      outputSchema: schemaOf('notes.chercher', 'out'),
      recipes: [],
    },
  },
  {
    name: 'without scope, profiles, card or recipes in the catalogue: the first operation’s scope, and empty defaults',
    given: {
      tool: source('notes_ecrire', { scope: undefined, profiles: undefined, card: undefined, recipes: undefined }),
      tools: [],
      operations: [write],
    },
    want: {
      name: 'notes_ecrire',
      title: 'Titre notes_ecrire',
      description: 'Décrit notes_ecrire.',
      status: 'active',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.ecrire'],
      profiles: [],
      scope: 'mcp:write',
      effect: 'write',
      paidOnly: false,
      card: [],
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.ecrire', 'in'),
      outputSchema: schemaOf('notes.ecrire', 'out'),
      recipes: [],
    },
  },
  {
    name: 'an alias takes the target’s operations, schemas, profiles, scope, card and recipes, and names it in aliasOf',
    given: {
      tool: { name: 'chercher_notes', title: 'Ancien nom', description: 'Ancien nom de notes_chercher.', status: 'alias', alias_of: 'notes_chercher' },
      tools: [source('autre'), chercher],
      operations: [read],
    },
    want: {
      name: 'chercher_notes',
      title: 'Ancien nom',
      description: 'Ancien nom de notes_chercher.',
      status: 'alias',
      aliasOf: 'notes_chercher',
      dispatch: null,
      operations: ['notes.chercher'],
      profiles: ['full', 'connectors'],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: false,
      card: ['connectors'],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.chercher', 'in'),
      outputSchema: schemaOf('notes.chercher', 'out'),
      recipes: [recipe],
    },
  },
  {
    name: 'an alias of a writing, paid tool is writing and paid too',
    given: {
      tool: { name: 'ancien_export', title: 'Ancien', description: 'Ancien.', status: 'alias', alias_of: 'notes_export' },
      tools: [source('notes_export', { operations: ['notes.ecrire', 'notes.exporter'], scope: 'mcp:write' })],
      operations: [write, paid],
    },
    want: {
      name: 'ancien_export',
      title: 'Ancien',
      description: 'Ancien.',
      status: 'alias',
      aliasOf: 'notes_export',
      dispatch: null,
      operations: ['notes.ecrire', 'notes.exporter'],
      profiles: ['full'],
      scope: 'mcp:write',
      effect: 'write',
      paidOnly: true,
      card: [],
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: schemaOf('notes.ecrire', 'in'),
      outputSchema: schemaOf('notes.ecrire', 'out'),
      recipes: [],
    },
  },
  {
    name: 'an alias of an unknown tool has no operation and no schema',
    given: {
      tool: { name: 'orphelin', title: 'Orphelin', description: 'Orphelin.', status: 'alias', alias_of: 'disparu' },
      tools: [chercher],
      operations: [read],
    },
    want: {
      name: 'orphelin',
      title: 'Orphelin',
      description: 'Orphelin.',
      status: 'alias',
      aliasOf: 'disparu',
      dispatch: null,
      operations: [],
      profiles: [],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: false,
      card: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: null,
      outputSchema: null,
      recipes: [],
    },
  },
  {
    name: 'a tool in preparation has null schemas, even when its operation exists',
    given: { tool: source('notes_chercher', { status: 'preparation', card: true }), tools: [], operations: [read] },
    want: {
      name: 'notes_chercher',
      title: 'Titre notes_chercher',
      description: 'Décrit notes_chercher.',
      status: 'preparation',
      aliasOf: null,
      dispatch: null,
      operations: ['notes.chercher'],
      profiles: ['full'],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: false,
      card: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: null,
      outputSchema: null,
      recipes: [],
    },
  },
  {
    name: 'a tool in preparation without operations',
    given: { tool: source('notes_plus_tard', { status: 'preparation', operations: undefined, scope: undefined, profiles: undefined }), tools: [], operations: [] },
    want: {
      name: 'notes_plus_tard',
      title: 'Titre notes_plus_tard',
      description: 'Décrit notes_plus_tard.',
      status: 'preparation',
      aliasOf: null,
      dispatch: null,
      operations: [],
      profiles: [],
      scope: 'mcp:read',
      effect: 'read',
      paidOnly: false,
      card: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      inputSchema: null,
      outputSchema: null,
      recipes: [],
    },
  },
];

describe('toolEntry', () => {
  for (const c of cases) {
    it(c.name, () => {
      const operations = new Map(c.given.operations.map((o) => [o.name, o]));
      expect(toolEntry(c.given.tool, c.given.tools, operations)).to.deep.equal(c.want);
    });
  }
});

describe('cardAddresses', () => {
  const cases: { name: string; given: [ToolSource['card'], ToolEntry['profiles']]; want: ToolEntry['profiles'] }[] = [
    { name: 'no card', given: [undefined, ['connectors', 'assistant']], want: [] },
    { name: 'false', given: [false, ['connectors', 'assistant']], want: [] },
    { name: 'true: every card address serving the tool', given: [true, ['full', 'assistant', 'connectors']], want: ['connectors', 'assistant'] },
    { name: 'true on the full address only: none', given: [true, ['full']], want: [] },
    { name: 'named addresses, kept in the catalogue order', given: [['connectors'], ['full', 'connectors', 'assistant']], want: ['connectors'] },
    { name: 'a named address not serving the tool is left out', given: [['assistant'], ['connectors']], want: [] },
  ];
  for (const c of cases) it(c.name, () => expect(cardAddresses(...c.given)).to.deep.equal(c.want));
});

describe('toolAnnotations', () => {
  const op = (effect: 'read' | 'write', o: Partial<OperationEntry> = {}): OperationEntry => operation(`x.${effect}`, { effect, idempotent: effect === 'read', ...o });
  const cases: { name: string; given: OperationEntry[]; want: ReturnType<typeof toolAnnotations> }[] = [
    { name: 'reads only', given: [op('read'), op('read')], want: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
    { name: 'a write that is not idempotent', given: [op('write')], want: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } },
    { name: 'an idempotent write', given: [op('write', { idempotent: true })], want: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
    {
      name: 'a dispatching tool: list, add (idempotent), remove (destructive, idempotent)',
      given: [op('read'), op('write', { idempotent: true }), op('write', { idempotent: true, destructive: true })],
      want: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    { name: 'a send outside the service', given: [op('write', { openWorld: true })], want: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } },
    { name: 'no operation (in preparation)', given: [], want: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } },
  ];
  for (const c of cases) it(c.name, () => expect(toolAnnotations(c.given)).to.deep.equal(c.want));
});
