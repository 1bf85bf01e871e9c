// A notice search by words alone (ranked in the index, only the best matches read) gives exactly the results, order and pages of the same search joined to every match (run with TEST_DB=postgres too), ties in rank and date included.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Database } from '../../../src/platform/db/database.js';
import { searchNotices } from '../../../src/domains/notices/store.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

// Few texts and few dates for many notices: ranks tie, and dates tie within a rank.
const OBJETS = ['Réfection de la toiture', 'Réfection de la toiture de l’école', 'Toiture et zinguerie de l’école', 'Isolation de la toiture', 'Peinture'];
const DATES = ['2026-11-02', '2026-10-15', '2026-09-01'];

function notices(): unknown[] {
  return Array.from({ length: 90 }, (_, i) => ({
    idweb: `26-${String(20000 + i)}`,
    objet: OBJETS[i % OBJETS.length],
    nomacheteur: i % 2 ? 'Commune de Quimper' : 'Ville de Brest',
    dateparution: DATES[(i * 7) % DATES.length],
    datelimitereponse: null,
    code_departement: ['29'],
    type_marche: ['TRAVAUX'],
    nature: 'APPEL_OFFRE',
    donnees: JSON.stringify({ OBJET: { CPV: { PRINCIPAL: '45261000' } } }),
  }));
}

describe('notice search by words alone', () => {
  let database: MigratedDatabase;
  let db: Database;
  let dir: string;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    dir = mkdtempSync(join(tmpdir(), 'notices-data-'));
    writeFileSync(join(dir, 'boamp.json'), JSON.stringify({ results: notices() }));
    await importFile(db, IMPORTERS.boamp as never, join(dir, 'boamp.json'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const query of ['toiture', 'toiture ecole', 'refection, peinture', '"de la toiture"', 'introuvable']) {
    it(`pages « ${query} » exactly as the joined search`, async () => {
      const parsed = parseQuery(query);
      // A filter every notice passes: the joined path, the reference.
      const joined = { publishedFrom: '1900-01-01' };
      for (const limit of [1, 7, 25]) {
        for (let offset = 0; offset <= 95; offset += limit) {
          const page = { offset, limit, countCap: 1000 };
          const alone = await searchNotices(db, parsed, {}, page);
          expect(alone, `${query} ${offset}+${limit}`).to.deep.equal(await searchNotices(db, parsed, joined, page));
          if (!alone.hasMore) break;
        }
      }
    });
  }

  it('finds every matching notice once across the pages', async () => {
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = await searchNotices(db, parseQuery('toiture'), {}, { offset, limit: 7, countCap: 1000 });
      seen.push(...page.ids);
      if (!page.hasMore) break;
    }
    expect(seen).to.have.length(72);
    expect(new Set(seen).size).to.equal(72);
  });
});
