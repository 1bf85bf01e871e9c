// joinFiles replaces each `$ref` naming a contract file by what it names (read relative to the file holding it), leaves `#/…` references alone, lists every file read once, and refuses a missing, circular or outside reference.
import { expect } from 'chai';
import { joinFiles } from '../../../scripts/generator/join-files.js';

interface Case {
  name: string;
  /** The contract's files by path; the entry is openapi.yaml. */
  given: Record<string, string>;
  /** The joined document and the files read, in order; or the message joinFiles throws. */
  want: { document: unknown; files: string[] } | { error: string };
}

async function run(given: Record<string, string>): Promise<unknown> {
  const read = async (path: string) => {
    const text = given[path];
    if (text === undefined) throw new Error(`ENOENT: ${path}`);
    return text;
  };
  try {
    const { document, files } = await joinFiles('openapi.yaml', read);
    // Each text must be the one given for its path.
    for (const f of files) expect(f.text).to.equal(given[f.path]);
    return { document, files: files.map((f) => f.path) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const cases: Case[] = [
  {
    name: 'a file without file references comes back parsed, the only file read',
    given: { 'openapi.yaml': 'openapi: 3.1.0\npaths: {}\n' },
    want: { document: { openapi: '3.1.0', paths: {} }, files: ['openapi.yaml'] },
  },
  {
    name: 'a reference to a whole file is replaced by its content, in its place',
    given: { 'openapi.yaml': 'paths:\n  x-notes: { $ref: ./paths/notes.yaml }\ncomponents: {}\n', 'paths/notes.yaml': 'notes.lire:\n  post: { operationId: notes.lire }\n' },
    want: { document: { paths: { 'x-notes': { 'notes.lire': { post: { operationId: 'notes.lire' } } } }, components: {} }, files: ['openapi.yaml', 'paths/notes.yaml'] },
  },
  {
    name: 'a `#/…` reference is left as it is, in the entry as in a joined file',
    given: {
      'openapi.yaml': "a: { $ref: '#/components/schemas/Note' }\nb: { $ref: ./paths/notes.yaml }\n",
      'paths/notes.yaml': "schema: { $ref: '#/components/schemas/Note' }\n",
    },
    want: {
      document: { a: { $ref: '#/components/schemas/Note' }, b: { schema: { $ref: '#/components/schemas/Note' } } },
      files: ['openapi.yaml', 'paths/notes.yaml'],
    },
  },
  {
    name: 'a reference in a joined file is relative to that file',
    given: { 'openapi.yaml': 'a: { $ref: paths/notes.yaml }\n', 'paths/notes.yaml': 'b: { $ref: ../shared/titre.yaml }\n', 'shared/titre.yaml': 'type: string\n' },
    want: { document: { a: { b: { type: 'string' } } }, files: ['openapi.yaml', 'paths/notes.yaml', 'shared/titre.yaml'] },
  },
  {
    name: 'a JSON pointer after # picks a part of the file (~1 stands for /)',
    given: { 'openapi.yaml': "a: { $ref: './paths/notes.yaml#/notes.lire/post' }\nb: { $ref: './paths/notes.yaml#/~1api~1x' }\n", 'paths/notes.yaml': "notes.lire:\n  post: { operationId: notes.lire }\n/api/x: 1\n" },
    want: { document: { a: { operationId: 'notes.lire' }, b: 1 }, files: ['openapi.yaml', 'paths/notes.yaml'] },
  },
  {
    name: 'a file referenced twice is read once; files are listed in the order first reached',
    given: {
      'openapi.yaml': 'a: { $ref: ./b.yaml }\nc: { $ref: ./c.yaml }\nd: { $ref: ./b.yaml }\n',
      'b.yaml': 'x: 1\n',
      'c.yaml': 'y: { $ref: ./b.yaml }\n',
    },
    want: { document: { a: { x: 1 }, c: { y: { x: 1 } }, d: { x: 1 } }, files: ['openapi.yaml', 'b.yaml', 'c.yaml'] },
  },
  {
    name: 'references inside arrays are joined too',
    given: { 'openapi.yaml': 'a: [{ $ref: ./b.yaml }, 2]\n', 'b.yaml': '1\n' },
    want: { document: { a: [1, 2] }, files: ['openapi.yaml', 'b.yaml'] },
  },
  { name: 'a missing entry is refused', given: {}, want: { error: 'fichier openapi.yaml introuvable' } },
  {
    name: 'a missing file is refused, naming the file that references it',
    given: { 'openapi.yaml': 'a: { $ref: ./paths/notes.yaml }\n' },
    want: { error: 'openapi.yaml : fichier paths/notes.yaml introuvable' },
  },
  {
    name: 'a pointer to nothing is refused',
    given: { 'openapi.yaml': "a: { $ref: './b.yaml#/absent' }\n", 'b.yaml': 'x: 1\n' },
    want: { error: 'openapi.yaml : référence ./b.yaml#/absent introuvable' },
  },
  {
    name: 'a file that includes itself, even through another, is refused',
    given: { 'openapi.yaml': 'a: { $ref: ./paths/notes.yaml }\n', 'paths/notes.yaml': 'b: { $ref: ../openapi.yaml }\n' },
    want: { error: 'référence circulaire : openapi.yaml → paths/notes.yaml → openapi.yaml' },
  },
  {
    name: 'a URL is refused',
    given: { 'openapi.yaml': 'a: { $ref: https://example.org/schema.yaml }\n' },
    want: { error: 'openapi.yaml : référence https://example.org/schema.yaml hors du contrat (seul un chemin relatif est admis)' },
  },
  {
    name: 'an absolute path is refused',
    given: { 'openapi.yaml': 'a: { $ref: /etc/schema.yaml }\n' },
    want: { error: 'openapi.yaml : référence /etc/schema.yaml hors du contrat (seul un chemin relatif est admis)' },
  },
  {
    name: 'a file outside the contract folder is refused',
    given: { 'openapi.yaml': 'a: { $ref: ./paths/../../src/x.yaml }\n' },
    want: { error: 'openapi.yaml : référence ./paths/../../src/x.yaml hors du dossier du contrat' },
  },
  {
    name: 'a file reference with other keys beside it is refused',
    given: { 'openapi.yaml': 'a: { $ref: ./b.yaml, description: Autre }\n', 'b.yaml': 'x: 1\n' },
    want: { error: "openapi.yaml : la référence ./b.yaml ne porte pas d'autres clés" },
  },
];

describe('joinFiles', () => {
  for (const c of cases) it(c.name, async () => expect(await run(c.given)).to.deep.equal(c.want));

  it('each place a file is referenced gets its own copy (a fill-in on one leaves the other)', async () => {
    const files: Record<string, string> = { 'openapi.yaml': 'a: { $ref: ./b.yaml }\nd: { $ref: ./b.yaml }\n', 'b.yaml': 'x: { y: 1 }\n' };
    const { document } = await joinFiles('openapi.yaml', async (p) => files[p] ?? '');
    const doc = document as Record<string, { x: unknown }>;
    expect(doc.a!.x).to.not.equal(doc.d!.x);
  });

  it('unreadable YAML is refused, naming the file', async () => {
    const files: Record<string, string> = { 'openapi.yaml': 'a: { $ref: ./b.yaml }\n', 'b.yaml': 'x: [1\n' };
    const err = await joinFiles('openapi.yaml', async (p) => files[p] ?? '').catch((e: Error) => e);
    expect((err as Error).message).to.match(/^b\.yaml : YAML illisible : /);
  });
});
