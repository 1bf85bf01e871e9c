// A search page answers exactly (with the documents in their own table, and on PostgreSQL in a column of the records' table) what the whole join ranked by the database answers (relevance, then newest, then key; counts capped), whichever way it ranks: the index alone for words, the index widened for words and filters, the passing records ranked alone below the count's cap, the database for rare filter passes or no words, the matches read among a listed superset of the passing records (a department's); pages follow one another without gap or repeat; on SQLite the page's statements run in reading threads, the reference on the connection.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { withSqlite } from '../../../src/platform/db/statements.js';
import { createSearchIndex, defineSearchIndex, orderByRelevance, searchMatches, upsertSearchDocuments } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { readsAmongListed, searchPage, type SearchPageSpec } from '../../../src/platform/search/search-page.js';
import { freshDatabase, usingPostgres, type TestDatabaseUrl } from '../../helpers/service.js';

const COLUMNS = [
  { name: 'titre', weight: 'A' as const },
  { name: 'texte', weight: 'B' as const },
];
const LAYOUTS = [
  { label: 'documents in their own table', index: defineSearchIndex({ name: 'page_search', columns: COLUMNS }) },
  // PostgreSQL only: SQLite keeps its FTS5 table whatever the declaration.
  ...(usingPostgres
    ? [
        { label: "documents in the records' table", index: defineSearchIndex({ name: 'page_search', columns: COLUMNS, postgresRecords: { table: 'page_records', key: 'id' } }) },
        { label: 'documents listing their departments, the department narrowing the matches', index: defineSearchIndex({ name: 'page_search', columns: COLUMNS, postgresLists: ['departements'] }) },
      ]
    : []),
];
const WORDS = ['toiture', 'ecole', 'zinc', 'voirie', 'gymnase', 'peinture', 'charpente', 'isolation'];
const DEPARTEMENTS = ['29', '35', '56', '22'];

/** A deterministic corpus: 3,000 records, words repeated so that ranks tie often, some dates missing. */
function corpus(): { id: string; titre: string; texte: string; departement: string; date: string | null }[] {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: 3000 }, (_, i) => {
    const pick = () => WORDS[Math.floor(next() * WORDS.length)] as string;
    return {
      id: `r${String(i).padStart(5, '0')}`,
      titre: `${pick()} ${pick()}`,
      texte: `travaux ${pick()} ${pick()} ${pick()}`,
      // Department 22 is rare (1 in 100): the widening gives way to the database.
      departement: next() < 0.01 ? '22' : (DEPARTEMENTS[Math.floor(next() * 3)] as string),
      date: next() < 0.05 ? null : `2026-${String(1 + Math.floor(next() * 12)).padStart(2, '0')}-${String(1 + Math.floor(next() * 28)).padStart(2, '0')}`,
    };
  });
}

for (const { label, index: INDEX } of LAYOUTS)
describe(`search pages (${usingPostgres ? 'PostgreSQL' : 'SQLite'}, ${label})`, function () {
  this.timeout(60000);
  let database: TestDatabaseUrl;
  let db: Database;
  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl, { readThreads: 2 });
    await db.schema.createTable('page_records', (t) => {
      t.string('id').primary();
      t.string('departement').notNullable();
      t.string('date').nullable();
    });
    await createSearchIndex(db, INDEX);
    const rows = corpus();
    for (let i = 0; i < rows.length; i += 200) await db('page_records').insert(rows.slice(i, i + 200).map(({ id, departement, date }) => ({ id, departement, date })));
    await db.transaction((trx) =>
      upsertSearchDocuments(
        trx,
        INDEX,
        rows.map((r) => ({ key: r.id, fields: { titre: r.titre, texte: r.texte }, ...(INDEX.postgresLists ? { lists: { departements: [r.departement] } } : {}) })),
      ),
    );
  });
  after(async () => {
    await db.destroy();
    await database.cleanup();
  });

  const base = (departements: string[]) => {
    const q = db('page_records as p');
    if (departements.length) q.whereIn('p.departement', departements);
    return q;
  };
  /** The reference: the whole join, ranked and ordered by the database (dates: none last). */
  async function reference(query: string | null, departements: string[]): Promise<string[]> {
    if (!query) {
      const rows = (await base(departements).select('p.id').orderByRaw(`p.date desc${usingPostgres ? ' nulls last' : ''}, p.id${usingPostgres ? ' collate "C"' : ''}`)) as { id: string }[];
      return rows.map((r) => r.id);
    }
    const joined = base(departements).join(searchMatches(db, INDEX, parseQuery(query)).as('m'), 'm.key', 'p.id').select('p.id', 'm.rank');
    const rows = (await orderByRelevance(db, joined, { rank: 'm.rank', key: 'p.id' })) as { id: string; rank: number | string }[];
    // Equal ranks by date (none last) then key: what the page promises.
    const dates = new Map(((await db('page_records').select('id', 'date')) as { id: string; date: string | null }[]).map((r) => [r.id, r.date]));
    return rows
      .map((r) => ({ id: r.id, rank: Number(r.rank), date: dates.get(r.id) ?? null }))
      .sort((a, b) => (a.rank !== b.rank ? b.rank - a.rank : a.date !== b.date ? (a.date === null ? 1 : b.date === null ? -1 : a.date < b.date ? 1 : -1) : Buffer.compare(Buffer.from(a.id), Buffer.from(b.id))))
      .map((r) => r.id);
  }

  const cases: { given: string; query: string | null; departements: string[] }[] = [
    { given: 'two common words alone (the index alone)', query: 'toiture ecole', departements: [] },
    { given: 'one word alone', query: 'zinc', departements: [] },
    { given: 'words and a filter most records pass (the index widened)', query: 'toiture ecole', departements: ['29', '35', '56'] },
    { given: 'words and a filter few pass (the database ranks the join)', query: 'toiture', departements: ['22'] },
    { given: 'an OR of words and a filter', query: 'gymnase, voirie', departements: ['35'] },
    { given: 'no words, a filter (date order, none last)', query: null, departements: ['56'] },
    { given: 'words matching nothing', query: 'ardoise', departements: [] },
  ];
  /** The records of these departments, listed (each key once per record: a superset of what `base` lets through, as a department's establishments list their companies). */
  const listed = (departements: string[]) => db('page_records as a').select('a.id').whereIn('a.departement', departements);

  for (const c of [
    ...cases,
    // The filter's records listed: broad words matched among them (SQLite).
    ...cases.filter((c) => c.departements.length && c.query).map((c) => ({ ...c, given: `${c.given}, the department's records listed`, among: true })),
  ] as ((typeof cases)[number] & { among?: boolean })[]) {
    it(c.given, async () => {
      const want = await reference(c.query, c.departements);
      const parsed = c.query ? parseQuery(c.query) : null;
      const spec = (): SearchPageSpec => ({
        index: INDEX,
        base: base(c.departements),
        key: 'p.id',
        then: { column: 'p.date', order: 'desc' as const },
        filtered: c.departements.length > 0,
        among: c.among ? listed(c.departements) : undefined,
        narrow: INDEX.postgresLists && c.departements.length ? { departements: c.departements } : undefined,
      });
      // The words match more records than an eighth of the list: read among the list.
      if (c.among && parsed) {
        expect(await readsAmongListed(db, parsed, spec(), null)).to.equal(!usingPostgres);
      }
      // Page after page of 50, the first few, and a page deep in the list.
      const got: string[] = [];
      for (let offset = 0; offset < Math.min(want.length, 300); offset += 50) {
        const page = await searchPage(db, parsed, spec(), { offset, limit: 50, countCap: 1000 });
        expect(page.total).to.equal(Math.min(want.length, 1000));
        expect(page.hasMore).to.equal(offset + 50 < want.length);
        got.push(...page.keys);
      }
      expect(got).to.deep.equal(want.slice(0, 300));
      if (want.length > 900) {
        const deep = await searchPage(db, parsed, spec(), { offset: 900, limit: 50, countCap: 1000 });
        expect(deep.keys).to.deep.equal(want.slice(900, 950));
      }
    });
  }

  // SQLite only (PostgreSQL reads no list): one layout there.
  if (!usingPostgres)
  it('reads the matches among a list in one statement that ranks, orders and counts the passing records (SQLite)', async () => {
    // A pool without reading threads: its statements are the ones seen here.
    const plain = openDatabase(database.databaseUrl);
    try {
      // The statements ranking the records (the count of the words' matches ranks nothing).
      const matching: string[] = [];
      plain.on('query', (q: { sql: string }) => void (/bm25(_cached)?\(/i.test(q.sql) && /page_records/.test(q.sql) && matching.push(q.sql)));
      const spec: SearchPageSpec = {
        index: INDEX,
        base: plain('page_records as p').whereIn('p.departement', ['22']),
        key: 'p.id',
        then: { column: 'p.date', order: 'desc' },
        filtered: true,
        among: plain('page_records as a').select('a.id').whereIn('a.departement', ['22']),
      };
      const want = await reference('travaux', ['22']);
      // A cap below the passing records: before, a count up to the cap, then the order at the cap.
      const page = await searchPage(plain, parseQuery('travaux'), spec, { offset: 5, limit: 5, countCap: 10 });
      expect(page).to.deep.equal({ keys: want.slice(5, 10), hasMore: true, total: 10 });
      expect(matching).to.have.length(1);
    } finally {
      await plain.destroy();
    }
  });

  // SQLite only: the reading threads.
  if (!usingPostgres)
  it("ranks the index's best matches and counts the words' matches in the reading threads, never on the process's connection (SQLite)", async () => {
    const spec = (departements: string[], among: boolean): SearchPageSpec => ({
      index: INDEX,
      base: base(departements),
      key: 'p.id',
      then: { column: 'p.date', order: 'desc' },
      filtered: true,
      among: among ? listed(departements) : undefined,
    });
    const wantAtCap = (await reference('charpente isolation', ['29', '35', '56'])).slice(0, 10);
    const wantListed = (await reference('peinture', ['29'])).slice(0, 10);
    // Read among the list: the words' matches are counted first.
    expect(await readsAmongListed(db, parseQuery('peinture'), spec(['29'], true), null)).to.equal(true);
    // Every statement the process's own connection runs during the pages (prepared now or before).
    const conn = await withSqlite(db, (c) => c);
    const statements = Object.getPrototypeOf(conn.prepare('select 1')) as Record<'all' | 'get' | 'iterate', (this: { source: string; database: unknown }, ...args: unknown[]) => unknown>;
    const originals = { all: statements.all, get: statements.get, iterate: statements.iterate };
    const ran: string[] = [];
    for (const name of ['all', 'get', 'iterate'] as const) {
      const original = originals[name];
      statements[name] = function (this: { source: string; database: unknown }, ...args: unknown[]) {
        if (this.database === conn) ran.push(this.source);
        return original.apply(this, args);
      };
    }
    try {
      // At the cap: the index's best matches ranked.
      const atCap = await searchPage(db, parseQuery('charpente isolation'), spec(['29', '35', '56'], false), { offset: 0, limit: 10, countCap: 20 });
      const listedPage = await searchPage(db, parseQuery('peinture'), spec(['29'], true), { offset: 0, limit: 10, countCap: 1000 });
      expect(ran.filter((sql) => / match /i.test(sql))).to.deep.equal([]);
      expect(atCap.keys).to.deep.equal(wantAtCap);
      expect(listedPage.keys).to.deep.equal(wantListed);
    } finally {
      Object.assign(statements, originals);
    }
  });

  // Below the count's cap every passing record is read and ranked alone; at the cap the
  // index's best matches are widened: both sides of the boundary answer the same.
  for (const c of [
    { query: 'toiture ecole', departements: ['29', '35', '56'] },
    { query: 'gymnase, voirie', departements: ['35'] },
    { query: 'gymnase, voirie', departements: ['35'], among: true },
    { query: 'travaux', departements: ['22'], among: true },
  ]) {
    it(`words and a filter, a count cap just below, at and above the passing records (${c.query}${c.among ? ', the records listed' : ''})`, async () => {
      const want = await reference(c.query, c.departements);
      const spec = (): SearchPageSpec => ({
        index: INDEX,
        base: base(c.departements),
        key: 'p.id',
        then: { column: 'p.date', order: 'desc' as const },
        filtered: true,
        among: c.among ? listed(c.departements) : undefined,
        narrow: INDEX.postgresLists && c.departements.length ? { departements: c.departements } : undefined,
      });
      for (const countCap of [want.length - 1, want.length, want.length + 1]) {
        for (const offset of [0, 100, want.length - 20]) {
          const page = await searchPage(db, parseQuery(c.query), spec(), { offset, limit: 50, countCap });
          expect(page.total).to.equal(Math.min(want.length, countCap));
          expect(page.keys).to.deep.equal(want.slice(offset, offset + 50));
          expect(page.hasMore).to.equal(offset + 50 < want.length);
        }
      }
    });
  }
});
