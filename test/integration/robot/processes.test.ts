// Real robot processes on one database: two racing for a slot make one run; a robot killed with SIGKILL at random points 20 times, then a clean run, leaves every expected event exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { ROBOT_LEASE_MS } from '../../../src/domains/robot/slot-lease.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';
import { createAlert, createOrganisation, iso } from '../../domains/robot/fixtures.js';

const HOUR = 3_600_000;
/** 09:05 in Paris: the 09:00 slot has room for 21 leases of two minutes. */
const T = new Date('2026-11-24T08:05:00Z');

function robot(databaseUrl: string, at: Date): { child: ChildProcess; done: Promise<{ code: number | null; signal: string | null; out: string }> } {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/robot.ts', '--once', '--at', iso(at)], {
    env: { ...process.env, DATABASE_URL: databaseUrl, PUBLIC_URL: 'https://service.test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d) => (out += String(d)));
  child.stderr?.on('data', (d) => (out += String(d)));
  const done = new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, out })));
  return { child, done };
}

/** `words` distinct words, `perWord` notices citing each, one realtime alert per (word, copy). */
async function seed(db: Database, words: number, perWord: number, alertsPerWord: number): Promise<Map<string, Set<string>>> {
  const org = await createOrganisation(db);
  const fresh = iso(T.getTime() - 2 * HOUR);
  const expected = new Map<string, Set<string>>();
  const noticesOf = new Map<number, string[]>();
  const rows: Record<string, unknown>[] = [];
  for (let w = 0; w < words; w++) {
    const ids: string[] = [];
    for (let i = 0; i < perWord; i++) {
      const id = `00000000-0000-4000-8000-${String(w * perWord + i).padStart(12, '0')}`;
      ids.push(id);
      rows.push({
        marche_id: id, annonce_id: `26-${w}-${i}`, source: 'BOAMP', objet: `Travaux de motcle${w}x lot ${i}`, acheteur_nom: 'Commune', buyer_id: null, date_parution: fresh.slice(0, 10),
        date_limite: null, departements: '[]', types_marche: '[]', nature: null, nature_libelle: null, procedure_libelle: null, famille: null, etat: null, cpv: null, cpv_codes: '[]',
        ingested_at: fresh, updated_at: fresh,
      });
    }
    noticesOf.set(w, ids);
  }
  for (let i = 0; i < rows.length; i += 200) await db('notices').insert(rows.slice(i, i + 200));
  for (let w = 0; w < words; w++) {
    for (let c = 0; c < alertsPerWord; c++) {
      const id = await createAlert(db, org, { query: `motcle${w}x`, sources: ['marche'], createdAt: iso(T.getTime() - 2 * 24 * HOUR) });
      expected.set(id, new Set(noticesOf.get(w)));
    }
  }
  return expected;
}

async function eventsByAlert(db: Database): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of (await db('alert_events').select('alert_id', 'record_id')) as { alert_id: string; record_id: string }[]) out.set(r.alert_id, [...(out.get(r.alert_id) ?? []), r.record_id]);
  return out;
}

function expectExactly(expected: Map<string, Set<string>>, got: Map<string, string[]>): void {
  expect(got.size).to.equal(expected.size);
  for (const [alert, records] of expected) {
    const list = got.get(alert) ?? [];
    expect(list.length, `alerte ${alert}`).to.equal(records.size);
    expect(new Set(list)).to.deep.equal(records);
  }
}

describe('alert robot processes (issue 15)', function () {
  this.timeout(600_000);
  let database: TestDatabaseUrl;
  let db: Database;

  beforeEach(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
  });
  afterEach(async () => {
    await db?.destroy();
    await database?.cleanup();
  });

  it('two robot processes racing for the same slot: one run, each event once', async () => {
    const expected = await seed(db, 10, 5, 5);
    const runs = [robot(database.databaseUrl, T), robot(database.databaseUrl, T)];
    const outcomes = await Promise.all(runs.map((r) => r.done));
    for (const o of outcomes) expect(o.code, o.out).to.equal(0);
    expect(outcomes.filter((o) => /alertes évaluées : 50/.test(o.out)), outcomes.map((o) => o.out).join('\n')).to.have.length(1);
    expect(outcomes.filter((o) => /déjà évalué|en cours d'évaluation par un autre processus/.test(o.out))).to.have.length(1);
    expect(Number((await db('robot_runs').count<{ n: number }[]>('* as n'))[0]?.n)).to.equal(1);
    expectExactly(expected, await eventsByAlert(db));
  });

  it('killed with SIGKILL at random points 20 times, then a clean run: every expected event exactly once', async () => {
    const expected = await seed(db, 40, 40, 20);
    let at = T.getTime();
    let killedMidRun = 0;
    for (let i = 0; i < 20; i++) {
      const run = robot(database.databaseUrl, new Date(at));
      // Every other kill early from the spawn (mostly during start-up: a kill after the whole
      // run would leave nothing for the others to resume on a fast machine); the others at a
      // random point shortly after this process claimed the slot (its lease: its clock + 2
      // min), inside its run of 800 alerts whatever the machine's load makes of the start-up.
      if (i % 2 === 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 600));
      else {
        const lease = iso(at + ROBOT_LEASE_MS);
        const exited = run.done.then(() => true);
        for (let waited = 0; waited < 60_000; waited += 20) {
          const row = (await db('robot_runs').first('lease_until')) as { lease_until: string } | undefined;
          if ((row && row.lease_until >= lease) || (await Promise.race([exited, Promise.resolve(false)]))) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 60));
      }
      run.child.kill('SIGKILL');
      const outcome = await run.done;
      if (outcome.signal === 'SIGKILL') {
        const row = (await db('robot_runs').first('finished_at')) as { finished_at: string | null } | undefined;
        if (row && !row.finished_at) killedMidRun++;
      }
      // The next process comes after the dead one's lease.
      at += ROBOT_LEASE_MS + 1000;
    }
    const clean = await robot(database.databaseUrl, new Date(at)).done;
    expect(clean.code, clean.out).to.equal(0);
    const row = (await db('robot_runs').first('finished_at', 'takeovers')) as { finished_at: string | null; takeovers: number };
    expect(row.finished_at).to.be.a('string');
    // The test means something: runs died holding the slot, and others resumed it.
    expect(killedMidRun).to.be.greaterThan(0);
    expect(Number(row.takeovers)).to.be.greaterThan(0);
    expectExactly(expected, await eventsByAlert(db));
    const done = (await db('alerts').whereNull('robot_slot').count<{ n: number }[]>('* as n'))[0]?.n;
    expect(Number(done)).to.equal(0);
  });
});
