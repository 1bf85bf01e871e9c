// checkContract lists every inconsistency between the joined OpenAPI document and tools.yaml (and nothing for a consistent pair), one exact French sentence per broken rule.
import { expect } from 'chai';
import { checkContract } from '../../../scripts/generator/check-contract.js';
import type { OpenApiDocument, OpenApiOperation, ToolSource, ToolsDocument } from '../../../scripts/generator/contract-source.js';
import { listOperations } from '../../../scripts/generator/contract-source.js';
import { ERROR_RESPONSES } from '../../../scripts/generator/error-responses.js';
import { operationEntry } from '../../../scripts/generator/operation-entry.js';

interface Contract {
  doc: OpenApiDocument;
  catalogue: ToolsDocument;
}

interface Case {
  name: string;
  given: Contract;
  want: string[];
}

const errorResponses = () => Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]));

function operation(operationId: string, overrides: Partial<OpenApiOperation> = {}): OpenApiOperation {
  return {
    operationId,
    summary: `Résumé de ${operationId}`,
    description: `Décrit ${operationId}.\n\nVersion du contrat : 3.0.0.\n`,
    'x-effect': 'read',
    'x-mcp-tool': operationId,
    'x-paid-only': false,
    'x-scope': 'mcp:read',
    responses: { '200': { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } }, ...errorResponses() },
    ...overrides,
  };
}

function tool(name: string, operations: string[], overrides: Partial<ToolSource> = {}): ToolSource {
  return { name, title: `Titre ${name}`, description: `Décrit ${name}.`, operations, profiles: ['full'], scope: 'mcp:read', status: 'active', ...overrides };
}

/** A consistent pair: `GET me` run by `moi`, `POST notes.creer` (a write) run by `note_creer`. */
function validContract(): Contract {
  return {
    doc: {
      openapi: '3.1.0',
      jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
      info: { title: 'Test', version: '1.0.0', 'x-api-contract-version': '3.0.0' },
      paths: {
        '/api/mcp/v1/me': { get: operation('me', { 'x-mcp-tool': 'moi' }) },
        '/api/mcp/v1/notes.creer': {
          post: operation('notes.creer', {
            'x-effect': 'write',
            'x-scope': 'mcp:write',
            'x-idempotent': false,
            'x-mcp-tool': 'note_creer',
            requestBody: { $ref: '#/components/requestBodies/NoteBody' },
          }),
        },
      },
      components: {
        requestBodies: { NoteBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Note' } } } } },
        schemas: {
          Note: { type: 'object', additionalProperties: false, required: ['titre'], properties: { titre: { type: 'string', minLength: 1, maxLength: 100 } } },
        },
        responses: Object.fromEntries(Object.values(ERROR_RESPONSES).map((name) => [name, { description: name }])),
      },
    },
    catalogue: {
      catalogue_version: '1.0.0',
      documentation_version: '1.0.0',
      service: { name: 'Test', summary: 'Service de test.', public_url: 'https://api.exemple.fr' },
      profiles: {
        full: { path: '/api/mcp', title: 'Complet', description: 'Tout.' },
        connectors: { path: '/api/mcp/connectors', title: 'Connecteurs', description: 'Peu.' },
        assistant: { path: '/api/mcp/assistant', title: 'Assistant', description: 'Presque tout.' },
      },
      tools: [
        tool('moi', ['me'], { recipes: [{ title: 'Qui suis-je', steps: ['Appeler moi.'], example: {} }] }),
        tool('note_creer', ['notes.creer'], {
          scope: 'mcp:write',
          recipes: [{ title: 'Créer une note', steps: ['Appeler note_creer avec `titre`.'], example: { titre: 'Toiture' } }],
        }),
      ],
    },
  };
}

/** The valid contract with one thing changed by `edit`. */
function contract(edit: (c: Contract) => void = () => {}): Contract {
  const c = validContract();
  edit(c);
  return c;
}

const me = (c: Contract) => c.doc.paths['/api/mcp/v1/me']!.get!;
const note = (c: Contract) => c.doc.components!.schemas!.Note as { properties: Record<string, Record<string, unknown>> };
/** Replaces the 200 answer's schema of notes.creer, written inline. */
const answer = (c: Contract, schema: Record<string, unknown>) => (creer(c).responses['200'] = { description: 'OK', content: { 'application/json': { schema } } });
const BOUND = 'chaîne sans maxLength (ni enum, const, ni format uuid ou date)';
const creer = (c: Contract) => c.doc.paths['/api/mcp/v1/notes.creer']!.post!;
const toolNamed = (c: Contract, name: string) => c.catalogue.tools.find((t) => t.name === name)!;

/** Renames a tool in the catalogue and in the x-mcp-tool of its operations. */
function renameTool(c: Contract, from: string, to: string): void {
  toolNamed(c, from).name = to;
  for (const { op } of listOperations(c.doc)) if (op['x-mcp-tool'] === from) op['x-mcp-tool'] = to;
}

/** Renames an operation: its operationId, its path and the tools that list it. */
function renameOperation(c: Contract, from: string, to: string): void {
  const item = c.doc.paths[`/api/mcp/v1/${from}`]!;
  delete c.doc.paths[`/api/mcp/v1/${from}`];
  c.doc.paths[`/api/mcp/v1/${to}`] = item;
  for (const op of Object.values(item)) op.operationId = to;
  for (const t of c.catalogue.tools) t.operations = t.operations?.map((n) => (n === from ? to : n));
}

/** What generate.ts does: the operation entries of the document, then the check. */
function run({ doc, catalogue }: Contract): string[] {
  const operations = new Map(listOperations(doc).map(({ path, method, op }) => [op.operationId, operationEntry(path, method, op, doc)]));
  return checkContract(doc, catalogue, operations);
}

const VERSION_SENTENCE = '« Version du contrat : 3.0.0. »';

const cases: Case[] = [
  { name: 'a consistent contract has no problem', given: contract(), want: [] },
  {
    name: 'a valid alias and a tool in preparation add no problem',
    given: contract((c) =>
      c.catalogue.tools.push(
        { name: 'qui_suis_je', title: 'Ancien nom', description: 'Ancien nom de moi.', status: 'alias', alias_of: 'moi' },
        { name: 'notes_exporter', title: 'Export', description: 'Bientôt.', status: 'preparation' },
      ),
    ),
    want: [],
  },
  { name: 'a recipe without example is not checked', given: contract((c) => delete toolNamed(c, 'note_creer').recipes![0]!.example), want: [] },
  {
    name: 'a recipe step that YAML read as a mapping (an unquoted « : ») is refused',
    given: contract((c) => (toolNamed(c, 'note_creer').recipes![0]!.steps = [{ 'Appeler note_creer avec `titre` seul': 'une note vide.' } as unknown as string])),
    want: ['outil note_creer : recette « Créer une note » : chaque étape est une phrase (mettre entre guillemets une étape qui contient « : »)'],
  },
  {
    name: 'two tools may serve one operation on different addresses when the second says `same_as` the first',
    given: contract((c) => c.catalogue.tools.push({ ...toolNamed(c, 'moi'), name: 'moi_bis', same_as: 'moi' })),
    want: [],
  },
  {
    name: '`same_as` names an active tool of the same operations',
    given: contract((c) => c.catalogue.tools.push({ ...toolNamed(c, 'moi'), name: 'moi_bis', same_as: 'note_creer' })),
    want: ['outil moi_bis : same_as doit nommer un outil actif aux mêmes opérations', "outil moi_bis : l'opération me annonce x-mcp-tool moi"],
  },

  {
    name: 'a results card named by address is on card addresses that serve the tool',
    given: contract((c) => Object.assign(toolNamed(c, 'moi'), { profiles: ['full', 'connectors'], card: ['full', 'connectors', 'assistant'] })),
    want: [
      "outil moi : card nomme full, qui n'est pas une adresse à carte (connectors, assistant) servant l'outil",
      "outil moi : card nomme assistant, qui n'est pas une adresse à carte (connectors, assistant) servant l'outil",
    ],
  },
  { name: 'a results card on one of its card addresses is fine', given: contract((c) => Object.assign(toolNamed(c, 'moi'), { profiles: ['full', 'connectors'], card: ['connectors'] })), want: [] },

  {
    name: 'a write declares x-idempotent; x-idempotent and x-destructive are for writes only, x-destructive and x-open-world only true',
    given: contract((c) => {
      const creer = c.doc.paths['/api/mcp/v1/notes.creer']!.post!;
      delete creer['x-idempotent'];
      creer['x-destructive'] = false;
      c.doc.paths['/api/mcp/v1/me']!.get!['x-idempotent'] = true;
    }),
    want: [
      "opération me : x-idempotent et x-destructive ne se mettent que sur une écriture (une lecture est idempotente et ne détruit rien)",
      'opération notes.creer : une écriture déclare x-idempotent (true ou false)',
      "opération notes.creer : x-destructive ne se met qu'à true",
    ],
  },

  // The OpenAPI document.
  { name: 'openapi must be 3.1.0', given: contract((c) => (c.doc.openapi = '3.0.3')), want: ['openapi doit valoir 3.1.0 (trouvé 3.0.3)'] },
  {
    name: 'jsonSchemaDialect must be 2020-12',
    given: contract((c) => (c.doc.jsonSchemaDialect = 'http://json-schema.org/draft-07/schema#')),
    want: ['jsonSchemaDialect doit être JSON Schema 2020-12'],
  },
  { name: 'info.x-api-contract-version is required', given: contract((c) => delete c.doc.info['x-api-contract-version']), want: ['info.x-api-contract-version manque'] },

  // Each operation.
  {
    name: 'the path must be /api/mcp/v1/{operationId}',
    given: contract((c) => {
      c.doc.paths['/api/mcp/v1/notes'] = c.doc.paths['/api/mcp/v1/notes.creer']!;
      delete c.doc.paths['/api/mcp/v1/notes.creer'];
    }),
    want: ['opération notes.creer : le chemin doit être /api/mcp/v1/notes.creer'],
  },
  {
    name: 'an operationId must be lower-case words, with at most one dot',
    given: contract((c) => renameOperation(c, 'notes.creer', 'Notes.Creer')),
    want: ['opération Notes.Creer : operationId absent ou mal formé'],
  },
  {
    name: 'an operationId with two dots is malformed',
    given: contract((c) => renameOperation(c, 'notes.creer', 'notes.creer.vite')),
    want: ['opération notes.creer.vite : operationId absent ou mal formé'],
  },
  {
    name: 'an operationId used twice is refused',
    given: contract((c) => (c.doc.paths['/api/mcp/v1/moi'] = { get: operation('me', { 'x-mcp-tool': 'moi' }) })),
    want: ['opération me : operationId en double', 'opération me : le chemin doit être /api/mcp/v1/me'],
  },
  {
    name: 'an operation other than me must be a POST',
    given: contract((c) => (c.doc.paths['/api/mcp/v1/notes.creer'] = { put: creer(c) })),
    want: ['opération notes.creer : méthode put, post attendu'],
  },
  {
    name: 'me must be a GET',
    given: contract((c) => (c.doc.paths['/api/mcp/v1/me'] = { post: me(c) })),
    want: ['opération me : méthode post, get attendu', 'opération me : corps application/json manquant'],
  },
  { name: 'x-effect must be read or write', given: contract((c) => (me(c)['x-effect'] = 'maybe')), want: ['opération me : x-effect doit valoir read ou write'] },
  { name: 'x-effect is required', given: contract((c) => delete me(c)['x-effect']), want: ['opération me : x-effect doit valoir read ou write'] },
  { name: 'x-scope must be mcp:read or mcp:write', given: contract((c) => (me(c)['x-scope'] = 'mcp:admin')), want: ['opération me : x-scope doit valoir mcp:read ou mcp:write'] },
  {
    name: 'a write with mcp:read is refused (and its tool’s scope with it)',
    given: contract((c) => (creer(c)['x-scope'] = 'mcp:read')),
    want: ['opération notes.creer : une écriture exige mcp:write, une lecture mcp:read', 'outil note_creer : portée mcp:write, mcp:read attendue'],
  },
  {
    name: 'a read with mcp:write is refused (and its tool’s scope with it)',
    given: contract((c) => (me(c)['x-scope'] = 'mcp:write')),
    want: ['opération me : une écriture exige mcp:write, une lecture mcp:read', 'outil moi : portée mcp:read, mcp:write attendue'],
  },
  { name: 'x-paid-only is required', given: contract((c) => delete me(c)['x-paid-only']), want: ['opération me : x-paid-only doit être un booléen'] },
  {
    name: 'x-paid-only must be a boolean',
    given: contract((c) => ((me(c) as unknown as Record<string, unknown>)['x-paid-only'] = 'false')),
    want: ['opération me : x-paid-only doit être un booléen'],
  },
  {
    name: 'x-mcp-tool is required',
    given: contract((c) => delete me(c)['x-mcp-tool']),
    want: ['opération me : x-mcp-tool manque', "outil moi : l'opération me annonce x-mcp-tool "],
  },
  { name: 'summary is required', given: contract((c) => delete me(c).summary), want: ['opération me : summary manque'] },
  {
    name: 'the description must carry the version sentence',
    given: contract((c) => (creer(c).description = 'Crée une note.')),
    want: [`opération notes.creer : la description doit se terminer par ${VERSION_SENTENCE}`],
  },
  {
    name: 'the version sentence must name the current version',
    given: contract((c) => (creer(c).description = 'Crée une note.\n\nVersion du contrat : 2.9.0.\n')),
    want: [`opération notes.creer : la description doit se terminer par ${VERSION_SENTENCE}`],
  },
  {
    name: 'a version sentence written in the contract too is refused (the generator adds one)',
    given: contract((c) => (creer(c).description = 'Crée une note.\n\nVersion du contrat : 3.0.0.\n\nVersion du contrat : 3.0.0.\n')),
    want: ["opération notes.creer : « Version du contrat » figure deux fois dans la description (le générateur l'ajoute : ne pas l'écrire)"],
  },
  {
    name: 'an old version sentence left in the contract is refused',
    given: contract((c) => (creer(c).description = 'Crée une note.\n\nVersion du contrat : 2.9.0.\n\nVersion du contrat : 3.0.0.\n')),
    want: ["opération notes.creer : « Version du contrat » figure deux fois dans la description (le générateur l'ajoute : ne pas l'écrire)"],
  },
  {
    name: 'a missing description lacks the version sentence',
    given: contract((c) => delete me(c).description),
    want: [`opération me : la description doit se terminer par ${VERSION_SENTENCE}`],
  },
  { name: 'the 200 response is required', given: contract((c) => delete me(c).responses['200']), want: ['opération me : réponse 200 manquante'] },
  {
    name: 'an error response must reference its own component',
    given: contract((c) => (me(c).responses['404'] = { $ref: '#/components/responses/BadRequest' })),
    want: ['opération me : la réponse 404 doit référencer #/components/responses/NotFound'],
  },
  {
    name: 'an error response may not be written inline',
    given: contract((c) => (creer(c).responses['503'] = { description: 'Indisponible.' })),
    want: ['opération notes.creer : la réponse 503 doit référencer #/components/responses/Unavailable'],
  },
  {
    name: 'every error response is required',
    given: contract((c) => delete me(c).responses['429']),
    want: ['opération me : la réponse 429 doit référencer #/components/responses/QuotaExceeded'],
  },

  // Each tool.
  {
    name: 'a tool name may be used once',
    given: contract((c) => c.catalogue.tools.push(tool('moi', ['me']))),
    want: ['outil moi : nom en double'],
  },
  ...['NoteCreer', 'note-creer', 'note__creer', 'note_', '_note', '2notes', 'note.creer'].map(
    (bad): Case => ({
      name: `a tool name must be snake_case: ${bad}`,
      given: contract((c) => renameTool(c, 'note_creer', bad)),
      want: [`outil ${bad} : nom mal formé (snake_case attendu)`],
    }),
  ),
  { name: 'a tool needs a title', given: contract((c) => (toolNamed(c, 'moi').title = '')), want: ['outil moi : titre ou description manquant'] },
  { name: 'a tool needs a description', given: contract((c) => (toolNamed(c, 'moi').description = '')), want: ['outil moi : titre ou description manquant'] },
  {
    name: 'a tool status is active, alias or preparation',
    given: contract((c) => ((toolNamed(c, 'moi') as unknown as Record<string, unknown>).status = 'retire')),
    want: ['outil moi : statut inconnu retire'],
  },
  {
    name: 'a tool profile must be a known one',
    given: contract((c) => ((toolNamed(c, 'moi') as unknown as { profiles: string[] }).profiles = ['full', 'public'])),
    want: ['outil moi : profil inconnu public'],
  },
  { name: 'an active tool needs a profile', given: contract((c) => (toolNamed(c, 'moi').profiles = [])), want: ['outil moi : aucun profil'] },
  {
    name: 'an active tool needs an operation',
    given: contract((c) => (toolNamed(c, 'moi').operations = [])),
    want: ['outil moi : aucune opération', "opération me : aucun outil actif ne l'atteint"],
  },
  {
    name: 'a tool may only run operations of the document',
    given: contract((c) => toolNamed(c, 'note_creer').operations!.push('notes.inconnue')),
    want: ['outil note_creer : opération inconnue notes.inconnue', 'outil note_creer : plusieurs opérations exigent un dispatch (argument de choix)'],
  },
  {
    name: 'an operation must be reached by some tool',
    given: contract((c) => (c.catalogue.tools = c.catalogue.tools.filter((t) => t.name !== 'moi'))),
    want: ["opération me : aucun outil actif ne l'atteint"],
  },
  {
    name: 'an operation listed only by a tool in preparation is unreachable',
    given: contract((c) => (toolNamed(c, 'moi').status = 'preparation')),
    want: ["opération me : aucun outil actif ne l'atteint"],
  },
  {
    name: 'the x-mcp-tool of an operation must name the tool that runs it',
    given: contract((c) => (me(c)['x-mcp-tool'] = 'profil')),
    want: ["outil moi : l'opération me annonce x-mcp-tool profil"],
  },
  {
    name: 'an alias must name an existing tool',
    given: contract((c) => c.catalogue.tools.push({ name: 'ancien_moi', title: 'Ancien', description: 'Ancien.', status: 'alias', alias_of: 'inconnu' })),
    want: ['outil ancien_moi : alias_of doit nommer un outil actif'],
  },
  {
    name: 'an alias must name an active tool, not one in preparation',
    given: contract((c) => {
      toolNamed(c, 'moi').status = 'preparation';
      toolNamed(c, 'moi').operations = [];
      c.catalogue.tools.push({ name: 'ancien_moi', title: 'Ancien', description: 'Ancien.', status: 'alias', alias_of: 'moi' });
    }),
    want: ['outil ancien_moi : alias_of doit nommer un outil actif', "opération me : aucun outil actif ne l'atteint"],
  },
  {
    name: 'an alias has no operations of its own',
    given: contract((c) =>
      c.catalogue.tools.push({ name: 'ancien_moi', title: 'Ancien', description: 'Ancien.', status: 'alias', alias_of: 'moi', operations: ['me'] }),
    ),
    want: ["outil ancien_moi : un nom historique n'a pas d'opérations propres"],
  },
  {
    name: 'an alias cannot claim its own scope, addresses or recipes (it is the current tool under another name)',
    given: contract((c) =>
      c.catalogue.tools.push({ name: 'ancien_moi', title: 'Ancien', description: 'Ancien.', status: 'alias', alias_of: 'moi', scope: 'mcp:read' }),
    ),
    want: ["outil ancien_moi : un nom historique reprend la portée, les adresses et les recettes de l'outil qu'il remplace"],
  },
  {
    name: 'a tool running several operations needs a dispatch covering exactly them, on an argument of its own',
    given: contract((c) => {
      const t = toolNamed(c, 'note_creer');
      t.operations = ['notes.creer', 'me'];
      t.dispatch = { argument: 'action', operations: { creer: 'notes.creer' } };
    }),
    want: [
      "outil note_creer : l'opération me annonce x-mcp-tool moi",
      "outil note_creer : dispatch doit couvrir exactement les opérations de l'outil",
      "outil note_creer : l'exemple de la recette « Créer une note » ne choisit aucune opération",
    ],
  },
  {
    name: 'a reading tool must have scope mcp:read',
    given: contract((c) => (toolNamed(c, 'moi').scope = 'mcp:write')),
    want: ['outil moi : portée mcp:write, mcp:read attendue'],
  },
  {
    name: 'a writing tool must have scope mcp:write',
    given: contract((c) => (toolNamed(c, 'note_creer').scope = 'mcp:read')),
    want: ['outil note_creer : portée mcp:read, mcp:write attendue'],
  },
  {
    name: 'an active tool must state its scope',
    given: contract((c) => delete toolNamed(c, 'moi').scope),
    want: ['outil moi : portée undefined, mcp:read attendue'],
  },
  {
    name: 'a recipe example must match the input schema (wrong type)',
    given: contract((c) => (toolNamed(c, 'note_creer').recipes![0]!.example = { titre: 5 })),
    want: ["outil note_creer : l'exemple de la recette « Créer une note » ne respecte pas le schéma d'entrée"],
  },
  {
    name: 'a recipe example must match the input schema (missing required)',
    given: contract((c) => (toolNamed(c, 'note_creer').recipes![0]!.example = {})),
    want: ["outil note_creer : l'exemple de la recette « Créer une note » ne respecte pas le schéma d'entrée"],
  },
  {
    name: 'a recipe example of an operation without arguments must be empty',
    given: contract((c) => (toolNamed(c, 'moi').recipes![0]!.example = { qui: 'moi' })),
    want: ["outil moi : l'exemple de la recette « Qui suis-je » ne respecte pas le schéma d'entrée"],
  },

  // Bounds: every string and list, in inputs and outputs; every number an operation accepts.
  {
    name: 'an input string needs a maxLength (judged where written: the component)',
    given: contract((c) => delete note(c).properties.titre!.maxLength),
    want: [`schéma Note « titre » : ${BOUND}`],
  },
  {
    name: 'a string bounded by an enum, a const, or a uuid or date format needs no maxLength',
    given: contract((c) =>
      Object.assign(note(c).properties, {
        etat: { type: 'string', enum: ['a', 'b'] },
        sorte: { type: ['string', 'null'], const: 'note' },
        id: { type: 'string', format: 'uuid' },
        jour: { type: 'string', format: 'date' },
      }),
    ),
    want: [],
  },
  {
    name: 'a date-time format does not bound a string (its fraction of a second is unbounded), nor does a pattern',
    given: contract((c) => Object.assign(note(c).properties, { quand: { type: 'string', format: 'date-time' }, code: { type: 'string', pattern: '^[0-9]{5}$' } })),
    want: [`schéma Note « quand » : ${BOUND}`, `schéma Note « code » : ${BOUND}`],
  },
  {
    name: 'a nullable string needs a maxLength too',
    given: contract((c) => (note(c).properties.resume = { type: ['string', 'null'] })),
    want: [`schéma Note « resume » : ${BOUND}`],
  },
  {
    name: 'an input list needs a maxItems, and its items their own bound',
    given: contract((c) => (note(c).properties.mots = { type: 'array', minItems: 1, items: { type: 'string' } })),
    want: ['schéma Note « mots » : liste sans maxItems', `schéma Note « mots[] » : ${BOUND}`],
  },
  {
    name: 'an output is judged too, at every depth (nested objects, list items, additional properties, oneOf)',
    given: contract((c) =>
      answer(c, {
        type: 'object',
        properties: {
          results: { type: 'array', maxItems: 50, items: { type: 'object', properties: { titre: { type: 'string' }, tags: { type: 'array', items: { type: 'string', maxLength: 5 } } } } },
          extra: { type: 'object', additionalProperties: { type: 'string' } },
          choix: { oneOf: [{ type: 'string', maxLength: 3 }, { type: 'array', items: { type: 'integer' } }] },
        },
      }),
    ),
    want: [
      `opération notes.creer, réponse 200 « results[].titre » : ${BOUND}`,
      'opération notes.creer, réponse 200 « results[].tags » : liste sans maxItems',
      `opération notes.creer, réponse 200 « extra.* » : ${BOUND}`,
      'opération notes.creer, réponse 200 « choix » : liste sans maxItems',
    ],
  },
  {
    name: 'a schema reached by $ref is judged once, where it is written',
    given: contract((c) => {
      c.doc.components!.schemas!.Mot = { type: 'string' };
      note(c).properties.mot = { $ref: '#/components/schemas/Mot' };
      answer(c, { type: 'object', properties: { a: { $ref: '#/components/schemas/Mot' }, b: { $ref: '#/components/schemas/Mot' } } });
    }),
    want: [`schéma Mot : ${BOUND}`],
  },
  {
    name: 'a string or list in a shared error body or request body component is judged too',
    given: contract((c) => {
      c.doc.components!.requestBodies!.Vide = { content: { 'application/json': { schema: { type: 'object', properties: { liste: { type: 'array', maxItems: 2, items: { type: 'string' } } } } } } };
      (c.doc.components!.responses as Record<string, unknown>).BadRequest = { description: 'x', content: { 'application/json': { schema: { type: 'object', properties: { message: { type: 'string' } } } } } };
    }),
    want: [`corps Vide « liste[] » : ${BOUND}`, `réponse BadRequest « message » : ${BOUND}`],
  },
  {
    name: 'an input number needs a minimum and a maximum (JSON 1e309 is an infinity)',
    given: contract((c) => Object.assign(note(c).properties, { montant: { type: 'number' }, rang: { type: ['integer', 'null'], minimum: 1 }, taux: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 } })),
    want: ['opération notes.creer, entrée « montant » : nombre sans minimum', 'opération notes.creer, entrée « montant » : nombre sans maximum', 'opération notes.creer, entrée « rang » : nombre sans maximum'],
  },
  {
    name: 'an output number needs no bound (the data decides it), an input number with an enum neither',
    given: contract((c) => {
      note(c).properties.niveau = { type: 'integer', enum: [1, 2, 3] };
      answer(c, { type: 'object', properties: { montant: { type: 'number' } } });
    }),
    want: [],
  },

  // Problems add up, document first, then operations, tools, reachability.
  {
    name: 'several problems are all listed, in order',
    given: contract((c) => {
      c.catalogue.tools = c.catalogue.tools.filter((t) => t.name !== 'moi');
      c.catalogue.tools.push(tool('note_creer', ['notes.creer'], { scope: 'mcp:write' }));
      delete creer(c).summary;
      c.doc.openapi = '3.0.0';
    }),
    want: [
      'openapi doit valoir 3.1.0 (trouvé 3.0.0)',
      'opération notes.creer : summary manque',
      'outil note_creer : nom en double',
      "opération me : aucun outil actif ne l'atteint",
    ],
  },
];

describe('checkContract', () => {
  for (const c of cases) it(c.name, () => expect(run(c.given)).to.deep.equal(c.want));
});
