// On SQLite, bm25_cached scores every match exactly as FTS5's bm25() does, for every shape of query and every index of the service, and reuses a word's count or a document's length only while the index's data version and totals stay the same.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { CACHED_RANKING } from '../../../src/platform/db/sqlite-ranking.js';
import { createSearchIndex, defineSearchIndex, fts5Query, sqliteRank, upsertSearchDocuments, type SearchIndex } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { sqliteVersionTriggers } from '../../../src/migrations/0032-sqlite-search-versions.js';
import { demoDatabase } from '../../helpers/demo-database.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../../helpers/service.js';

const INDEX = defineSearchIndex({
  name: 'rank_search',
  columns: [
    { name: 'titre', weight: 'A' },
    { name: 'texte', weight: 'C' },
  ],
});
// Frequent and rare words, so that some counts pass half the documents (bm25's floor of the IDF) and some do not.
const WORDS = ['travaux', 'toiture', 'ecole', 'zinc', 'voirie', 'gymnase', 'peinture', 'charpente', 'isolation', 'lycee'];

/** A deterministic corpus of 4,000 documents of 1 to 14 words, the first words far more frequent. */
function corpus(): { key: string; titre: string; texte: string }[] {
  let seed = 11;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() ** 2 * WORDS.length)] as string).join(' ');
  return Array.from({ length: 4000 }, (_, i) => ({ key: `d${String(i).padStart(5, '0')}`, titre: words(1 + Math.floor(next() * 3)), texte: words(Math.floor(next() * 12)) }));
}

/** Every match's rowid and score, by rowid: bm25() or bm25_cached. */
async function scores(db: Knex, index: SearchIndex, text: string, cached: boolean): Promise<{ id: number; rank: number }[]> {
  const parsed = parseQuery(text);
  if (!parsed) throw new Error(`requête vide : ${text}`);
  const rank = sqliteRank(index, parsed, cached);
  return (await db.raw(`select rowid as id, ${rank.sql} as rank from "${index.name}" where "${index.name}" match ? order by rowid`, [...rank.bindings, fts5Query(parsed)])) as { id: number; rank: number }[];
}

/** The two functions' scores side by side: the same rows, each score the same number to the last bit. */
async function expectSameScores(db: Knex, index: SearchIndex, text: string): Promise<number> {
  const plain = await scores(db, index, text, false);
  for (let round = 0; round < 2; round++) {
    const cached = await scores(db, index, text, true);
    expect(cached.map((r) => r.id), text).to.deep.equal(plain.map((r) => r.id));
    const differing = cached.filter((r, i) => !Object.is(r.rank, (plain[i] as { rank: number }).rank));
    expect(differing, `${text} : scores différents`).to.deep.equal([]);
  }
  return plain.length;
}

if (!usingPostgres)
describe('bm25_cached, the ranking of search matches on SQLite', function () {
  this.timeout(120_000);

  it('is built by the install and loaded into every connection', () => {
    expect(CACHED_RANKING).to.equal(true);
  });

  describe('on an index of its own', () => {
    let database: MigratedDatabase;
    before(async () => {
      database = await openMigratedDatabase();
      const { db } = database;
      await createSearchIndex(db, INDEX);
      await db('search_data_versions').insert({ name: INDEX.name, version: 0 });
      for (const sql of sqliteVersionTriggers(INDEX.name, true)) await db.raw(sql);
      const rows = corpus();
      for (let i = 0; i < rows.length; i += 500) await db.transaction((trx) => upsertSearchDocuments(trx, INDEX, rows.slice(i, i + 500).map((r) => ({ key: r.key, fields: { titre: r.titre, texte: r.texte } }))));
    });
    after(() => database.close());

    for (const text of ['travaux', 'zinc', 'travaux toiture', 'toiture ecole zinc', 'lyc', 'travaux isol', '"toiture ecole"', 'zinc, voirie gymnase', '"peinture zinc", charpente', 'ecole, toiture, lyc', 'travaux travaux toiture'])
      it(`scores « ${text} » as bm25() does, twice`, async () => {
        expect(await expectSameScores(database.db, INDEX, text)).to.be.greaterThan(0);
      });

    it("reads a document's length again once it is rewritten", async () => {
      const { db } = database;
      const write = (titre: string, texte: string) => db.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'd00001', fields: { titre, texte } }]));
      await write('zinc zinc', '');
      await expectSameScores(db, INDEX, 'zinc');
      await write('zinc lycee lycee', 'zinc travaux ecole toiture');
      await expectSameScores(db, INDEX, 'zinc');
    });

    it('keeps and reuses nothing inside a transaction, where the version read may be rolled back', async () => {
      const { db } = database;
      // A word in fewer than half the documents: its count changes its score (bm25 floors the others).
      const changed = corpus().find((r) => !['d00000', 'd00001'].includes(r.key) && r.titre.split(' ').includes('lycee'));
      const [{ id }] = (await db(`${INDEX.name}_keys`).where({ key: (changed as { key: string }).key }).select('id')) as [{ id: number }];
      await db
        .transaction(async (trx) => {
          await expectSameScores(trx, INDEX, 'lycee isolation');
          // Deleted from the index alone: the version stays, yet the scores follow bm25()'s.
          await trx.raw(`delete from "${INDEX.name}" where rowid = ?`, [id]);
          await expectSameScores(trx, INDEX, 'lycee isolation');
          throw new Error('annulée');
        })
        .catch((err: Error) => expect(err.message).to.equal('annulée'));
      await expectSameScores(db, INDEX, 'lycee isolation');
    });

    it('counts a word again once a write changes the data, and reuses the count until then', async () => {
      const { db } = database;
      await expectSameScores(db, INDEX, 'lycee zinc');
      // A document written through the service: the version moves, the counts are read again.
      await db.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'd00000', fields: { titre: 'lycee lycee', texte: 'zinc' } }]));
      await expectSameScores(db, INDEX, 'lycee zinc');
      // A document deleted from the index alone, its key left: the version does not move (nor
      // do FTS5's totals, which a delete leaves as they were), so the count kept is the one
      // before and the scores are not bm25()'s: the version is what invalidates the counts.
      const changed = corpus().find((r) => !['d00000', 'd00001'].includes(r.key) && !r.titre.split(' ').includes('lycee') && `${r.titre} ${r.texte}`.split(' ').includes('lycee') && !`${r.titre} ${r.texte}`.split(' ').includes('zinc'));
      expect(changed, 'un document avec « lycee » sans « zinc »').to.not.equal(undefined);
      const [{ id }] = (await db(`${INDEX.name}_keys`).where({ key: (changed as { key: string }).key }).select('id')) as [{ id: number }];
      const lycee = async () => Number(((await db.raw(`select count(*) as n from "${INDEX.name}" where "${INDEX.name}" match '"lycee"'`)) as { n: number }[])[0]?.n);
      const before = await lycee();
      await db.raw(`delete from "${INDEX.name}" where rowid = ?`, [id]);
      expect(await lycee()).to.equal(before - 1);
      const plain = await scores(db, INDEX, 'lycee zinc', false);
      const cached = await scores(db, INDEX, 'lycee zinc', true);
      expect(cached.some((r, i) => !Object.is(r.rank, (plain[i] as { rank: number }).rank))).to.equal(true);
      await db('search_data_versions').where({ name: INDEX.name }).increment('version', 1);
      await expectSameScores(db, INDEX, 'lycee zinc');
    });
  });

  describe("on the service's indexes, filled by the demo set", () => {
    let database: MigratedDatabase;
    before(async () => {
      database = await demoDatabase(['sirene-unites', 'sirene-etablissements', 'boamp', 'decp', 'bodacc', 'deliberations', 'publications', 'contacts', 'permis'], '2026-03-05');
    });
    after(() => database.close());

    it('scores the pairs of their most frequent words, and their prefixes, as bm25() does', async () => {
      const { db } = database;
      const indexes = (await db.raw(`select name from sqlite_master where type = 'table' and sql like 'create virtual table%fts5%' order by name`)) as { name: string }[];
      expect(indexes.length).to.be.greaterThan(5);
      let compared = 0;
      for (const { name } of indexes) {
        const columns = (await db.raw(`select name from pragma_table_info(?)`, [name])) as { name: string }[];
        // The weights do not change what is compared: both functions take the same ones.
        const index = defineSearchIndex({ name, columns: columns.map((c, i) => ({ name: c.name, weight: i === 0 ? 'A' : 'B' })) });
        await db.raw(`create virtual table temp.vocabulary using fts5vocab(main, "${name}", row)`);
        const words = ((await db.raw(`select term from temp.vocabulary where term glob '[a-z][a-z][a-z][a-z]*' order by doc desc limit 6`)) as { term: string }[]).map((r) => r.term);
        await db.raw('drop table temp.vocabulary');
        if (words.length < 2) continue;
        const word = (i: number) => (words[i] ?? words[1]) as string;
        for (const text of [`${word(0)} ${word(1)}`, `${word(0)} ${word(5)}`, `${word(2)} ${word(3).slice(0, 3)}`, word(4)]) {
          await expectSameScores(db, index, text);
          compared += 1;
        }
      }
      expect(compared).to.be.at.least(20);
    });
  });
});
