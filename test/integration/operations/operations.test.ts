// Operations basics: health check, one log line per call that never holds a token or a body, and a graceful stop that finishes calls in flight.
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { expect } from 'chai';
import { obtainToken } from '../../../scripts/lib/native-flow.js';
import { collectingLogger, freshDatabase, startTestService, type TestService } from '../../helpers/service.js';

describe('health and logs', () => {
  let svc: TestService;
  let lines: Record<string, unknown>[] = [];
  before(async () => {
    const collected = collectingLogger();
    lines = collected.lines;
    svc = await startTestService({ logger: collected.logger });
  });
  after(async () => svc.close());

  it('answers /healthz 200 while the database answers', async () => {
    const res = await fetch(`${svc.url}/healthz`);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({ status: 'ok', database: 'ok' });
  });

  it('logs one line per call with operation, address, status, duration and account, never the token or the body', async () => {
    lines.length = 0;
    await svc.rest('aide.outil', { nom: 'motdepasse-secret' });
    await new Promise((r) => setTimeout(r, 20));
    const calls = lines.filter((l) => l.msg === 'appel');
    expect(calls).to.have.length(1);
    expect(calls[0]).to.include({ address: 'rest', operation: 'aide.outil', status: 404, account_id: svc.account.userId });
    expect(calls[0]?.duration_ms).to.be.a('number');
    const all = JSON.stringify(lines);
    expect(all).to.not.include(svc.token);
    expect(all).to.not.include('motdepasse-secret');
  });
});

describe('graceful shutdown', function () {
  this.timeout(30000);

  it('on SIGTERM finishes the call in flight, then exits 0', async () => {
    const database = freshDatabase();
    await database.prepare();
    const child = spawn(process.execPath, ['--import=tsx', 'scripts/start.ts'], {
      env: { ...process.env, PORT: '0', DATABASE_URL: database.databaseUrl, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      // First start on an empty database: the service prints its address and a demo account.
      const { url, email, password } = await new Promise<{ url: string; email: string; password: string }>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c) => {
          out += c;
          const address = /Service à l'écoute : (\S+)/.exec(out);
          const demo = /Compte de démonstration créé : (\S+) \/ (\S+)/.exec(out);
          if (address?.[1] && demo?.[1] && demo[2]) resolve({ url: address[1], email: demo[1], password: demo[2] });
        });
        child.once('exit', () => reject(new Error(`sortie avant écoute : ${out}`)));
      });
      const { accessToken } = await obtainToken({ baseUrl: url, email, password, scope: 'mcp:read' });
      const body = '{}';
      // A call whose body is still arriving when the signal comes.
      const answer = new Promise<number>((resolve, reject) => {
        const headers = { 'content-type': 'application/json', 'content-length': body.length, authorization: `Bearer ${accessToken}` };
        const req = request(`${url}/api/mcp/v1/referentiels.sources`, { method: 'POST', headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.write(body.slice(0, 1));
        setTimeout(() => {
          child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(1)), 300);
        }, 100);
      });
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      expect(await answer).to.equal(200);
      expect(await exit).to.equal(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await database.cleanup();
    }
  });
});
