// Rule: nothing acknowledged is lost and nothing half-written appears when the service is killed (-9) in the middle of writes: every alert answered as created is there after a restart, and the organisation's alert counter matches its alerts.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { createAccount, setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { hashPassword } from '../../../src/platform/passwords.js';
import { obtainToken } from '../../../scripts/lib/native-flow.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';

const EMAIL = 'kill@exemple.fr';
const PASSWORD = 'mot-de-passe-kill';

function startChild(databaseUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--import=tsx', 'src/main.ts'], { env: { ...process.env, PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'ignore'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (c) => {
      out += c;
      const m = /Service à l'écoute : (\S+)/.exec(out);
      if (m?.[1]) resolve({ child, url: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`arrêt avant écoute (${code})`)));
  });
}

describe('faults: kill -9 during writes', function () {
  this.timeout(60_000);
  let database: TestDatabaseUrl;
  let organisationId: string;

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    const db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    const account = await createAccount(db, { email: EMAIL, passwordHash: await hashPassword(PASSWORD), organisation: 'Org kill', role: 'admin', plan: 'subscribed' }, new Date());
    organisationId = account.organisationId as string;
    await setOrganisationPlan(db, 'Org kill', { callsPerMinute: 1_000_000, callsPerDay: 10_000_000 });
    await db.destroy();
  });
  after(async () => database.cleanup());

  it('keeps every acknowledged alert, and a counter that matches, after kill -9 and a restart', async () => {
    const { child, url } = await startChild(database.databaseUrl);
    const acknowledged: string[] = [];
    try {
      const { accessToken } = await obtainToken({ baseUrl: url, email: EMAIL, password: PASSWORD, scope: 'mcp:read mcp:write' });
      let n = 0;
      let killed = false;
      // Five writers in a row each; the kill comes while writes are in flight.
      const writer = async () => {
        while (!killed) {
          const name = `alerte ${++n}`;
          try {
            const res = await fetch(`${url}/api/mcp/v1/alertes.create`, {
              method: 'POST',
              headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
              body: JSON.stringify({ name, query: 'toiture' }),
            });
            if (res.status === 200 && (await res.json()).created === true) acknowledged.push(name);
          } catch {
            return; // the connection died with the process
          }
        }
      };
      const writers = Array.from({ length: 5 }, writer);
      while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 5));
      child.kill('SIGKILL');
      killed = true;
      await Promise.all(writers);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    // The restart runs the migrations on the same database and answers again.
    const restarted = await startChild(database.databaseUrl);
    restarted.child.kill('SIGTERM');
    await new Promise((r) => restarted.child.once('exit', r));
    const db = openDatabase(database.databaseUrl);
    try {
      const names = (await db('alerts').where('organisation_id', organisationId).select('name')).map((r) => r.name as string);
      expect(names).to.include.members(acknowledged);
      const org = await db('organisations').where('id', organisationId).first('alert_count');
      expect(Number(org.alert_count)).to.equal(names.length);
      expect(acknowledged.length).to.be.greaterThan(0);
    } finally {
      await db.destroy();
    }
  });
});
