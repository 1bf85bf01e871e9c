// Roles apart (SERVICE_ROLES) on one database, as on several machines: two API processes (one with two workers) answer any call with each other's tokens, the robot runs once and only where its role is, and a process killed under load loses no acknowledged write while the other keeps answering.
import { expect } from 'chai';
import { migrateLatest } from '../../../src/migrations/index.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';
import { restAt } from '../quota/quota-helpers.js';
import { accountOn, callPids, freePort, seedOneCompany, startServiceProcess, type ServiceProcess } from './processes.js';

describe('SERVICE_ROLES: API processes and background work apart, on one database', function () {
  this.timeout(300_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let publicUrl: string;
  let background: ServiceProcess;
  let apiOne: ServiceProcess;
  let apiTwo: ServiceProcess;
  const extra: ServiceProcess[] = [];

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    await seedOneCompany(db);
    // Behind one load balancer: every process publishes the same address.
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    const common = { PUBLIC_URL: publicUrl };
    [background, apiOne, apiTwo] = await Promise.all([
      startServiceProcess(database.databaseUrl, { ...common, SERVICE_ROLES: 'robot,sync,email,sweep' }),
      startServiceProcess(database.databaseUrl, { ...common, PORT: String(port), SERVICE_ROLES: 'api', WORKERS: '1' }),
      startServiceProcess(database.databaseUrl, { ...common, SERVICE_ROLES: 'api', WORKERS: '2' }),
    ]);
  });
  after(async () => {
    await Promise.all([background, apiOne, apiTwo, ...extra].map((p) => p?.stop()));
    await db?.destroy();
    await database?.cleanup();
  });

  it('answers a call on any API process with a token issued by another', async () => {
    const account = await accountOn(database.databaseUrl, apiOne.ownUrl as string);
    // Simultaneous calls open several connections: the second process' primary hands them to
    // both its workers (one slowed by the machine's load may miss a batch).
    for (let batch = 0; batch < 10 && callPids([apiTwo], 'me').size < 2; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => restAt((i % 2 ? apiOne.ownUrl : apiTwo.ownUrl) as string, 'me', account.token)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(200));
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(callPids([apiOne], 'me').size).to.equal(1);
    expect(callPids([apiTwo], 'me').size, 'les deux processus du second').to.equal(2);
  });

  it('runs the robot once, where its role is: one run of the slot, none in the API processes, none in a second background process', async () => {
    await background.waitForLog((l) => l.msg === 'robot : créneau évalué');
    expect(background.lines.some((l) => /^Travail de fond démarré : robot, sweep$/.test(l)), background.lines.join('\n')).to.equal(true);
    const second = await startServiceProcess(database.databaseUrl, { PUBLIC_URL: publicUrl, SERVICE_ROLES: 'robot' });
    extra.push(second);
    // Its start-up run finds the slot done: it writes no run of its own.
    await new Promise((r) => setTimeout(r, 3000));
    for (const api of [apiOne, apiTwo, second]) expect(api.logs().filter((l) => l.msg === 'robot : créneau évalué')).to.deep.equal([]);
    const runs = (await db('robot_runs').select('slot_start', 'takeovers', 'finished_at')) as { takeovers: number; finished_at: string | null }[];
    expect(runs).to.have.length(1);
    expect(runs[0]?.finished_at).to.be.a('string');
    expect(Number(runs[0]?.takeovers)).to.equal(0);
  });

  it('loses no acknowledged write when an API process is killed under load, and the other keeps answering', async () => {
    const account = await accountOn(database.databaseUrl, apiOne.ownUrl as string);
    const acknowledged: string[] = [];
    let n = 0;
    let killed = false;
    let afterKill = 0;
    const writer = (base: string) => async () => {
      while (!(killed && base === apiOne.ownUrl) && afterKill < 20) {
        const name = `alerte ${++n}`;
        try {
          const a = await restAt(base, 'alertes.create', account.token, { name, query: 'toiture' });
          if (a.status === 200 && a.json.created === true) {
            acknowledged.push(name);
            if (killed) afterKill += 1;
          }
        } catch {
          if (base === apiOne.ownUrl) return; // the connection died with the process
          throw new Error('le second processus d’API a cessé de répondre');
        }
      }
    };
    const writers = [...Array.from({ length: 3 }, writer(apiOne.ownUrl as string)), ...Array.from({ length: 3 }, writer(apiTwo.ownUrl as string))];
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 5));
    apiOne.child.kill('SIGKILL');
    killed = true;
    await Promise.all(writers);
    expect(afterKill, 'écritures acquittées par le second après l’arrêt brutal du premier').to.be.at.least(20);
    const organisation = (await db('organisations').where('name', account.organisation).first('id', 'alert_count')) as { id: string; alert_count: number };
    const names = (await db('alerts').where('organisation_id', organisation.id).select('name')).map((r) => r.name as string);
    expect(names).to.include.members(acknowledged);
    expect(Number(organisation.alert_count)).to.equal(names.length);
  });
});
