// Operations basics: health check, readiness (503 while the first start prepares its demo data, then 200), one log line per call that never holds a token or a body, the first start's demo data and account, and a graceful stop that finishes calls in flight.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { obtainToken } from '../../../scripts/lib/native-flow.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile } from '../../../src/import/run.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { openDatabase } from '../../../src/platform/db/database.js';
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

  it('answers /readyz 200 once ready, with the health check’s answer', async () => {
    const res = await fetch(`${svc.url}/readyz`);
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

describe('readiness', () => {
  it('answers /readyz 503 with the step under way while the service prepares, /healthz 200 meanwhile, then /readyz 200', async () => {
    const svc = await startTestService({ preparing: 'données de démonstration' });
    try {
      const early = await fetch(`${svc.url}/readyz`);
      expect(early.status).to.equal(503);
      expect(early.headers.get('retry-after')).to.equal('5');
      expect(await early.json()).to.include({ status: 'en_preparation', etape: 'données de démonstration' });
      expect((await fetch(`${svc.url}/healthz`)).status).to.equal(200);
      svc.readiness.done();
      const ready = await fetch(`${svc.url}/readyz`);
      expect(ready.status).to.equal(200);
    } finally {
      await svc.close();
    }
  });
});

interface EarlyProbe {
  ready: number;
  readyBody: unknown;
  health: number;
}

/**
 * `npm start`'s script in a child process, resolved once it prints its address and the demo
 * account it creates; with the output, and /readyz and /healthz as they answered when the
 * start announced the demo import (`early`, when it did).
 */
async function startServiceProcess(databaseUrl: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string; email: string; password: string; out: () => string; early: Promise<EarlyProbe> | null }> {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/start.ts'], {
    env: { ...process.env, PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
  child.stderr.resume();
  try {
    let early: Promise<EarlyProbe> | null = null;
    let out = '';
    const printed = await new Promise<{ url: string; email: string; password: string }>((resolve, reject) => {
      child.stdout.on('data', (c) => {
        out += c;
        const address = /Service à l'écoute : (\S+)/.exec(out);
        if (address?.[1] && !early && out.includes('Premier démarrage : import des données de démonstration')) {
          const base = address[1];
          early = (async () => {
            const ready = await fetch(`${base}/readyz`);
            const health = await fetch(`${base}/healthz`);
            return { ready: ready.status, readyBody: await ready.json(), health: health.status };
          })();
        }
        const demo = /Compte de démonstration créé : (\S+) \/ (\S+)/.exec(out);
        if (address?.[1] && demo?.[1] && demo[2]) resolve({ url: address[1], email: demo[1], password: demo[2] });
      });
      child.once('exit', () => reject(new Error(`sortie avant écoute : ${out}`)));
    });
    return { child, ...printed, out: () => out, early };
  } catch (err) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw err;
  }
}

describe('first start', function () {
  // The small demo set is written and imported by the real importers, then the API workers
  // start (WORKERS: the cores): tens of seconds on a loaded 2-core machine.
  this.timeout(240000);

  it('on an empty database imports the demo data and creates the demo account; says so, /readyz 503 until then while /healthz answers 200', async () => {
    const database = freshDatabase();
    await database.prepare();
    const { child, url, email, password, out, early } = await startServiceProcess(database.databaseUrl);
    try {
      expect(out()).to.include(`${url}/healthz répond déjà 200 ; ${url}/readyz répond 503 jusqu'à la fin de l'import`);
      expect(early, 'the start announces the demo import').to.not.equal(null);
      const probe = await (early as unknown as Promise<EarlyProbe>);
      expect(probe).to.deep.include({ ready: 503, health: 200 });
      expect(probe.readyBody).to.include({ status: 'en_preparation', etape: 'données de démonstration' });
      expect((await fetch(`${url}/readyz`)).status).to.equal(200);
      const { accessToken } = await obtainToken({ baseUrl: url, email, password, scope: 'mcp:read' });
      const res = await fetch(`${url}/api/mcp/v1/entreprises.search`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` }, body: '{"limit":1}' });
      expect(res.status).to.equal(200);
      expect(((await res.json()) as { total_estimated: number }).total_estimated).to.be.greaterThan(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
      await database.cleanup();
    }
  });
});

describe('graceful shutdown', function () {
  // The primary and its workers (WORKERS: the cores) start in turn.
  this.timeout(90000);

  it('on SIGTERM finishes the call in flight, then exits 0', async () => {
    const database = freshDatabase();
    await database.prepare();
    // One company already there: the start skips the demo import (tested above) and still creates the demo account.
    const seeded = openDatabase(database.databaseUrl);
    try {
      await migrateLatest(seeded);
      const dir = mkdtempSync(join(tmpdir(), 'shutdown-'));
      writeFileSync(join(dir, 'ul.csv'), 'siren,dateCreationUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,denominationUniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale\n732829320,2015-03-02,2026-01-10,A,Charpentes du Léon,5499,43.91B,00018\n');
      await importFile(seeded, IMPORTERS['sirene-unites'] as never, join(dir, 'ul.csv'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
      rmSync(dir, { recursive: true, force: true });
    } finally {
      await seeded.destroy();
    }
    const { child, url, email, password } = await startServiceProcess(database.databaseUrl);
    try {
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
