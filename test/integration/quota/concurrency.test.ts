// Quotas are exact under concurrency: simultaneous calls of one account are admitted exactly up to the ceiling, on REST and MCP, on one service, two services and two OS processes sharing one database (SQLite or PostgreSQL).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { freshDatabase, startTestService, type TestDatabaseUrl, type TestService } from '../../helpers/service.js';
import { seedOneCompany } from '../cluster/processes.js';
import { accountInOwnOrganisation, burst, callLogCount, expectExactly, restAt, toolCall, type Answer } from './quota-helpers.js';

const BURST = 50;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('quotas under concurrency', function () {
  this.timeout(60000);

  describe('one service', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService();
    });
    after(async () => svc.close());

    it(`${BURST} simultaneous REST calls of a free account: exactly 5 are 200, 45 are 429`, async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      expectExactly(await burst(() => restAt(svc.url, 'referentiels.regions', token)), 5);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
    });

    it(`${BURST} simultaneous MCP tools/call (raw JSON-RPC) of a free account: exactly 5 results, 45 are -32004`, async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      expectExactly(await burst(() => toolCall(`${svc.url}/api/mcp`, token, 'referentiel_regions')), 5);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
    });

    it(`${BURST} simultaneous calls mixing REST, /api/mcp and /api/mcp/assistant: exactly 5 admitted`, async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      const targets = [
        () => restAt(svc.url, 'referentiels.sources', token),
        () => toolCall(`${svc.url}/api/mcp`, token, 'referentiel_sources'),
        () => toolCall(`${svc.url}/api/mcp/assistant`, token, 'referentiel_sources'),
      ];
      expectExactly(await burst((i) => (targets[i % targets.length] as () => Promise<Answer>)()), 5);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
    });

    it('two free accounts bursting at once each get exactly their own 5', async () => {
      const [a, b] = await Promise.all([accountInOwnOrganisation(svc), accountInOwnOrganisation(svc)]);
      const answers = await burst((i) => restAt(svc.url, 'referentiels.regions', i % 2 ? a.token : b.token));
      expectExactly(answers.filter((_, i) => i % 2), 5);
      expectExactly(answers.filter((_, i) => !(i % 2)), 5);
      expect(await callLogCount(svc.db, a.account.userId)).to.equal(5);
      expect(await callLogCount(svc.db, b.account.userId)).to.equal(5);
    });

    it('a negotiated 30 per minute admits exactly 30 of 50; a daily ceiling of 7 admits exactly 7 of 50', async () => {
      const perMinute = await accountInOwnOrganisation(svc, { limits: { callsPerMinute: 30 } });
      const perDay = await accountInOwnOrganisation(svc, { limits: { callsPerMinute: 100, callsPerDay: 7 } });
      expectExactly(await burst(() => restAt(svc.url, 'referentiels.regions', perMinute.token)), 30);
      const daily = await burst((i) => (i % 2 ? restAt(svc.url, 'referentiels.regions', perDay.token) : toolCall(`${svc.url}/api/mcp`, perDay.token, 'referentiel_regions')));
      expectExactly(daily, 7);
      const refusal = daily.find((a) => a.status === 429) as Answer;
      expect(refusal.json.error.message).to.match(/Quota journalier atteint/);
    });
  });

  describe('two services on one database, behind one public address', () => {
    let database: TestDatabaseUrl;
    let first: TestService;
    let second: TestService;
    let secondUrl: string;
    before(async () => {
      database = freshDatabase();
      await database.prepare();
      first = await startTestService({ database });
      second = await startTestService({ database, config: { publicUrl: first.url } });
      secondUrl = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await Promise.all([first?.stop(), second?.stop()]);
      await database.cleanup();
    });

    it('the second service accepts the first one’s tokens (sanity)', async () => {
      expect(secondUrl).to.not.equal(first.url);
      const { token } = await accountInOwnOrganisation(first);
      expect((await restAt(secondUrl, 'me', token)).status).to.equal(200);
    });

    it(`${BURST} simultaneous REST calls split between the two: exactly 5 admitted in total`, async () => {
      const { account, token } = await accountInOwnOrganisation(first);
      expectExactly(await burst((i) => restAt(i % 2 ? secondUrl : first.url, 'referentiels.regions', token)), 5);
      expect(await callLogCount(first.db, account.userId)).to.equal(5);
    });

    it(`${BURST} simultaneous MCP tools/call split between the two: exactly 5 admitted in total`, async () => {
      const { account, token } = await accountInOwnOrganisation(first);
      expectExactly(await burst((i) => toolCall(`${i % 2 ? secondUrl : first.url}/api/mcp`, token, 'referentiel_regions')), 5);
      expect(await callLogCount(first.db, account.userId)).to.equal(5);
    });

    it(`${BURST} simultaneous calls, REST and MCP, over both services: exactly 5 admitted in total`, async () => {
      const { account, token } = await accountInOwnOrganisation(first);
      const answers = await burst((i) => {
        const base = i % 2 ? secondUrl : first.url;
        return i % 4 < 2 ? restAt(base, 'referentiels.sources', token) : toolCall(`${base}/api/mcp/assistant`, token, 'referentiel_sources');
      });
      expectExactly(answers, 5);
      expect(await callLogCount(first.db, account.userId)).to.equal(5);
    });
  });

  describe('two OS processes on one database', () => {
    let database: TestDatabaseUrl;
    let svc: TestService;
    let child: ChildProcess | undefined;
    let childUrl: string;

    before(async () => {
      database = freshDatabase();
      await database.prepare();
      svc = await startTestService({ database });
      // The child's start imports the demo data into an empty database before it serves: one company skips that.
      await seedOneCompany(svc.db);
      // PUBLIC_URL makes the child print the public address, not its own: give it a known port.
      const port = await freePort();
      const spawned = spawn(process.execPath, ['--import=tsx', 'scripts/start.ts'], {
        // Two API workers behind the child's port: admissions are exact across three processes.
        env: { ...process.env, PORT: String(port), DATABASE_URL: database.databaseUrl, PUBLIC_URL: svc.url, LOG_LEVEL: 'silent', WORKERS: '2' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child = spawned;
      await new Promise<void>((resolve, reject) => {
        let out = '';
        spawned.stdout?.on('data', (chunk) => {
          out += chunk;
          if (/Service à l'écoute : \S+/.test(out)) resolve();
        });
        spawned.once('exit', (code) => reject(new Error(`le second processus s'est arrêté (${code}) : ${out}`)));
      });
      childUrl = `http://127.0.0.1:${port}`;
    });
    after(async () => {
      const running = child;
      if (running && running.exitCode === null) {
        const exited = new Promise((resolve) => running.once('exit', resolve));
        running.kill('SIGTERM');
        const stuck = setTimeout(() => running.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(stuck);
      }
      await svc?.stop();
      await database.cleanup();
    });

    it(`${BURST} simultaneous calls split between the in-process service and a child process: exactly 5 admitted in total`, async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      // The default account (limits out of reach) checks that the child accepts the first one's tokens.
      expect((await restAt(childUrl, 'me', svc.token)).status, 'le jeton du premier vaut chez le second').to.equal(200);
      const answers = await burst((i) => {
        const base = i % 2 ? childUrl : svc.url;
        return i % 4 < 2 ? restAt(base, 'referentiels.regions', token) : toolCall(`${base}/api/mcp`, token, 'referentiel_regions');
      });
      expectExactly(answers, 5);
      expect(answers.filter((a, i) => i % 2 && (a.status === 429 || a.json?.error?.code === -32004)).length, 'le processus fils refuse aussi').to.be.above(0);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
    });
  });
});
