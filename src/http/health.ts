// GET /healthz: what a call needs of the database, checked for real: reading, and taking the
// write lock (every call writes its quota count). 200 when both work; 503 with the reason and
// a Retry-After otherwise. A failure is logged once at error level, its recovery at info.
// GET /readyz: the same, and 503 before that while the service still prepares itself (a first
// start's demo data): what a load balancer should wait for before sending traffic.
import type { Middleware } from 'koa';
import { isBusy } from '../platform/db/busy.js';
import { kindOf, type Database } from '../platform/db/database.js';
import { withSqlite } from '../platform/db/statements.js';
import { errorSummary, type Logger } from '../log.js';
import type { Readiness } from '../platform/readiness.js';

/** An answer within this delay, or the database is reported slow: a call would wait as long. */
const HEALTH_TIMEOUT_MS = 1000;

type Verdict = { ok: true } | { ok: false; database: 'verrouillée' | 'lente' | 'injoignable'; reason: string; err?: unknown };

/** Reading, then the write lock taken and given back at once (nothing written). */
async function probe(db: Database): Promise<void> {
  if (kindOf(db) === 'sqlite') {
    await withSqlite(db, (conn) => {
      conn.prepare('select 1').get();
      conn.prepare('begin immediate').run();
      conn.prepare('rollback').run();
    });
    return;
  }
  // txid_current() needs a transaction that may write: it fails on a read-only server.
  await db.raw('select txid_current()');
}

async function check(databases: readonly Database[]): Promise<Verdict> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Verdict>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, database: 'lente', reason: `pas de réponse en ${HEALTH_TIMEOUT_MS} ms` }), HEALTH_TIMEOUT_MS);
  });
  const answered = Promise.all(databases.map(probe)).then(
    (): Verdict => ({ ok: true }),
    (err: unknown): Verdict =>
      isBusy(err)
        ? { ok: false, database: 'verrouillée', reason: 'verrou d’écriture tenu par une autre connexion', err }
        : { ok: false, database: 'injoignable', reason: 'lecture ou écriture en échec', err },
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The health route (`health`) over the service's connections (operations', and
 * authentication's when apart; on PostgreSQL a connection of its own, so that calls waiting
 * on a table do not make the service look down), and the readiness route (`ready`): 503
 * `en_preparation` with the step under way while the service prepares itself, then the health
 * route's answer. `pools`: the service's other pools, which must still be open. One state for
 * both routes: a failure is logged once, whichever route saw it.
 */
export function healthRoutes(databases: readonly Database[], logger: Logger, readiness: Readiness, pools: readonly Database[] = []): { health: Middleware; ready: Middleware } {
  let failing: string | null = null;
  const health: Middleware = async (ctx) => {
    const closed = pools.some((db) => !db.client.pool);
    const verdict: Verdict = closed ? { ok: false, database: 'injoignable', reason: 'connexions du service fermées' } : await check(databases);
    if (verdict.ok) {
      if (failing) logger.info({ was: failing }, 'base de données : de nouveau disponible');
      failing = null;
      ctx.body = { status: 'ok', database: 'ok' };
      return;
    }
    if (failing !== verdict.database) {
      logger.error({ database: verdict.database, ...(verdict.err ? { err: errorSummary(verdict.err) } : {}) }, 'base de données : indisponible pour les appels');
    }
    failing = verdict.database;
    ctx.status = 503;
    ctx.set('Retry-After', verdict.database === 'verrouillée' ? '2' : '5');
    ctx.body = { status: 'indisponible', database: verdict.database, raison: verdict.reason };
  };
  const ready: Middleware = async (ctx, next) => {
    if (!readiness.ready) {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'en_preparation', etape: readiness.step, raison: 'le service se prépare (premier démarrage) : il recevra les appels ensuite' };
      return;
    }
    await health(ctx, next);
  };
  return { health, ready };
}
