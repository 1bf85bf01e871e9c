// Starts and stops the service: migrations, HTTP listener, graceful shutdown on a signal.
import { searchCacheStats } from './platform/search/search-cache.js';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp, type AppDeps } from './app.js';
import type { Config } from './config.js';
import { startCheckpointer, type Checkpointer } from './platform/db/checkpointer.js';
import { SERVICE_BUSY_TIMEOUT_MS, retryWhileBusy } from './platform/db/busy.js';
import { kindOf, openDatabase, sqliteFileOf, type Database } from './platform/db/database.js';
import { migrateLatest } from './migrations/index.js';
import { createLogger, errorSummary, type Logger } from './log.js';
import { startPeriodicTask, type PeriodicTask } from './platform/periodic-task.js';
import { purgeExpiredAuthRows } from './auth/store/expired-rows.js';
import { deleteDueOrganisations } from './domains/account/erasure.js';
import { openObjectStore, type ObjectStore } from './platform/files/object-store.js';
import { startRobotScheduler, type RobotScheduler } from './domains/robot/scheduler.js';
import { startDeliveryWorker, type DeliveryWorker } from './domains/emails/delivery.js';
import { CONNECTORS } from './domains/connectors.js';
import { startSyncScheduler, type SyncScheduler } from './sync/scheduler.js';

/**
 * The service's connections to its database. SQLite: a lock of another connection stalls
 * the event loop SERVICE_BUSY_TIMEOUT_MS at most at a time. PostgreSQL: operations have 10
 * connections, wait 3 s at most for one, and a statement 30 s at most (below the 35 s limit
 * of a call, so a call times out cleanly with its connection given back).
 */
function serviceDatabase(operationTimeoutMs: number) {
  return { busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, poolSize: 10, acquireTimeoutMs: 3000, statementTimeoutMs: Math.max(1000, operationTimeoutMs - 5000) };
}
/** Authentication and quota admission on PostgreSQL: short statements, 4 connections of their own. */
const CONTROL_DATABASE = { poolSize: 4, acquireTimeoutMs: 3000, statementTimeoutMs: 10_000 };

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
  stop: () => Promise<void>;
}

/** How often expired sign-in and OAuth rows are swept. */
const EXPIRED_ROWS_SWEEP_MS = 60 * 60 * 1000;

export async function startService(
  config: Config,
  options: { searchPath?: string; logger?: Logger; wrapRegistry?: AppDeps['wrapRegistry'] } = {},
): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = openDatabase(config.databaseUrl, { searchPath: options.searchPath, ...serviceDatabase(config.limits.operationTimeoutMs) });
  if (options.searchPath) await db.raw('create schema if not exists ??', [options.searchPath]);
  // Another process may hold the lock a while (an import): the migrations wait for it, off the loop.
  await retryWhileBusy(() => migrateLatest(db), 60_000);
  // Bulkhead: on PostgreSQL, tokens, accounts and quota admissions have connections of their
  // own, so that operations waiting on a slow or locked table never starve them.
  const control = kindOf(db) === 'postgres' ? openDatabase(config.databaseUrl, { searchPath: options.searchPath, ...CONTROL_DATABASE }) : db;
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
  const app = await createApp({ config: { ...config, publicUrl: url }, db, control, logger, wrapRegistry: options.wrapRegistry });
  server.on('request', app.callback());
  // The alert robot: a connection of its own, so that its reads never queue the calls behind
  // them on the service's single SQLite connection; it waits for locks off the loop as the service does.
  const robotDb = config.robot ? openDatabase(config.databaseUrl, { searchPath: options.searchPath, busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, poolSize: 2 }) : null;
  const robot: RobotScheduler | null = robotDb ? startRobotScheduler({ db: robotDb, publicUrl: url, now: () => new Date() }, logger) : null;
  // E-mail delivery: only with an SMTP server (without one, sends stay in the outbox). Its
  // queries are short: the service's connection serves them.
  const dceStore = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  const mailer: DeliveryWorker | null = config.smtpUrl ? startDeliveryWorker({ db, smtpUrl: config.smtpUrl, store: dceStore, timing: config.mailTiming, now: () => new Date(), logger }) : null;
  // The synchronisation: a connection of its own (its page writes never queue the calls), as the robot's.
  const syncDb = config.sync.enabled ? openDatabase(config.databaseUrl, { searchPath: options.searchPath, busyTimeoutMs: SERVICE_BUSY_TIMEOUT_MS, poolSize: 2 }) : null;
  const sync: SyncScheduler | null = syncDb ? startSyncScheduler({ db: syncDb, connectors: CONNECTORS, plan: config.sync, logger, deps: { leaseMs: config.sync.leaseMs, timing: config.sync.timing } }) : null;
  // Expired sign-in and OAuth rows: every hour, the first a minute after the start (its own work done).
  const sweep: PeriodicTask | null = config.expiredRowsSweep
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
  let stopping: Promise<void> | null = null;
  const stop = () => {
    // Connections that finish their call become idle and are closed at once, rather than
    // after the keep-alive delay.
    stopping ??= new Promise<void>((resolve) => {
      const sweep = setInterval(() => server.closeIdleConnections(), 50);
      server.close(() => {
        clearInterval(sweep);
        resolve();
      });
      server.closeIdleConnections();
    })
      .then(() => sweep?.stop())
      .then(() => robot?.stop())
      .then(() => mailer?.stop())
      .then(() => sync?.stop())
      .then(() => syncDb?.destroy())
      .then(() => robotDb?.destroy())
      .then(() => checkpointer?.stop())
      .then(() => (control === db ? undefined : control.destroy()))
      .then(() => db.destroy());
    return stopping;
  };
  return { server, db, dceStore, logger, url, mailer, sync, stop };
}

/**
 * Runs the service until SIGTERM or SIGINT, then lets the calls in flight finish and exits.
 * `afterStart` runs once the service listens (npm start: the demo data on first start).
 */
export async function runService(config: Config, afterStart?: (service: RunningService) => Promise<void>): Promise<void> {
  const service = await startService(config);
  service.logger.info({ url: service.url }, 'service démarré');
  console.log(`Service à l'écoute : ${service.url}`);
  await afterStart?.(service);
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      service.logger.info({ signal }, 'arrêt demandé : fin des appels en cours');
      service.stop().then(
        () => {
          // Counts only (calls answered from the search result cache, per index), no query.
          service.logger.info({ searchCache: searchCacheStats() }, 'cache des recherches');
          service.logger.info('service arrêté');
          process.exit(0);
        },
        (err: Error) => {
          service.logger.error({ err: err.message }, 'arrêt en échec');
          process.exit(1);
        },
      );
    });
  }
}
