// An announcement's SIRENs are replaced when it is imported again (a corrected record may cite
// others), those of the other announcements kept: the same on both engines (900 ids a
// statement on SQLite, one array of ids on PostgreSQL).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });
const record = (id: string, registre: string[]) => ({ id, dateparution: '2026-10-01', familleavis: 'vente', publicationavis: 'A', registre, commercant: `SOCIETE ${id}` });

describe('BODACC: the SIRENs of an announcement imported again', function () {
  this.timeout(60_000);
  let m: MigratedDatabase;
  let dir: string;
  const importLines = (name: string, records: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n'));
    return importFile(m.db, IMPORTERS.bodacc as never, path, { progress: silent, now: () => new Date('2026-10-02T06:00:00.000Z') });
  };
  const links = async () =>
    ((await m.db('announcement_sirens').orderBy(['announcement_id', 'siren']).select('announcement_id', 'siren')) as { announcement_id: string; siren: string }[]).map(
      (l) => `${l.announcement_id}:${l.siren}`,
    );

  before(async () => {
    m = await openMigratedDatabase();
    dir = mkdtempSync(join(tmpdir(), 'bodacc-sirens-'));
  });
  after(async () => {
    await m?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('replaces the SIRENs of the announcements imported again, and keeps the others’', async () => {
    await importLines('first.jsonl', [record('A1', ['111111111', '222222222']), record('A2', ['333333333']), record('A3', ['444444444'])]);
    expect(await links()).to.deep.equal(['A1:111111111', 'A1:222222222', 'A2:333333333', 'A3:444444444']);
    // A1 now cites another SIREN; A2 cites none; A3 is not in the file.
    await importLines('second.jsonl', [record('A1', ['555555555', '222222222']), record('A2', [])]);
    expect(await links()).to.deep.equal(['A1:222222222', 'A1:555555555', 'A3:444444444']);
  });

  it('keeps the SIRENs of the last version when a file gives an announcement twice', async () => {
    await importLines('twice.jsonl', [record('A3', ['666666666']), record('A3', ['777777777'])]);
    expect(await links()).to.deep.equal(['A1:222222222', 'A1:555555555', 'A3:777777777']);
  });
});
