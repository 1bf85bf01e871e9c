// Every core (WORKERS=2, npm start's real entry): the start's one-time work runs once, calls on one port reach both workers, quotas and revocations stay exact across them, the robot and the e-mail delivery run once per machine, /metrics sums the workers behind its token, a rolling restart (SIGHUP) loses no admitted call, and SIGTERM stops everything cleanly.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';
import { startSmtp, type TestSmtp } from '../emails/smtp.js';
import { burst, callLogCount, expectExactly, restAt, toolCall, type Answer } from '../quota/quota-helpers.js';
import { accountOn, callPids, startServiceProcess, type ServiceProcess } from './processes.js';

const TOKEN = 'jeton-des-metriques-de-test';

describe('WORKERS=2: one port, two API processes, background work once', function () {
  this.timeout(300_000);
  let database: TestDatabaseUrl;
  let db: Database;
  let smtp: TestSmtp;
  let svc: ServiceProcess;
  let url: string;
  let primaryPid: number;

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    smtp = await startSmtp();
    // An empty database: the first start imports the demo data before the workers serve.
    svc = await startServiceProcess(database.databaseUrl, { PORT: '0', WORKERS: '2', METRICS_TOKEN: TOKEN, SMTP_URL: smtp.url, MAIL_FROM: 'ne-pas-repondre@service.test' });
    url = svc.url as string;
    primaryPid = (await svc.waitForLog((l) => l.msg === 'service démarré')).pid as number;
    db = openDatabase(database.databaseUrl);
  });
  after(async () => {
    await svc?.stop();
    await db?.destroy();
    await smtp?.close();
    await database?.cleanup();
  });

  it('runs the one-time work once, once the workers listen: the demo data imported once, one demo account, ready after', async () => {
    expect(svc.lines.filter((l) => l.startsWith('Compte de démonstration créé'))).to.have.length(1);
    const imports = svc.lines.filter((l) => l.startsWith('Données de démonstration'));
    expect(imports.length).to.be.greaterThan(5);
    // One import: the BOAMP notices' file is imported once (a second import would print it again).
    expect(imports.filter((l) => l.startsWith('Données de démonstration boamp'))).to.have.length(1);
    // The workers listened first (/readyz 503 meanwhile), then the work ran, then the account.
    const address = svc.lines.findIndex((l) => l.startsWith("Service à l'écoute"));
    expect(address).to.be.at.least(0);
    expect(svc.lines.findIndex((l) => l.startsWith('Données de démonstration'))).to.be.greaterThan(address);
    expect(svc.lines.findIndex((l) => l.startsWith('Compte de démonstration créé'))).to.be.greaterThan(svc.lines.map((l) => l.startsWith('Données de démonstration')).lastIndexOf(true));
    expect(svc.logs().filter((l) => l.msg === 'service prêt (/readyz)')).to.have.length(1);
    expect((await fetch(`${url}/readyz`)).status).to.equal(200);
    const started = svc.logs().find((l) => l.msg === 'service démarré');
    expect(started).to.include({ workers: 2 });
    // The background roles are the primary's: the workers run the API alone.
    expect(started?.roles).to.deep.equal(['robot', 'email', 'sweep']);
  });

  it('answers the calls of one port from both workers, never from the primary', async () => {
    const account = await accountOn(database.databaseUrl, url);
    // Simultaneous calls open several connections, handed to the workers in turn (a worker
    // slowed by the machine's load may miss a batch: a few batches at most).
    for (let batch = 0; batch < 10 && callPids([svc], 'me').size < 2; batch++) {
      const answers = await Promise.all(Array.from({ length: 20 }, () => restAt(url, 'me', account.token)));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(20).fill(200));
      await new Promise((r) => setTimeout(r, 100));
    }
    const pids = callPids([svc], 'me');
    expect(pids.size).to.equal(2);
    expect(pids.has(primaryPid)).to.equal(false);
  });

  it('keeps quotas exact across the workers: 50 simultaneous calls of a free account, REST and MCP, admit exactly 5; a negotiated 30 per minute exactly 30', async () => {
    const free = await accountOn(database.databaseUrl, url, { plan: 'free' });
    const targets = [
      () => restAt(url, 'referentiels.regions', free.token),
      () => toolCall(`${url}/api/mcp`, free.token, 'referentiel_regions'),
      () => toolCall(`${url}/api/mcp/assistant`, free.token, 'referentiel_regions'),
    ];
    expectExactly(await burst((i) => (targets[i % targets.length] as () => Promise<Answer>)()), 5);
    expect(await callLogCount(db, free.userId)).to.equal(5);
    const negotiated = await accountOn(database.databaseUrl, url, { plan: 'free', limits: { callsPerMinute: 30 } });
    expectExactly(await burst(() => restAt(url, 'referentiels.regions', negotiated.token)), 30);
    expect(await callLogCount(db, negotiated.userId)).to.equal(30);
  });

  it('applies a revocation on every worker at once: a token both accepted is refused by both after /oauth/revoke', async () => {
    const account = await accountOn(database.databaseUrl, url);
    const before = await Promise.all(Array.from({ length: 20 }, () => restAt(url, 'me', account.token)));
    expect(before.map((a) => a.status)).to.deep.equal(Array(20).fill(200));
    const meta = (await (await fetch(`${url}/.well-known/oauth-authorization-server`)).json()) as { revocation_endpoint: string };
    const revoked = await fetch(meta.revocation_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: account.token, client_id: account.clientId }).toString(),
    });
    expect(revoked.status).to.equal(200);
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? restAt(url, 'me', account.token) : toolCall(`${url}/api/mcp`, account.token, 'compte_statut'))));
    expect(after.map((a) => a.status)).to.deep.equal(Array(20).fill(401));
  });

  it('runs the robot once per machine, in the primary: one run of the slot, one log line', async () => {
    await svc.waitForLog((l) => l.msg === 'robot : créneau évalué');
    const runs = svc.logs().filter((l) => l.msg === 'robot : créneau évalué');
    expect(runs.map((l) => l.pid)).to.deep.equal([primaryPid]);
    expect(Number((await db('robot_runs').count<{ n: number }[]>('* as n'))[0]?.n)).to.equal(1);
  });

  it('delivers each e-mail once, whichever worker recorded it', async () => {
    const account = await accountOn(database.databaseUrl, url);
    const sent = await Promise.all(
      Array.from({ length: 10 }, (_, i) => restAt(url, 'emails.send', account.token, { destinataires: ['acheteur@mairie-exemple.fr'], sujet: `Question ${i}`, texte: 'Bonjour.', cle: `question-${i}` })),
    );
    for (const a of sent) expect(a.status, JSON.stringify(a.json)).to.equal(200);
    for (let waited = 0; smtp.received.length < 10 && waited < 60_000; waited += 200) await new Promise((r) => setTimeout(r, 200));
    // Three more ticks of the delivery worker: a second delivery would show now.
    await new Promise((r) => setTimeout(r, 6500));
    const subjects = smtp.received.map((m) => m.parsed.subject).sort();
    expect(subjects).to.deep.equal(Array.from({ length: 10 }, (_, i) => `Question ${i}`).sort());
  });

  it('serves /metrics only with its token, summed over both workers, without a user value in any label', async () => {
    expect((await fetch(`${url}/metrics`)).status).to.equal(401);
    expect((await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer autre-jeton' } })).status).to.equal(401);
    const account = await accountOn(database.databaseUrl, url);
    const read = async () => {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain/);
      return res.text();
    };
    const count = (text: string) => Number(/^batidata_calls_total\{address="rest",operation="referentiels\.naf",status="200"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    const before = count(await read());
    let made = 0;
    for (let batch = 0; batch < 10 && callPids([svc], 'referentiels.naf').size < 2; batch++) {
      const calls = await Promise.all(Array.from({ length: 12 }, () => restAt(url, 'referentiels.naf', account.token, {})));
      expect(calls.map((a) => a.status)).to.deep.equal(Array(12).fill(200));
      made += calls.length;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(callPids([svc], 'referentiels.naf').size, 'les deux processus ont répondu').to.equal(2);
    const text = await read();
    expect(count(text) - before).to.equal(made);
    expect(text).to.match(/^batidata_call_duration_seconds_bucket\{le="0\.005",address="rest",operation="referentiels\.naf"\} \d+$/m);
    expect(text).to.match(/^batidata_quota_refusals_total\{ceiling="minute"\} [1-9]\d*$/m);
    expect(text).to.match(/^batidata_db_pool_wait_seconds_count\{pool="operations"\} [1-9]\d*$/m);
    expect(text).to.match(/^batidata_robot_last_run_finished_timestamp_seconds \d/m);
    expect(text).to.match(/^batidata_robot_lag_seconds 0$/m);
    expect(text).to.match(/^batidata_email_queue_messages \d+$/m);
    expect(text).to.match(/^batidata_state_read_ok 1$/m);
    for (const secret of [account.token, account.email, account.userId, account.organisation]) expect(text).to.not.include(secret);
  });

  it('replaces the workers one by one on SIGHUP: every call admitted during the restart is answered', async () => {
    const account = await accountOn(database.databaseUrl, url);
    const before = callPids([svc]);
    let answered = 0;
    const statuses = new Map<number, number>();
    let connectionErrors = 0;
    let done = false;
    const loop = async () => {
      while (!done) {
        try {
          const a = await restAt(url, 'referentiels.regions', account.token);
          answered += 1;
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        } catch {
          // A keep-alive connection closed between two calls: that call was never read, so never admitted.
          connectionErrors += 1;
        }
      }
    };
    const loops = Array.from({ length: 4 }, loop);
    await new Promise((r) => setTimeout(r, 1000));
    svc.child.kill('SIGHUP');
    await svc.waitForLog((l) => l.msg === 'redémarrage progressif : terminé', 180_000);
    await new Promise((r) => setTimeout(r, 1000));
    done = true;
    await Promise.all(loops);
    expect([...statuses.keys()]).to.deep.equal([200]);
    // The call log is the admissions: each one has its answer.
    expect(await callLogCount(db, account.userId)).to.equal(answered);
    expect(answered).to.be.greaterThan(50);
    expect(connectionErrors, 'connexions coupées').to.be.at.most(answered / 10);
    if (process.env.CLUSTER_TEST_REPORT) console.log(`redémarrage progressif : ${answered} appels répondus, ${connectionErrors} connexions coupées avant lecture`);
    const after = callPids([svc]);
    const fresh = [...after].filter((pid) => !before.has(pid));
    expect(fresh.length, 'deux nouveaux processus ont répondu').to.be.at.least(2);
    expect((await restAt(url, 'me', account.token)).status).to.equal(200);
  });

  it('stops on SIGTERM: the workers finish, the primary exits 0', async () => {
    const exit = await svc.stop();
    expect(exit).to.deep.equal({ code: 0, signal: null });
    expect(svc.logs().some((l) => l.msg === 'service arrêté' && l.pid === primaryPid)).to.equal(true);
  });
});
