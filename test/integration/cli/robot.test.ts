// npm run robot: --at never later than the real clock (refused, nothing written, no window moved); --now reports what was just imported at once, without the one-hour margin, writing the events only (windows and slots unchanged, no duplicate afterwards); the events' permalinks use the address the service recorded, said by the command.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { runRobotSlot } from '../../../src/domains/robot/run.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { addNotice, createAlert, createOrganisation, iso } from '../../domains/robot/fixtures.js';
import { freshDatabase, startTestService, type TestDatabaseUrl } from '../../helpers/service.js';

const exec = promisify(execFile);
const HOUR = 3_600_000;

async function robot(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' };
  for (const name of ['PORT', 'HOST', 'PUBLIC_URL']) delete env[name];
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', 'scripts/robot.ts', ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run robot after an import', function () {
  this.timeout(180_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let serviceUrl: string;
  let alertId: string;
  let noticeId: string;
  const progress = async () => (await db('alerts').where('id', alertId).first('robot_slot', 'robot_window_end')) as { robot_slot: string | null; robot_window_end: string | null };
  const events = async () => (await db('alert_events').where('alert_id', alertId).select('kind', 'record_id', 'record')) as { kind: string; record_id: string; record: string }[];

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    // A service started once on this database (on a port of its own) recorded its address there.
    const svc = await startTestService({ database });
    serviceUrl = svc.url;
    await svc.close();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    const org = await createOrganisation(db);
    alertId = await createAlert(db, org, { query: 'toiture', sources: ['marche'], createdAt: iso(Date.now() - 48 * HOUR) });
    // The slot of the moment has run (the service does it at start)…
    const first = await robot(['--once'], database.databaseUrl);
    expect(first.code, first.stderr).to.equal(0);
    // … then a notice is imported.
    noticeId = await addNotice(db, { objet: 'Réfection de la toiture de la mairie', at: iso(Date.now() - 60_000) });
  });
  after(async () => {
    await db.destroy();
    await database.cleanup();
  });

  it('--once: the slot already ran, it says so and names --now', async () => {
    const out = await robot(['--once'], database.databaseUrl);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout).to.include('déjà évalué').and.include('npm run robot -- --now');
    expect(await events()).to.deep.equal([]);
  });

  it('--at later than the real clock: refused in French, nothing written, no window moved', async () => {
    const before = await progress();
    const runs = await db('robot_runs').count<{ n: number | string }[]>('* as n');
    for (const args of [['--once', '--at', iso(Date.now() + 6 * HOUR)], ['--alert', alertId, '--dry-run', '--at', iso(Date.now() + 24 * HOUR)]]) {
      const out = await robot(args, database.databaseUrl);
      expect(out.code, args.join(' ')).to.equal(2);
      expect(out.stderr).to.match(/^Erreur : --at \S+ est dans le futur/).and.include('npm run robot -- --now');
    }
    expect(await progress()).to.deep.equal(before);
    expect(await db('robot_runs').count<{ n: number | string }[]>('* as n')).to.deep.equal(runs);
    expect(await events()).to.deep.equal([]);
  });

  it('--alert ID --dry-run finds the notice just imported (no margin), writes nothing', async () => {
    const out = await robot(['--alert', alertId, '--dry-run'], database.databaseUrl);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stdout).to.include('1 événement').and.include(noticeId);
    expect(await events()).to.deep.equal([]);
  });

  it('--now writes the event of the notice just imported with the service’s address, leaves the window, never writes it twice', async () => {
    const before = await progress();
    const out = await robot(['--now'], database.databaseUrl);
    expect(out.code, out.stderr).to.equal(0);
    expect(out.stderr).to.include(`Adresse des liens (permaliens) : ${serviceUrl} (adresse enregistrée par le service`);
    expect(out.stdout).to.include('événements écrits : 1');
    const written = await events();
    expect(written.map((e) => [e.kind, e.record_id])).to.deep.equal([['nouveau_marche', noticeId]]);
    expect((JSON.parse(written[0]?.record as string) as { fields: { url: string } }).fields.url).to.equal(`${serviceUrl}/marches/${noticeId}`);
    expect(await progress()).to.deep.equal(before);

    const again = await robot(['--now'], database.databaseUrl);
    expect(again.stdout).to.include('événements écrits : 0');
    // The next scheduled slot reads the notice again (its window had not moved) and writes no duplicate.
    const next = await runRobotSlot({ db, publicUrl: serviceUrl, now: () => new Date(Date.now() + 3 * HOUR) });
    expect(next.ran).to.equal(true);
    expect(await events()).to.have.length(1);
    expect((await progress()).robot_window_end).to.not.equal(before.robot_window_end);
  });
});
