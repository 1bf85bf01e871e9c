// Starts and stops the service: migrations, HTTP listener, the background roles (robot,
// synchronisation, e-mail delivery, sweeps), graceful shutdown on a signal. One process runs
// them all (WORKERS=1); past one worker, cluster.ts shares them out.
import { createServer, type ServerResponse, type Server } from 'node:http';
import { SHARED_ENTRY_KEPT_MS, searchCacheStats, sweepSharedSearchCache } from './platform/search/search-cache.js';
import type { AddressInfo } from 'node:net';
import { createApp, type AppDeps } from './app.js';
import type { Config, ServiceRole } from './config.js';
import { startCheckpointer, type Checkpointer } from './platform/db/checkpointer.js';
import { SERVICE_BUSY_TIMEOUT_MS, SERVICE_LOCK_BUDGET_MS, retryWhileBusy } from './platform/db/busy.js';
import { kindOf, openDatabase, sqliteFileOf, type Database } from './platform/db/database.js';
import { migrateLatest } from './migrations/index.js';
import { restoreDeferredIndexes } from './platform/db/deferred-indexes.js';
import { createLogger, errorSummary, type Logger } from './log.js';
import { startPeriodicTask, type PeriodicTask } from './platform/periodic-task.js';
import { purgeExpiredAuthRows } from './auth/store/expired-rows.js';
import { deleteDueOrganisations } from './domains/account/erasure.js';
import { openObjectStore, type ObjectStore } from './platform/files/object-store.js';
import { startRobotScheduler, type RobotScheduler } from './domains/robot/scheduler.js';
import { startDeliveryWorker, type DeliveryWorker } from './domains/emails/delivery.js';
import { CONNECTORS } from './domains/connectors.js';
import { startSyncScheduler, type SyncScheduler } from './sync/scheduler.js';
import { ProcessMetrics } from './platform/metrics.js';
import { createReadiness, type Readiness } from './platform/readiness.js';
import { recordServiceAddress } from './platform/db/service-address.js';

/**
 * The service's connections to its database. SQLite: a lock of another connection stalls
 * the event loop SERVICE_BUSY_TIMEOUT_MS at most at a time. PostgreSQL: operations have 16
 * connections (10 at most for one operation: app.ts), wait 3 s at most for one, a
 * statement 30 s at most (below the 35 s limit of a call, so a call times out cleanly with
 * its connection given back), and a lock 3 s at most (a call on a locked table answers 503
 * and gives its connection back instead of holding it until the call's limit).
 */
function serviceDatabase(operationTimeoutMs: number) {
  return { busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, lockBudgetMs: SERVICE_LOCK_BUDGET_MS, poolSize: 16, acquireTimeoutMs: 3000, statementTimeoutMs: Math.max(1000, operationTimeoutMs - 5000), lockTimeoutMs: 3000 };
}
/** A process of background work alone (a cluster's primary, SERVICE_ROLES without api): a few connections. */
export function backgroundDatabase(operationTimeoutMs: number) {
  return { ...serviceDatabase(operationTimeoutMs), poolSize: 4 };
}
/** Authentication and quota admission on PostgreSQL: short statements (two a call), connections of their own. */
const CONTROL_DATABASE = { poolSize: 4, acquireTimeoutMs: 3000, statementTimeoutMs: 10_000, lockTimeoutMs: 3000 };
/** /healthz on PostgreSQL: one connection of its own, its answer within the health check's second. */
const HEALTH_DATABASE = { poolSize: 1, acquireTimeoutMs: 1000, statementTimeoutMs: 1000, lockTimeoutMs: 1000 };

export interface RunningService {
  server: Server;
  db: Database;
  /** Where the consultation files' pieces are kept (the demo data's import writes there too). */
  dceStore: ObjectStore;
  logger: Logger;
  url: string;
  /** The e-mail delivery worker, when an SMTP server is configured (tests drive its ticks). */
  mailer: DeliveryWorker | null;
  /** The synchronisation with the publishers, when `SYNC=on`. */
  sync: SyncScheduler | null;
  /** Whether the service is ready for traffic (/readyz): not before `readiness.done()` when started `preparing`. */
  readiness: Readiness;
  stop: () => Promise<void>;
}

/** How often expired sign-in and OAuth rows are swept. */
const EXPIRED_ROWS_SWEEP_MS = 60 * 60 * 1000;
/** PostgreSQL: how often the shared search cache's old entries are deleted (a few minutes' worth of computed pages at most). */
const SEARCH_CACHE_SWEEP_MS = 5 * 60 * 1000;

export interface StartOptions {
  searchPath?: string;
  logger?: Logger;
  wrapRegistry?: AppDeps['wrapRegistry'];
  /** This process' metrics; `readMetrics`: what /metrics serves of them (a cluster worker: the machine's). */
  metrics?: ProcessMetrics;
  readMetrics?: () => Promise<string>;
  /** false: the migrations already ran (a cluster's primary ran them before forking). */
  migrate?: boolean;
  /**
   * On stop, how long idle keep-alive connections stay open before they are closed: a client
   * that sends its next call on one meanwhile is answered (with Connection: close) rather
   * than cut (a cluster worker's rolling restart). 0 by default: closed at once.
   */
  drainGraceMs?: number;
  /** A step still to do after the start (a first start's demo data): /readyz answers 503 until `readiness.done()`. */
  preparing?: string;
}

/** The background roles of a process: each runs when its role is in SERVICE_ROLES and its own setting allows it. */
export interface BackgroundWork {
  robot: RobotScheduler | null;
  mailer: DeliveryWorker | null;
  sync: SyncScheduler | null;
  sweep: PeriodicTask | null;
  /** PostgreSQL: the sweep of the shared search cache's old entries (role `sweep`). */
  searchCacheSweep: PeriodicTask | null;
  /** The roles actually running (for the start's log line). */
  running: string[];
  stop: () => Promise<void>;
}

export function startBackground(
  config: Config,
  deps: { db: Database; control: Database; url: string; logger: Logger; dceStore: ObjectStore; searchPath?: string; metrics?: ProcessMetrics },
): BackgroundWork {
  const { db, control, url, logger } = deps;
  const has = (role: ServiceRole) => config.roles.includes(role);
  // The alert robot: a connection of its own, so that its reads never queue the calls behind
  // them on the service's single SQLite connection; it waits for locks off the loop as the service does.
  const robotDb = has('robot') && config.robot ? openDatabase(config.databaseUrl, { searchPath: deps.searchPath, busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, poolSize: 2 }) : null;
  if (robotDb) deps.metrics?.watchPool('robot', robotDb);
  const robot: RobotScheduler | null = robotDb ? startRobotScheduler({ db: robotDb, publicUrl: url, now: () => new Date() }, logger) : null;
  // E-mail delivery: only with an SMTP server (without one, sends stay in the outbox). Its
  // queries are short: the service's connection serves them.
  const mailer: DeliveryWorker | null =
    has('email') && config.smtpUrl ? startDeliveryWorker({ db, smtpUrl: config.smtpUrl, store: deps.dceStore, timing: config.mailTiming, now: () => new Date(), logger }) : null;
  // The synchronisation: a connection of its own (its page writes never queue the calls), as the robot's.
  const syncDb = has('sync') && config.sync.enabled ? openDatabase(config.databaseUrl, { searchPath: deps.searchPath, busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, poolSize: 2 }) : null;
  if (syncDb) deps.metrics?.watchPool('sync', syncDb);
  const sync: SyncScheduler | null = syncDb ? startSyncScheduler({ db: syncDb, connectors: CONNECTORS, plan: config.sync, logger, deps: { leaseMs: config.sync.leaseMs, timing: config.sync.timing } }) : null;
  // Expired sign-in and OAuth rows: every hour, the first a minute after the start (its own work done).
  const sweep: PeriodicTask | null =
    has('sweep') && config.expiredRowsSweep
      ? startPeriodicTask({
          firstAfterMs: 60_000,
          everyMs: EXPIRED_ROWS_SWEEP_MS,
          run: async () => {
            const purged = await retryWhileBusy(() => purgeExpiredAuthRows(control, new Date()), 60_000);
            if (Object.values(purged).some((n) => n > 0)) logger.info({ purged }, 'lignes expirées purgées');
            // Organisations whose last member left more than the grace period ago, with their workspace.
            const organisations = await retryWhileBusy(() => deleteDueOrganisations(db, new Date()), 60_000);
            if (organisations) logger.info({ organisations }, 'organisations sans membre supprimées');
          },
          onFailure: (err) => logger.error({ err: errorSummary(err) }, 'purge des lignes expirées : reprise à la prochaine heure'),
        })
      : null;
  // PostgreSQL: the search pages the processes share, kept SHARED_ENTRY_KEPT_MS (search-cache.ts).
  const searchCacheSweep: PeriodicTask | null =
    has('sweep') && kindOf(db) === 'postgres'
      ? startPeriodicTask({
          firstAfterMs: 60_000,
          everyMs: SEARCH_CACHE_SWEEP_MS,
          run: async () => {
            await sweepSharedSearchCache(db, new Date(Date.now() - SHARED_ENTRY_KEPT_MS));
          },
          onFailure: (err) => logger.error({ err: errorSummary(err) }, 'purge du cache partagé des recherches : reprise au prochain passage'),
        })
      : null;
  const running = [robot && 'robot', sync && 'sync', mailer && 'email', (sweep || searchCacheSweep) && 'sweep'].filter((r): r is string => !!r);
  return {
    robot,
    mailer,
    sync,
    sweep,
    searchCacheSweep,
    running,
    stop: async () => {
      await sweep?.stop();
      await searchCacheSweep?.stop();
      await robot?.stop();
      await mailer?.stop();
      await sync?.stop();
      await syncDb?.destroy();
      await robotDb?.destroy();
    },
  };
}

/** The API in this process (and the background roles its configuration gives it). */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const readiness = createReadiness(options.preparing ?? null);
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = openDatabase(config.databaseUrl, { searchPath: options.searchPath, ...serviceDatabase(config.limits.operationTimeoutMs), readThreads: config.sqliteReadThreads, parallelWorkers: config.pgParallelWorkers });
  if (options.searchPath) await db.raw('create schema if not exists ??', [options.searchPath]);
  // Another process may hold the lock a while (an import): the migrations wait for it, off the loop.
  if (options.migrate !== false) {
    await retryWhileBusy(() => migrateLatest(db), 60_000);
    // PostgreSQL: an index a stopped first load left missing (deferIndexes) is built before the service answers.
    await restoreDeferredIndexes(db);
  }
  // Bulkhead: on PostgreSQL, tokens, accounts and quota admissions have connections of their
  // own, so that operations waiting on a slow or locked table never starve them.
  const control = kindOf(db) === 'postgres' ? openDatabase(config.databaseUrl, { searchPath: options.searchPath, ...CONTROL_DATABASE }) : db;
  const health = kindOf(db) === 'postgres' ? openDatabase(config.databaseUrl, { searchPath: options.searchPath, ...HEALTH_DATABASE }) : undefined;
  // SQLite file: WAL checkpoints in a thread of their own, never inside a call's commit.
  const sqliteFile = sqliteFileOf(db);
  const checkpointer: Checkpointer | null =
    sqliteFile
      ? await startCheckpointer(db, sqliteFile, { onFailure: (message) => logger.error({ err: message }, 'points de contrôle du journal WAL : repris par la connexion du service') })
      : null;
  // Listen first: with PORT=0 the real port is part of the issuer and of every link.
  // Slow clients: headers must arrive in 10 s (limits.headersTimeoutMs), then the body in the
  // body limit, on every route (OAuth's and the pages' too, read by oidc-provider and the
  // forms); Node checks every second rather than every 30 s (a dribbled request used to be
  // held 324 s).
  const unknownSources = (config.sync.sources ?? []).filter((name) => !CONNECTORS.some((c) => c.name === name));
  if (unknownSources.length) throw new Error(`SYNC_SOURCES : source inconnue ${unknownSources.join(', ')} (sources : ${CONNECTORS.map((c) => c.name).join(', ')})`);
  const { headersTimeoutMs, bodyTimeoutMs } = config.limits;
  const server = createServer({ headersTimeout: headersTimeoutMs, requestTimeout: headersTimeoutMs + bodyTimeoutMs, connectionsCheckingInterval: 1000 });
  server.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  const url = config.publicUrl.replace(/:0$/, `:${port}`);
  // For the commands of another terminal, which may not have this process's PORT or PUBLIC_URL.
  await retryWhileBusy(() => recordServiceAddress(db, url), 60_000);
  const metrics = options.metrics ?? new ProcessMetrics({ node: !!config.metricsToken });
  const app = await createApp({ config: { ...config, publicUrl: url }, db, control, health, logger, wrapRegistry: options.wrapRegistry, metrics, readMetrics: options.readMetrics, readiness });
  // While stopping, every answer says Connection: close, so that no client sends another
  // request on a connection about to close (a rolling restart loses no call that way).
  let draining = false;
  const inFlight = new Set<ServerResponse>();
  server.on('request', (_req, res: ServerResponse) => {
    if (draining) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  server.on('request', app.callback());
  const dceStore = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  const background = startBackground(config, { db, control, url, logger, dceStore, searchPath: options.searchPath, metrics });
  let stopping: Promise<void> | null = null;
  const stop = () => {
    // Connections that finish their call become idle and are closed at once, rather than
    // after the keep-alive delay.
    draining = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    stopping ??= new Promise<void>((resolve) => {
      let sweep: NodeJS.Timeout | undefined;
      server.close(() => {
        clearInterval(sweep);
        clearTimeout(grace);
        resolve();
      });
      const closeIdle = () => {
        sweep = setInterval(() => server.closeIdleConnections(), 50);
        server.closeIdleConnections();
      };
      const grace = options.drainGraceMs ? setTimeout(closeIdle, options.drainGraceMs) : undefined;
      if (!grace) closeIdle();
    })
      .then(() => background.stop())
      .then(() => checkpointer?.stop())
      .then(() => (control === db ? undefined : control.destroy()))
      .then(() => health?.destroy())
      .then(() => db.destroy());
    return stopping;
  };
  return { server, db, dceStore, logger, url, mailer: background.mailer, sync: background.sync, readiness, stop };
}

/**
 * The migrations at a start: another process may hold SQLite's lock a while (an import), or
 * Knex's migration lock (another machine starting at the same time): both are waited out.
 * Then, on PostgreSQL, an index a stopped first load left missing (deferIndexes) is built
 * before any process serves.
 */
export async function migrateAtStart(db: Database): Promise<void> {
  for (let waited = 0; ; waited += 500) {
    try {
      await retryWhileBusy(() => migrateLatest(db), 60_000);
      await restoreDeferredIndexes(db);
      return;
    } catch (err) {
      if ((err as Error).name !== 'MigrationLocked' || waited >= 120_000) throw err;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/**
 * The start's one-time work (npm start: the demo data on first start), given the migrated
 * database and the address the service listens on. `preparing(step)` says what is done;
 * /readyz answers 503 with that step until the work returns (/healthz answers 200 meanwhile).
 */
export type PrepareStart = (work: { db: Database; dceStore: ObjectStore; logger: Logger; url: string; preparing: (step: string) => void }) => Promise<void>;

/** At a stop, what this process' search result cache answered: counts only (per index), no query; nothing where no search ran. */
export function logSearchCache(logger: Logger): void {
  const stats = searchCacheStats();
  if (Object.keys(stats).length) logger.info({ searchCache: stats }, 'cache des recherches');
}

/** Stops `stop` on SIGTERM or SIGINT (once), then exits 0, or 1 when stopping failed. */
export function exitOnSignal(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, 'arrêt demandé : fin des appels en cours');
      stop().then(
        () => {
          logSearchCache(logger);
          logger.info('service arrêté');
          process.exit(0);
        },
        (err: Error) => {
          logger.error({ err: err.message }, 'arrêt en échec');
          process.exit(1);
        },
      );
    });
  }
}
