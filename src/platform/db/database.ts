// Opens the database named by DATABASE_URL: `sqlite:PATH` (embedded default) or
// `postgres://…`. The rest of the code sees only Knex.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type BetterSqlite3 from 'better-sqlite3';
import { RetryingSqliteClient, type ReadThreadsConfig } from './sqlite-client.js';
import { loadRanking } from './sqlite-ranking.js';

export type Database = Knex;
export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  /** PostgreSQL schema to work in (tests use one schema per run). */
  searchPath?: string;
  /** SQLite: how long a statement waits for another connection's lock, on the event loop (default 5 s; see busy.ts). */
  busyTimeoutMs?: number;
  /**
   * SQLite: how long a statement run outside a transaction keeps trying, in pauses off the
   * event loop, while another process holds the write lock (sqlite-client.ts); none by default.
   */
  lockBudgetMs?: number;
  /** PostgreSQL: connections in the pool (default 10). */
  poolSize?: number;
  /** PostgreSQL: how long a query may wait for a free connection (default 10 s). */
  acquireTimeoutMs?: number;
  /**
   * PostgreSQL: the server cancels a statement running longer (`statement_timeout`), and the
   * client gives up on one whose answer does not come a little later (`query_timeout`: a
   * frozen server answers nothing). None by default (imports, migrations, CLIs). SQLite: the
   * longest a reading thread's statement is waited for (30 s when not given).
   */
  statementTimeoutMs?: number;
  /**
   * PostgreSQL: a statement waiting longer for a lock (a table locked by a migration, a
   * maintenance, a long write) fails (`lock_timeout`, SQLSTATE 55P03) and gives its
   * connection back. None by default.
   */
  lockTimeoutMs?: number;
  /**
   * SQLite file: threads reading the statements of work run in `offLoop` (the searches that
   * the result cache cannot answer, the market analyses), off the event loop
   * (sqlite-readers.ts). None by default.
   */
  readThreads?: number;
  /**
   * PostgreSQL: the most workers the server may add to one statement of this pool
   * (`max_parallel_workers_per_gather`, set on each new connection); the server's own
   * setting when not given.
   */
  parallelWorkers?: number;
}

export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error('DATABASE_URL doit commencer par sqlite: ou postgres://');
}

/** Page cache of the service's SQLite connection (KiB). */
export const SQLITE_CACHE_KIB = 64 * 1024;

/**
 * Page cache of each reading thread's connection (KiB): the threads read what the searches
 * the result cache cannot answer read, the index's ranking of broad words included (bm25
 * over the whole lists of pages of their words). With 64 MiB each, those rankings cost more
 * of the service's CPU in the threads than on the process's connection (large set,
 * `entreprises.search` under load: 2.8–3.5 → 3.4–4.0 ms per call); with 256 MiB and three
 * threads, 2.4–3.1 ms against 2.4–3.7 (« Reading threads » in docs/performance.md). The
 * cache fills as pages are read, up to this.
 */
export const SQLITE_READER_CACHE_KIB = 256 * 1024;

/**
 * Knex's own log lines (a failed acquisition, a connection ended) carry stack traces and
 * sometimes a query's text: they are not written. The same failures reach the code as
 * errors, which the service logs once, summarised (log.ts `errorSummary`).
 */
const SILENT = () => undefined;
const KNEX_LOG = { warn: SILENT, error: SILENT, deprecate: SILENT, debug: SILENT };

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (databaseKind(url) === 'sqlite') {
    const filename = url.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const readThreads: ReadThreadsConfig | undefined =
      options.readThreads && filename !== ':memory:'
        ? // Off the loop, a thread may wait for a lock as long as any statement may take.
          { threads: options.readThreads, filename: resolve(filename), cacheKib: SQLITE_READER_CACHE_KIB, busyTimeoutMs: 5000, timeoutMs: options.statementTimeoutMs ?? 30_000 }
        : undefined;
    const config: Knex.Config & { lockBudgetMs: number; readThreads?: ReadThreadsConfig } = {
      client: RetryingSqliteClient as unknown as typeof Knex.Client,
      lockBudgetMs: options.lockBudgetMs ?? 0,
      readThreads,
      log: KNEX_LOG,
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: BetterSqlite3.Database, done: (err: Error | null, conn: unknown) => void) {
          // WAL lets the import CLI write while the server reads; busy_timeout waits for
          // the other process' write lock instead of failing at once (the service waits only
          // a few milliseconds at a time: busy.ts).
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
          // 64 MiB of page cache instead of SQLite's 2 MiB: a broad search reads the search
          // index's pages of tens of thousands of matches (on the large demo set, a two-word
          // notice search went from ~50 to ~30 ms once its pages stayed in memory).
          conn.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
          loadRanking(conn);
          done(null, conn);
        },
      },
    };
    return knexFactory(config);
  }
  const timeouts = {
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs, query_timeout: options.statementTimeoutMs + 1000 } : {}),
    ...(options.lockTimeoutMs ? { lock_timeout: options.lockTimeoutMs } : {}),
  };
  const acquire = options.acquireTimeoutMs ?? 10_000;
  return knexFactory({
    client: 'pg',
    log: KNEX_LOG,
    connection: { connectionString: url, connectionTimeoutMillis: 5000, ...timeouts },
    searchPath: options.searchPath ? [options.searchPath] : undefined,
    pool: {
      min: 0,
      max: options.poolSize ?? 10,
      acquireTimeoutMillis: acquire,
      ...(options.parallelWorkers === undefined ? {} : { afterCreate: parallelWorkersSetter(options.parallelWorkers) }),
    },
    acquireConnectionTimeout: acquire,
  });
}

/** Sets a new connection's parallel workers per statement (a whole number, written into the statement as such). */
function parallelWorkersSetter(workers: number) {
  if (!Number.isInteger(workers) || workers < 0) throw new Error(`Nombre de processus parallèles invalide : ${workers}`);
  return (conn: { query: (sql: string, done: (err: Error | null) => void) => void }, done: (err: Error | null, conn: unknown) => void) => {
    conn.query(`set max_parallel_workers_per_gather = ${workers}`, (err) => done(err, conn));
  };
}

export function kindOf(db: Database): DatabaseKind {
  return db.client.config.client === 'pg' ? 'postgres' : 'sqlite';
}

/** The file of a SQLite database (null for PostgreSQL and for an in-memory SQLite database). */
export function sqliteFileOf(db: Database): string | null {
  if (kindOf(db) !== 'sqlite') return null;
  const filename = (db.client.config.connection as { filename?: string } | undefined)?.filename;
  return filename && filename !== ':memory:' ? filename : null;
}

/** Queries waiting for a free connection of the pool right now (0 when there is no pool to wait for). */
export function waitingForConnection(db: Database): number {
  const pool = db.client.pool as { numPendingAcquires?: () => number } | undefined;
  return pool?.numPendingAcquires?.() ?? 0;
}

/** A lock was waited for longer than `lockTimeoutMs` (PostgreSQL's lock_not_available). */
export function isLockTimeout(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === '55P03';
}

interface WatchedPool {
  numPendingAcquires(): number;
  on(event: 'acquireSuccess' | 'acquireRequest', listener: () => void): void;
}

/**
 * Whether a pool is stuck: queries wait for a connection and none was handed out for
 * `stallMs` (every connection held by a statement that does not end: a locked table, a
 * frozen server). A long queue that moves is not stuck: it is load, and is served.
 */
export function poolStallWatch(db: Database, stallMs: number): () => boolean {
  let watched: WatchedPool | undefined;
  // The last time the queue moved: a connection handed out, or a first query queued.
  let moved = Date.now();
  return () => {
    const pool = db.client.pool as WatchedPool | undefined;
    if (!pool) return false;
    if (pool !== watched) {
      const p = (watched = pool);
      moved = Date.now();
      p.on('acquireSuccess', () => (moved = Date.now()));
      // Emitted before the request joins the queue: an empty queue starts waiting now.
      p.on('acquireRequest', () => {
        if (p.numPendingAcquires() === 0) moved = Date.now();
      });
    }
    return pool.numPendingAcquires() > 0 && Date.now() - moved > stallMs;
  };
}
