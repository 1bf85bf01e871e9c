// The corrections of a batch written together: a moved deadline, a cancellation and a
// rectification without deadline in one file change each its notice's own columns only, the
// same on both engines (one update per notice on SQLite, one statement for them all on
// PostgreSQL); a re-import changes nothing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const EXCERPTS = fileURLToPath(new URL('./fixtures/boamp-forms-excerpts.json', import.meta.url));
const silent = () => ({ update: () => undefined, stop: () => undefined });

describe('BOAMP corrections written in one batch', function () {
  this.timeout(60_000);
  let m: MigratedDatabase;
  let dir: string;
  const results = (JSON.parse(readFileSync(EXCERPTS, 'utf8')) as { results: Record<string, unknown>[] }).results;
  const [first, second, third, fourth, correction, cancellation] = results;
  /** A rectification of the third notice that gives no deadline (neither in its record nor in `donnees`). */
  const rectification = { ...correction, id: '26_91004', idweb: '26-91004', objet: 'Réhabilitation de la médiathèque', dateparution: '2026-09-10', datelimitereponse: null, donnees: null, annonce_lie: ['26-90003'] };

  const importAt = (name: string, records: unknown[], when: string) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ total_count: records.length, results: records }));
    return importFile(m.db, IMPORTERS.boamp as never, path, { progress: silent, now: () => new Date(when) });
  };
  const stored = async () =>
    Object.fromEntries(
      ((await m.db('notices').whereIn('annonce_id', ['26-90001', '26-90002', '26-90003', '26-90004']).select('annonce_id', 'etat', 'date_limite', 'modification', 'modifie_par', 'modifie_le')) as Record<string, string | null>[]).map(
        ({ annonce_id, ...rest }) => [annonce_id as string, rest],
      ),
    );

  before(async () => {
    m = await openMigratedDatabase();
    dir = mkdtempSync(join(tmpdir(), 'boamp-corrections-'));
  });
  after(async () => {
    await m?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sets each corrected notice’s changed columns and leaves the others as they are', async () => {
    await importAt('all.json', [first, second, third, fourth, correction, cancellation, rectification], '2026-09-12T06:00:00.000Z');
    expect(await stored()).to.deep.equal({
      '26-90001': {
        etat: 'INITIAL',
        date_limite: '2026-10-06T10:00:00.000Z',
        modification: 'date limite fixée au 06/10/2026 par l’avis rectificatif 26-91001',
        modifie_par: '26-91001',
        modifie_le: '2026-09-12T06:00:00.000Z',
      },
      '26-90002': {
        etat: 'AVIS_ANNULE',
        date_limite: '2026-10-02T10:00:00.000Z', modification: 'avis annulé par l’avis 26-91002 du 02/09/2026',
        modifie_par: '26-91002',
        modifie_le: '2026-09-12T06:00:00.000Z',
      },
      '26-90003': {
        etat: 'INITIAL',
        date_limite: '2026-09-30T10:00:00.000Z',
        modification: 'avis rectifié par l’avis 26-91004 du 10/09/2026',
        modifie_par: '26-91004',
        modifie_le: '2026-09-12T06:00:00.000Z',
      },
      '26-90004': { etat: 'INITIAL', date_limite: '2026-09-01T10:00:00.000Z', modification: null, modifie_par: null, modifie_le: null },
    });
  });

  it('a re-import puts the same values back, without moving when they changed', async () => {
    const before = await stored();
    await importAt('again.json', [first, second, third, fourth, correction, cancellation, rectification], '2026-09-13T06:00:00.000Z');
    expect(await stored()).to.deep.equal(before);
  });
});
