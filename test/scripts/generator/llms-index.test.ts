// llms.txt lists each tool on one line (title, status, first sentence), active tools under "## Outils" and the others under "## Optional" only when there are some.
import { expect } from 'chai';
import { llmsIndex, toolLine } from '../../../scripts/generator/llms-index.js';
import type { ProfileEntry, ToolEntry } from '../../../src/contract/types.js';

function tool(name: string, overrides: Partial<ToolEntry> = {}): ToolEntry {
  return {
    name,
    title: `Titre ${name}`,
    description: `Décrit ${name}. Et plus encore.`,
    status: 'active',
    aliasOf: null,
    dispatch: null,
    operations: [],
    profiles: ['full'],
    scope: 'mcp:read',
    effect: 'read',
    paidOnly: false,
    card: [],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    recipes: [],
    ...overrides,
  };
}

const chercher = tool('notes_chercher', { title: 'Chercher des notes', description: 'Cherche des notes par mots. Filtre par date.' });
const ancien = tool('chercher_notes', { title: 'Ancien nom', description: 'Ancien nom de notes_chercher.', status: 'alias', aliasOf: 'notes_chercher' });
const exporter = tool('notes_exporter', { title: 'Export', description: 'Exportera les notes.', status: 'preparation', inputSchema: null, outputSchema: null });

describe('toolLine', () => {
  const cases: { name: string; given: ToolEntry; want: string }[] = [
    {
      name: 'an active tool: link, title, first sentence',
      given: chercher,
      want: '- [notes_chercher](/llms-full.txt#notes_chercher): Chercher des notes. Cherche des notes par mots.',
    },
    {
      name: 'an alias says it is deprecated and names its replacement',
      given: ancien,
      want: '- [chercher_notes](/llms-full.txt#chercher_notes): Ancien nom (nom historique déprécié : utiliser notes_chercher). Ancien nom de notes_chercher.',
    },
    {
      name: 'a tool in preparation says so',
      given: exporter,
      want: '- [notes_exporter](/llms-full.txt#notes_exporter): Export (en préparation). Exportera les notes.',
    },
    {
      name: 'a description over several lines is flattened before its first sentence is taken',
      given: tool('notes_lister', { title: 'Lister', description: '  Liste les\n  notes   du jour.\n  Puis les autres.\n' }),
      want: '- [notes_lister](/llms-full.txt#notes_lister): Lister. Liste les notes du jour.',
    },
    {
      name: 'a dot inside a word or number does not end the sentence',
      given: tool('referentiel_cpv', { title: 'CPV', description: 'Liste les codes `45000000-7` du CPV 2.1, par préfixe. Filtre aussi.' }),
      want: '- [referentiel_cpv](/llms-full.txt#referentiel_cpv): CPV. Liste les codes `45000000-7` du CPV 2.1, par préfixe.',
    },
    {
      name: 'a description without a full stop is kept whole',
      given: tool('notes_vider', { title: 'Vider', description: 'Vide la corbeille ; irréversible' }),
      want: '- [notes_vider](/llms-full.txt#notes_vider): Vider. Vide la corbeille ; irréversible',
    },
  ];
  for (const c of cases) it(c.name, () => expect(toolLine(c.given)).to.deep.equal(c.want));
});

describe('llmsIndex', () => {
  const service = { name: 'Service de notes', summary: 'Notes et\n  dossiers,   en  ligne.\n' };
  const profiles: ProfileEntry[] = [
    { name: 'full', path: '/api/mcp', title: 'Complet', description: 'Tout le\n  registre.' },
    { name: 'connectors', path: '/api/mcp/connectors', title: 'Connecteurs', description: 'Peu.' },
  ];
  const head = [
    '# Service de notes',
    '',
    '> Notes et dossiers, en ligne.',
    '',
    'Adresses MCP :',
    '- `/api/mcp` (Complet) : Tout le registre.',
    '- `/api/mcp/connectors` (Connecteurs) : Peu.',
    '',
    '## Documents',
    '',
    '- [llms-full.txt](/llms-full.txt): tous les outils, leurs paramètres et leurs recettes',
    '- [openapi.json](/openapi.json): schéma OpenAPI 3.1 des opérations REST',
    '- [manifest.json](/agents/manifest.json): versions du contrat, du catalogue et de la documentation',
    '',
  ];
  const lister = tool('notes_lister', { title: 'Lister', description: 'Liste les notes.' });
  const cases: { name: string; given: ToolEntry[]; want: string }[] = [
    {
      name: 'active tools only: "## Outils", sorted by name, and no optional section',
      given: [lister, chercher],
      want: [
        ...head,
        '## Outils',
        '',
        '- [notes_chercher](/llms-full.txt#notes_chercher): Chercher des notes. Cherche des notes par mots.',
        '- [notes_lister](/llms-full.txt#notes_lister): Lister. Liste les notes.',
        '',
      ].join('\n'),
    },
    {
      name: 'aliases and tools in preparation go to "## Optional", sorted by name',
      given: [exporter, chercher, ancien],
      want: [
        ...head,
        '## Outils',
        '',
        '- [notes_chercher](/llms-full.txt#notes_chercher): Chercher des notes. Cherche des notes par mots.',
        '',
        '## Optional',
        '',
        '- [chercher_notes](/llms-full.txt#chercher_notes): Ancien nom (nom historique déprécié : utiliser notes_chercher). Ancien nom de notes_chercher.',
        '- [notes_exporter](/llms-full.txt#notes_exporter): Export (en préparation). Exportera les notes.',
        '',
      ].join('\n'),
    },
    {
      name: 'without active tools there is no "## Outils" section',
      given: [exporter],
      want: [...head, '## Optional', '', '- [notes_exporter](/llms-full.txt#notes_exporter): Export (en préparation). Exportera les notes.', ''].join('\n'),
    },
    { name: 'without tools only the head remains', given: [], want: head.join('\n') },
  ];
  for (const c of cases) it(c.name, () => expect(llmsIndex(service, profiles, c.given)).to.deep.equal(c.want));
});
