// An award search with words and departments answers exactly what the whole join ranked by the database answers, whether the words' matches are read among the departments' awards or each checked against its record: same awards, same order, same capped count, page after page.
import { expect } from 'chai';
import { searchAwards } from '../../../src/domains/awards/store.js';
import { AWARDS_SEARCH } from '../../../src/domains/awards/search-index.js';
import { countMatches, orderByRelevance, searchMatches } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { FEWEST_MATCHES, LISTED_PER_MATCH } from '../../../src/platform/search/search-page.js';
import { usingPostgres, type MigratedDatabase } from '../../helpers/service.js';
import { demoDatabase } from '../../helpers/demo-database.js';

describe(`award searches by department (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(180000);
  let database: MigratedDatabase;
  /** The two most and the two least frequent departments. */
  let departements: string[];

  before(async () => {
    database = await demoDatabase(['decp'], '2026-03-05');
    const { db } = database;
    const counts = (await db('awards').whereNotNull('departement').groupBy('departement').select('departement').count('* as n').orderBy([{ column: 'n', order: 'desc' }, 'departement'])) as { departement: string }[];
    departements = [...counts.slice(0, 2), ...counts.slice(-2)].map((c) => c.departement);
  });
  after(async () => {
    await database?.close();
  });

  /** The reference: the whole join, ranked and ordered by the database (relevance, latest notified, key). */
  async function reference(words: string, depts: string[]): Promise<string[]> {
    const { db } = database;
    const joined = db('awards as a').whereIn('a.departement', depts).join(searchMatches(db, AWARDS_SEARCH, parseQuery(words)).as('m'), 'm.key', 'a.award_key').select('a.award_key');
    const rows = (await orderByRelevance(db, joined, { rank: 'm.rank', then: [{ column: 'a.date_notification', order: 'desc' }], key: 'a.award_key' })) as { award_key: string }[];
    return rows.map((r) => r.award_key);
  }

  for (const words of ['travaux', 'travaux, construction', 'toiture']) {
    it(`« ${words} » in the largest and the smallest departments, one and two at once, page after page`, async () => {
      const { db } = database;
      let broad = 0;
      let paged = 0;
      const asked = [...departements.map((d) => [d]), departements.slice(0, 2), departements.slice(2)];
      for (const depts of asked) {
        const want = await reference(words, depts);
        if (want.length > 20) paged += 1;
        const listed = Number(((await db('awards').whereIn('departement', depts).count('* as n')) as { n: number | string }[])[0]?.n);
        const matches = await countMatches(db, AWARDS_SEARCH, parseQuery(words), 1_000_000);
        if (matches > FEWEST_MATCHES && matches > listed / LISTED_PER_MATCH) broad += 1;
        const got: string[] = [];
        for (let offset = 0; offset < Math.min(want.length, 60) || offset === 0; offset += 20) {
          const page = await searchAwards(db, parseQuery(words), { departements: depts }, { offset, limit: 20, countCap: 1000 });
          expect(page.total).to.equal(Math.min(want.length, 1000));
          expect(page.hasMore).to.equal(offset + 20 < want.length);
          got.push(...page.keys);
        }
        expect(got).to.deep.equal(want.slice(0, 60));
        // Below the count's cap and at it: a cap under the answer's size reads the index's best matches.
        if (want.length > 30) {
          const capped = await searchAwards(db, parseQuery(words), { departements: depts }, { offset: 20, limit: 10, countCap: 25 });
          expect(capped.total).to.equal(25);
          expect(capped.keys).to.deep.equal(want.slice(20, 30));
        }
      }
      // The cases this protects: broad words (read among the departments' awards on SQLite), more than one page of answers.
      if (words !== 'toiture') expect(broad).to.be.greaterThan(0);
      expect(paged).to.be.greaterThan(0);
    });
  }
});
