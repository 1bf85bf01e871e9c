// npm run sync: French help and refusals, a French summary, --status; a real process killed with SIGKILL at random points resumes where it stopped, every notice exactly once.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { parisDay } from '../../../src/platform/paris-time.js';
import { addDays } from '../../../src/sync/days.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';
import { odsHandler, startReplayServer, type OdsDataset, type ReplayServer } from '../../helpers/replay-server.js';
import { seeded } from '../../helpers/sync-harness.js';

const REAL = JSON.parse(readFileSync(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url), 'utf8')) as { results: Record<string, unknown>[] };

function sync(args: string[], env: Record<string, string>): { kill: () => void; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/sync.ts', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  return { kill: () => child.kill('SIGKILL'), done: new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out }))) };
}

describe('sync: the command line', function () {
  this.timeout(180_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let replay: ReplayServer;
  const today = parisDay(new Date());
  const dataset: OdsDataset = {
    id: 'boamp',
    dateField: 'dateparution',
    processed: '2026-11-26T12:00:00+00:00',
    // Over six days, today's included: inside a first run's seven days whether it starts
    // before or after Paris's midnight (a test run at midnight lost the seventh day's notices).
    records: Array.from({ length: 7 * 600 }, (_, n) => {
      const idweb = `26-7${String(n).padStart(5, '0')}`;
      return { ...(REAL.results[n % REAL.results.length] as Record<string, unknown>), idweb, id: idweb.replace('-', '_'), dateparution: addDays(today, -Math.floor(n / 700)) };
    }),
  };

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    // Each page answered after 40 ms: a run lasts long enough to be killed inside.
    replay = await startReplayServer(async (req) => {
      await new Promise((r) => setTimeout(r, 40));
      return odsHandler(() => [dataset])(req);
    });
  });
  after(async () => {
    await replay.close();
    await db.destroy();
    await database.cleanup();
  });

  const env = () => ({ DATABASE_URL: database.databaseUrl, BOAMP_API_URL: `${replay.url}/api/explore/v2.1`, SYNC_LEASE_SECONDS: '1' });

  it('answers --help in French, refuses an unknown source or a bad day with exit code 2 and a French message', async () => {
    const help = await sync(['--help'], env()).done;
    expect(help.code).to.equal(0);
    expect(help.out).to.match(/^Synchronisation des sources avec leurs producteurs\./);
    const unknown = await sync(['--source', 'tedeu'], env()).done;
    expect(unknown.code).to.equal(2);
    expect(unknown.out).to.match(/Erreur : source inconnue : tedeu\. Sources : boamp/);
    const badDay = await sync(['--source', 'boamp', '--since', '2026-13-01'], env()).done;
    expect(badDay.code).to.equal(2);
    expect(badDay.out).to.contain('--since attend un jour AAAA-MM-JJ');
  });

  it('killed with SIGKILL at random points, then run again: every notice exactly once; --status says à jour', async () => {
    const random = seeded(7);
    let killedInside = 0;
    // Until 4 kills have landed inside a run (a loaded machine may start slowly), 12 tries at most.
    for (let k = 0; k < 12 && killedInside < 4; k++) {
      const before = Number(((await db('notices').count('* as n').first()) as { n: number | string }).n);
      const run = sync(['--source', 'boamp'], env());
      let exited = false;
      void run.done.then(() => (exited = true));
      // Killed once it has written a page, at a random moment of the pages after it.
      const count = async () => Number(((await db('notices').count('* as n').first()) as { n: number | string }).n);
      for (let waited = 0; !exited && (await count()) === before && waited < 60_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, random() * 300));
      run.kill();
      const end = await run.done;
      if (end.signal === 'SIGKILL' && (await count()) > before) killedInside += 1;
      // The lease of the killed process passes (SYNC_LEASE_SECONDS=1) before the next one.
      await new Promise((r) => setTimeout(r, 1100));
    }
    expect(killedInside).to.be.at.least(4);
    const last = await sync(['--source', 'boamp'], env()).done;
    expect(last.code, last.out).to.equal(0);
    expect(last.out).to.match(/^boamp : à jour\. \d+ lus, \d+ ajoutés, \d+ mis à jour, 0 écartés/m);
    const ids = (await db('notices').select('annonce_id')).map((r: { annonce_id: string }) => r.annonce_id);
    expect(ids.length).to.equal(7 * 600);
    expect(new Set(ids).size).to.equal(ids.length);
    const state = (await db('sync_state').where('source', 'boamp').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(7 * 600);
    const status = await sync(['--status'], { ...env(), SYNC: 'on' }).done;
    expect(status.code).to.equal(0);
    expect(status.out).to.match(/^boamp \(avis de marchés du BOAMP\) : à jour/m);
  });
});
