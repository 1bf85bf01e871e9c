// loadContract joins openapi.yaml with the files it references, fills in each operation's path, error responses and version sentence, refuses a contract file nothing joins, and gives the text of every file for the checksum.
import { expect } from 'chai';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { loadContract } from '../../../scripts/generator/contract-source.js';
import { ERROR_RESPONSES } from '../../../scripts/generator/error-responses.js';

interface Case {
  name: string;
  /** The files of the contract folder, by path. */
  given: Record<string, string>;
  /** The joined document (key order compared) and the text for the checksum; or the message loadContract throws. */
  want: { openapi: unknown; text: string } | { error: string };
}

const OPENAPI = `openapi: 3.1.0
info: { title: Test, version: 1.0.0, x-api-contract-version: 3.0.0 }
paths:
  x-notes: { $ref: ./paths/notes.yaml }
components: {}
`;
const NOTES = `# Notes.
notes.lire:
  post:
    operationId: notes.lire
    description: |
      Lit une note.
    responses:
      '200': { description: La note. }
`;
const TOOLS = 'catalogue_version: 1.0.0\ntools: []\n';

const errorRefs = Object.fromEntries(Object.entries(ERROR_RESPONSES).map(([status, name]) => [status, { $ref: `#/components/responses/${name}` }]));

async function run(given: Record<string, string>): Promise<unknown> {
  const dir = await mkdtemp(join(tmpdir(), 'contract-'));
  try {
    for (const [path, text] of Object.entries(given)) {
      await mkdir(dirname(join(dir, path)), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    const source = await loadContract(dir);
    return { openapi: JSON.parse(JSON.stringify(source.openapi)) as unknown, text: source.text };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const cases: Case[] = [
  {
    name: 'the domain file is joined and each operation filled in: path, error responses, version sentence',
    given: { 'openapi.yaml': OPENAPI, 'paths/notes.yaml': NOTES, 'tools.yaml': TOOLS },
    want: {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Test', version: '1.0.0', 'x-api-contract-version': '3.0.0' },
        paths: {
          '/api/mcp/v1/notes.lire': {
            post: {
              operationId: 'notes.lire',
              description: 'Lit une note.\n\nVersion du contrat : 3.0.0.\n',
              responses: { '200': { description: 'La note.' }, ...errorRefs },
            },
          },
        },
        components: {},
      },
      text: `openapi.yaml\n${OPENAPI}\npaths/notes.yaml\n${NOTES}\ntools.yaml\n${TOOLS}`,
    },
  },
  {
    name: 'without a contract version, no sentence is added (checkContract reports the missing version)',
    given: { 'openapi.yaml': OPENAPI.replace(', x-api-contract-version: 3.0.0', ''), 'paths/notes.yaml': NOTES, 'tools.yaml': TOOLS },
    want: {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Test', version: '1.0.0' },
        paths: { '/api/mcp/v1/notes.lire': { post: { operationId: 'notes.lire', description: 'Lit une note.\n', responses: { '200': { description: 'La note.' }, ...errorRefs } } } },
        components: {},
      },
      text: `openapi.yaml\n${OPENAPI.replace(', x-api-contract-version: 3.0.0', '')}\npaths/notes.yaml\n${NOTES}\ntools.yaml\n${TOOLS}`,
    },
  },
  {
    name: 'a YAML file of the folder that nothing joins is refused',
    given: { 'openapi.yaml': OPENAPI, 'paths/notes.yaml': NOTES, 'paths/oubli.yaml': 'notes.vider: {}\n', 'tools.yaml': TOOLS },
    want: { error: 'Contrat : aucun $ref ne joint paths/oubli.yaml (à référencer depuis openapi.yaml ou à supprimer)' },
  },
  {
    name: 'a file that is not YAML may sit in the folder',
    given: { 'openapi.yaml': OPENAPI, 'paths/notes.yaml': NOTES, 'paths/LISEZMOI.md': 'Notes.\n', 'tools.yaml': TOOLS },
    want: {
      openapi: {
        openapi: '3.1.0',
        info: { title: 'Test', version: '1.0.0', 'x-api-contract-version': '3.0.0' },
        paths: {
          '/api/mcp/v1/notes.lire': {
            post: { operationId: 'notes.lire', description: 'Lit une note.\n\nVersion du contrat : 3.0.0.\n', responses: { '200': { description: 'La note.' }, ...errorRefs } },
          },
        },
        components: {},
      },
      text: `openapi.yaml\n${OPENAPI}\npaths/notes.yaml\n${NOTES}\ntools.yaml\n${TOOLS}`,
    },
  },
  {
    name: 'a missing domain file is refused',
    given: { 'openapi.yaml': OPENAPI, 'tools.yaml': TOOLS },
    want: { error: 'openapi.yaml : fichier paths/notes.yaml introuvable' },
  },
];

describe('loadContract', () => {
  for (const c of cases) it(c.name, async () => expect(JSON.stringify(await run(c.given))).to.equal(JSON.stringify(c.want)));
});
