// Rule: a PostgreSQL that freezes, stops, or locks a table never takes the service down: calls answer 504/503 with Retry-After in bounded time (authentication included), health says so, what needs no database keeps working, authentication, quotas and health have connections of their own, calls on a locked table hold only their operation's share and give their connection back at the lock limit, and all recovers without restart.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { freshDatabase, startTestService, usingPostgres, type TestDatabaseUrl, type TestService } from '../../helpers/service.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Polls until `ok` holds, at most `withinMs`: how long the service takes to recover. */
async function recovers(ok: () => Promise<boolean>, withinMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < withinMs) {
    if (await ok().catch(() => false)) return Date.now() - started;
    await pause(100);
  }
  throw new Error(`pas rétabli en ${withinMs} ms`);
}

(usingPostgres ? describe : describe.skip)('faults: PostgreSQL frozen, stopped, a table locked', function () {
  this.timeout(90_000);
  let proxy: TcpProxy;
  let direct: TestDatabaseUrl;
  let svc: TestService;
  const LIMIT_MS = 3000;

  before(async () => {
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    direct = freshDatabase();
    await direct.prepare();
    const proxied = new URL(direct.databaseUrl);
    proxied.port = String(proxy.port);
    svc = await startTestService({
      database: { ...direct, databaseUrl: proxied.toString() },
      limits: { operationTimeoutMs: LIMIT_MS },
    });
  });
  after(async () => {
    proxy.restore();
    await svc?.close();
    await proxy.close();
    await direct.cleanup();
  });

  const health = async () => (await fetch(`${svc.url}/healthz`)).status;
  const timed = async <T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> => {
    const started = Date.now();
    const value = await run();
    return { value, ms: Date.now() - started };
  };

  it('frozen: documents at once, REST 504 and MCP -32603 within the call limit, health 503 « lente »; recovery without restart', async () => {
    expect((await svc.rest('referentiels.sources', {})).status).to.equal(200);
    proxy.freeze();
    try {
      const doc = await timed(() => fetch(`${svc.url}/openapi.json`));
      expect(doc.value.status).to.equal(200);
      const rest = await timed(() => svc.rest('referentiels.sources', {}));
      expect(rest.value.status).to.equal(504);
      expect(rest.value.json.error.code).to.equal('timeout');
      expect(rest.ms).to.be.lessThan(LIMIT_MS + 1500);
      const mcp = await timed(async () =>
        (await fetch(`${svc.url}/api/mcp`, {
          method: 'POST',
          headers: { ...MCP_HEADERS, authorization: `Bearer ${svc.token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'referentiel_regions', arguments: {} } }),
        }).then((r) => r.json())) as { error?: { code: number } },
      );
      expect(mcp.value.error?.code).to.equal(-32603);
      expect(mcp.ms).to.be.lessThan(LIMIT_MS + 1500);
      const checked = await timed(() => fetch(`${svc.url}/healthz`));
      expect(checked.value.status).to.equal(503);
      expect(await checked.value.json()).to.include({ database: 'lente' });
      console.log(`      (gelée : document ${doc.ms} ms, REST 504 en ${rest.ms} ms, MCP en ${mcp.ms} ms, santé en ${checked.ms} ms)`);
    } finally {
      proxy.restore();
    }
    const ms = await recovers(async () => (await health()) === 200 && (await svc.rest('referentiels.sources', {})).status === 200, 5000);
    console.log(`      (rétablie en ${ms} ms)`);
  });

  it('stopped: REST 503 with Retry-After, health 503 « injoignable »; recovery without restart', async () => {
    proxy.cut();
    try {
      const rest = await timed(() => svc.rest('referentiels.sources', {}));
      expect(rest.value.status).to.be.oneOf([503, 504]);
      expect(rest.value.headers.get('retry-after')).to.match(/^\d+$/);
      expect(rest.ms).to.be.lessThan(LIMIT_MS + 1500);
      const checked = await fetch(`${svc.url}/healthz`);
      expect(checked.status).to.equal(503);
      expect(await checked.json()).to.include({ database: 'injoignable' });
      console.log(`      (arrêtée : REST ${rest.value.status} en ${rest.ms} ms)`);
    } finally {
      proxy.restore();
    }
    const ms = await recovers(async () => (await health()) === 200 && (await svc.rest('referentiels.sources', {})).status === 200, 5000);
    console.log(`      (rétablie en ${ms} ms)`);
  });

  it('a table locked: calls on it answer 503/504, health, authentication and calls on other tables keep answering at once (their own connections and shares), then all recovers', async () => {
    const locker: Database = openDatabase(direct.databaseUrl, { searchPath: direct.searchPath });
    const trx = await locker.transaction();
    try {
      await trx.raw('lock table notices in access exclusive mode');
      // More calls on the locked table than the operations have connections.
      const stuck = Array.from({ length: 15 }, () => svc.rest('marches.search', { query: 'toiture' }));
      await pause(300);
      const checked = await timed(() => fetch(`${svc.url}/healthz`));
      expect(checked.value.status).to.equal(200);
      const me = await timed(() => svc.rest('me', {}));
      expect(me.value.status).to.equal(200);
      // Other tables, several calls at once: the locked table's calls hold only their operation's share.
      const others = await timed(() => Promise.all([svc.rest('entreprises.search', { query: 'toiture' }), svc.rest('attributions.search', { query: 'toiture' }), svc.rest('bodacc.search', { query: 'toiture' })]));
      expect(others.value.map((r) => r.status)).to.deep.equal([200, 200, 200]);
      const answers = await Promise.all(stuck);
      // 503 with Retry-After (the lock or the share waited for too long), or 504 at the call's limit.
      for (const a of answers) {
        expect(a.status, JSON.stringify(a.json)).to.be.oneOf([503, 504]);
        if (a.status === 503) expect(a.headers.get('retry-after')).to.match(/^\d+$/);
        else expect(a.json.error.code).to.equal('timeout');
      }
      console.log(`      (table verrouillée : santé en ${checked.ms} ms, me en ${me.ms} ms, autres tables en ${others.ms} ms ; appels bloqués : ${answers.map((a) => a.status).join(' ')})`);
    } finally {
      await trx.rollback();
      await locker.destroy();
    }
    await recovers(async () => (await svc.rest('marches.search', { query: 'toiture' })).status === 200, 5000);
  });

  it('a lock held past the lock limit: the call answers 503 with Retry-After and gives its connection back, long before the call limit', async () => {
    const slow = await startTestService({ database: direct, limits: { operationTimeoutMs: 20_000 } });
    const locker: Database = openDatabase(direct.databaseUrl, { searchPath: direct.searchPath });
    const trx = await locker.transaction();
    try {
      await trx.raw('lock table notices in access exclusive mode');
      // A question no process asked before, so computed on the locked table: a page another
      // process computed would be read from the cache the processes share.
      const stuck = await timed(() => slow.rest('marches.search', { query: 'charpente couverture' }));
      expect(stuck.value.status).to.equal(503);
      expect(stuck.value.headers.get('retry-after')).to.match(/^\d+$/);
      expect(stuck.value.json.error.message).to.match(/verrouillées/);
      expect(stuck.ms).to.be.lessThan(10_000);
    } finally {
      await trx.rollback();
      await locker.destroy();
      await slow.close();
    }
  });
});
