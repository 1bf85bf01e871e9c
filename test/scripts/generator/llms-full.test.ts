// llms-full.txt gives each tool its full section: status notice, scope and effect, REST routes, parameters with their constraints, numbered recipe steps and example.
import { expect } from 'chai';
import { llmsFull, toolSection } from '../../../scripts/generator/llms-full.js';
import type { OperationEntry, ProfileEntry, ToolEntry } from '../../../src/contract/types.js';

function operation(name: string, method: 'get' | 'post' = 'post'): OperationEntry {
  return {
    name,
    method,
    path: `/api/mcp/v1/${name}`,
    summary: name,
    description: name,
    effect: 'read',
    scope: 'mcp:read',
    paidOnly: false,
    eligibleAccess: false,
    mcpTool: name,
    explicitWriteScope: false,
    idempotent: true,
    destructive: false,
    openWorld: false,
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
  };
}

function tool(name: string, overrides: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name,
    title: `Titre ${name}`,
    description: `Décrit ${name}.`,
    status: 'active',
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
    ...overrides,
  };
}

const operations = new Map([operation('me', 'get'), operation('notes.chercher'), operation('notes.purger')].map((o) => [o.name, o]));

const chercherSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: {
    query: { type: 'string', minLength: 2, maxLength: 100, description: 'Mots cherchés.' },
    statut: { type: 'string', enum: ['ouverte', 'close'] },
    limit: { type: 'integer', minimum: 1, maximum: 50, default: 20, description: 'Nombre de notes.' },
    periode: { type: 'object', required: ['du'], properties: { du: { type: 'string', format: 'date' } } },
  },
};

const chercher = tool('notes_chercher', {
  title: 'Chercher des notes',
  description: '  Cherche des notes\n  par mots.\n',
  operations: ['notes.chercher'],
  profiles: ['full', 'assistant'],
  inputSchema: chercherSchema,
  outputSchema: { type: 'object' },
  recipes: [
    { title: 'Chercher une note', steps: ['Appeler notes_chercher avec `query`.', 'Lire `items`.'], example: { query: 'toit', limit: 5 } },
    { title: 'Sans exemple', steps: ['Un seul pas.'] },
  ],
});

const chercherBody = [
  '- Portée : `mcp:read` · Effet : lecture · Réservé aux formules payantes : non',
  '- Adresses : `full`, `assistant`',
  '- REST : `POST {base_url}/api/mcp/v1/notes.chercher`',
  '',
  '### Paramètres',
  '',
  '- `query` : string, obligatoire (2 caractère(s) au moins ; 100 caractères au plus). Mots cherchés.',
  '- `statut` : string, facultatif (valeurs : ouverte, close).',
  '- `limit` : integer, facultatif (minimum 1 ; maximum 50 ; défaut : 20). Nombre de notes.',
  '- `periode` : object, facultatif.',
  '- `periode.du` : string, facultatif (obligatoire quand « periode » est donné ; format : date).',
  '',
  '### Recettes',
  '',
  '#### Chercher une note',
  '',
  '1. Appeler notes_chercher avec `query`.',
  '2. Lire `items`.',
  '',
  'Exemple d\'arguments : `{"query":"toit","limit":5}`',
  '',
  '#### Sans exemple',
  '',
  '1. Un seul pas.',
  '',
];

describe('toolSection', () => {
  const cases: { name: string; given: ToolEntry; want: string }[] = [
    {
      name: 'an active tool: parameters with required/optional and constraints, numbered recipe steps, example JSON',
      given: chercher,
      want: ['## notes_chercher', '', '**Chercher des notes**', '', 'Cherche des notes par mots.', '', ...chercherBody].join('\n'),
    },
    {
      name: 'an alias says it is deprecated and which tool to use, then describes the target',
      given: { ...chercher, name: 'chercher_notes', title: 'Ancien nom', description: 'Ancien nom de notes_chercher.', status: 'alias', aliasOf: 'notes_chercher' },
      want: [
        '## chercher_notes',
        '',
        '**Ancien nom**',
        '',
        'Nom historique déprécié : appelable, mais non annoncé. Utiliser `notes_chercher`.',
        '',
        'Ancien nom de notes_chercher.',
        '',
        ...chercherBody,
      ].join('\n'),
    },
    {
      name: 'a tool in preparation says so, has no parameters section and no REST route for an unknown operation',
      given: tool('notes_exporter', { title: 'Export', description: 'Exportera les notes.', status: 'preparation', operations: ['notes.exporter'], profiles: ['full'] }),
      want: [
        '## notes_exporter',
        '',
        '**Export**',
        '',
        'En préparation : décrit ici, ni annoncé ni appelable.',
        '',
        'Exportera les notes.',
        '',
        '- Portée : `mcp:read` · Effet : lecture · Réservé aux formules payantes : non',
        '- Adresses : `full`',
        '',
      ].join('\n'),
    },
    {
      name: 'a writing, paid tool without parameters nor profiles: one REST line per operation, GET included',
      given: tool('notes_purger', {
        title: 'Purger',
        description: 'Purge.',
        operations: ['me', 'notes.purger'],
        scope: 'mcp:write',
        effect: 'write',
        paidOnly: true,
        inputSchema: { type: 'object', additionalProperties: false, maxProperties: 0 },
      }),
      want: [
        '## notes_purger',
        '',
        '**Purger**',
        '',
        'Purge.',
        '',
        '- Portée : `mcp:write` · Effet : écriture · Réservé aux formules payantes : oui',
        '- REST : `GET {base_url}/api/mcp/v1/me`',
        '- REST : `POST {base_url}/api/mcp/v1/notes.purger`',
        '',
        '### Paramètres',
        '',
        'Aucun : envoyer un objet vide `{}`.',
        '',
      ].join('\n'),
    },
    {
      name: 'an empty example is still shown',
      given: tool('moi', { title: 'Moi', description: 'Qui appelle.', operations: ['me'], recipes: [{ title: 'Qui suis-je', steps: ['Appeler moi.'], example: {} }] }),
      want: [
        '## moi',
        '',
        '**Moi**',
        '',
        'Qui appelle.',
        '',
        '- Portée : `mcp:read` · Effet : lecture · Réservé aux formules payantes : non',
        '- REST : `GET {base_url}/api/mcp/v1/me`',
        '',
        '### Recettes',
        '',
        '#### Qui suis-je',
        '',
        '1. Appeler moi.',
        '',
        "Exemple d'arguments : `{}`",
        '',
      ].join('\n'),
    },
  ];
  for (const c of cases) it(c.name, () => expect(toolSection(c.given, operations)).to.deep.equal(c.want));
});

describe('llmsFull', () => {
  const service = { name: 'Service de notes', summary: 'Notes et\n  dossiers.' };
  const profiles: ProfileEntry[] = [{ name: 'full', path: '/api/mcp', title: 'Complet', description: 'Tout le\n registre.' }];
  const moi = tool('moi', { title: 'Moi', operations: ['me'] });
  const cases: { name: string; given: ToolEntry[]; want: string }[] = [
    {
      name: 'the head (service, version, addresses, common rules) then one section per tool, sorted by name',
      given: [chercher, moi],
      want: [
        '# Service de notes',
        '',
        '> Notes et dossiers.',
        '',
        'Version du contrat : 3.0.0.',
        '',
        '## Adresses',
        '',
        '- `{base_url}/api/mcp` (Complet) : Tout le registre.',
        '- `{base_url}/api/mcp/v1/{operation}` : opérations REST, chacune un `POST` JSON (`GET` pour `me`).',
        '',
        '## Règles communes',
        '',
        '- Un argument manquant, inconnu ou hors du schéma est refusé avec un message en français qui le nomme (REST 400 `invalid_arguments` ; MCP résultat `isError: true`).',
        "- Un message d'erreur n'est pas une donnée et ne doit pas être recopié comme un fait.",
        '- Les coordonnées (téléphone, courriel, site web) des fiches publiques ne sont jamais renvoyées.',
        '- Ne jamais boucler sur un appel refusé ; attendre `Retry-After` quand il est donné.',
        '',
        toolSection(moi, operations),
        toolSection(chercher, operations),
      ].join('\n'),
    },
  ];
  for (const c of cases) it(c.name, () => expect(llmsFull(service, '3.0.0', profiles, c.given, operations)).to.deep.equal(c.want));
});
