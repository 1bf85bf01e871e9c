// A company search with broad words and a department (« an active establishment in the department ») answers exactly what the whole join ranked by the database answers, whether the words' matches are each checked against their establishments or read among the department's companies: same companies, same order, same capped count, page after page.
import { expect } from 'chai';
import { searchCompanies } from '../../../src/domains/companies/store.js';
import { COMPANIES_SEARCH } from '../../../src/domains/companies/search-index.js';
import { countMatches, orderByRelevance, searchMatches } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { FEWEST_MATCHES, LISTED_PER_MATCH } from '../../../src/platform/search/search-page.js';
import { usingPostgres, type MigratedDatabase } from '../../helpers/service.js';
import { demoDatabase } from '../../helpers/demo-database.js';

const TODAY = '2026-03-05';

describe(`company searches by department (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(180000);
  let database: MigratedDatabase;
  let departements: string[];

  before(async () => {
    database = await demoDatabase(['sirene-unites', 'sirene-etablissements'], TODAY);
    const { db } = database;
    // The most and the least frequent departments of active establishments.
    const counts = (await db('establishments').where('etat', 'A').whereNotNull('departement').groupBy('departement').select('departement').count('* as n').orderBy([{ column: 'n', order: 'desc' }, 'departement'])) as { departement: string }[];
    departements = [...counts.slice(0, 2), ...counts.slice(-2)].map((c) => c.departement);
  });
  after(async () => {
    await database?.close();
  });

  /** The reference: the whole join, ranked and ordered by the database (relevance, newest, SIREN). */
  async function reference(words: string, dept: string): Promise<string[]> {
    const { db } = database;
    const joined = db('companies as c')
      .where('c.etat', 'A')
      .whereExists(db('establishments as e').select(db.raw('1')).whereRaw('e.siren = c.siren').andWhere('e.departement', dept).andWhere('e.etat', 'A'))
      .join(searchMatches(db, COMPANIES_SEARCH, parseQuery(words)).as('m'), 'm.key', 'c.siren')
      .select('c.siren');
    const rows = (await orderByRelevance(db, joined, { rank: 'm.rank', then: [{ column: 'c.date_creation', order: 'desc' }], key: 'c.siren' })) as { siren: string }[];
    return rows.map((r) => r.siren);
  }

  // « batiment »: too few matches in the small set to read them among a department's companies.
  for (const { words, listed: readAmong } of [
    { words: 'travaux', listed: true },
    { words: 'construction, travaux', listed: true },
    { words: 'batiment', listed: false },
  ]) {
    it(`« ${words} » in the largest and the smallest departments, page after page`, async () => {
      const { db } = database;
      let broad = 0;
      let paged = 0;
      for (const dept of departements) {
        const want = await reference(words, dept);
        if (want.length > 20) paged += 1;
        const listed = Number(((await db('establishments').where({ departement: dept, etat: 'A' }).count('* as n')) as { n: number | string }[])[0]?.n);
        // Broad words: more matches than a share of the department's listed companies.
        const matches = await countMatches(db, COMPANIES_SEARCH, parseQuery(words), 1_000_000);
        if (matches > FEWEST_MATCHES && matches > listed / LISTED_PER_MATCH) broad += 1;
        const got: string[] = [];
        for (let offset = 0; offset < Math.min(want.length, 60) || offset === 0; offset += 20) {
          const page = await searchCompanies(db, parseQuery(words), { dept, actives: true }, { offset, limit: 20, countCap: 1000 }, TODAY);
          expect(page.total).to.equal(Math.min(want.length, 1000));
          expect(page.hasMore).to.equal(offset + 20 < want.length);
          got.push(...page.sirens);
        }
        expect(got).to.deep.equal(want.slice(0, 60));
      }
      // The cases this protects: broad words read among the department's companies (or
      // narrower ones each checked), more than one page of answers.
      expect(broad > 0).to.equal(readAmong);
      expect(paged).to.be.greaterThan(0);
    });
  }
});
