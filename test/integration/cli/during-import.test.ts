// A command that writes (npm run account:create) while a large import writes batch after batch into the same database gets its turn and succeeds, and the import still finishes whole: the import makes room for waiting writers between its batches.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { writeSirene } from '../../../scripts/demo/sirene.js';
import { parseIsoDay } from '../../../scripts/demo/util.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile } from '../../../src/import/run.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';

const exec = promisify(execFile);
const COMPANIES = 150_000;

describe('a command writing during a large import', function () {
  this.timeout(600_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let dir: string;
  let units: string;

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    dir = mkdtempSync(join(tmpdir(), 'during-import-'));
    units = join(dir, 'StockUniteLegale_utf8.csv');
    await writeSirene({ seed: 3, today: parseIsoDay('2026-11-20') as number }, COMPANIES, units, join(dir, 'StockEtablissement_utf8.csv'));
  });
  after(async () => {
    await db.destroy();
    await database.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an account while the import runs, and the import writes every row', async () => {
    const quiet = () => ({ update: () => undefined, stop: () => undefined });
    const importing = importFile(db, IMPORTERS['sirene-unites'] as never, units, { readIn: 'worker', batchSize: 5000, progress: quiet });
    let done = false;
    void importing.then(
      () => (done = true),
      () => (done = true),
    );
    // The command starts once the import has committed its first batch.
    const reader = openDatabase(database.databaseUrl);
    try {
      for (;;) {
        const [{ n }] = (await reader('companies').count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
        if (Number(n) > 0 || done) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await reader.destroy();
    }
    expect(done, 'the import ended before the command could start: make it larger').to.equal(false);
    const env = { ...process.env, DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' };
    const created = await exec(process.execPath, ['--import=tsx', 'scripts/account-create.ts', '--email', 'pendant-import@exemple.fr', '--password', 'Pendant-l-import-2026', '--organisation', 'Pendant import'], { env }).then(
      (r) => ({ code: 0, ...r }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );
    expect(created.code, created.stderr).to.equal(0);
    expect(created.stdout).to.include('Compte créé : pendant-import@exemple.fr');

    const report = await importing;
    expect(report.inserted + report.updated).to.equal(COMPANIES - report.skipped);
    const [{ n }] = (await db('companies').count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
    expect(Number(n)).to.be.at.least(COMPANIES - report.skipped);
    expect(await db('users').where({ email: 'pendant-import@exemple.fr' }).first('id')).to.not.equal(undefined);
  });
});
