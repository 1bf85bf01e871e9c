// WAL checkpoints of the service's SQLite database, mostly in a thread of their own. By
// default SQLite runs a checkpoint inside the commit that takes the WAL past 1,000 pages:
// every few hundred calls, one call (its quota count is a commit) waits for the copy of
// those pages and the fsync. Measured on the large demo set at one connection,
// entreprises.get: p99 6 ms and 667 calls/s with them, 3 ms and 1,083 calls/s without.
// So a worker thread with a connection of its own runs a PASSIVE checkpoint (it never
// blocks the readers nor the writer) at a short interval, and the service's connection
// checkpoints only past 10,000 pages, with little left to copy. That backstop is needed:
// under steady writes a background checkpoint never finds the WAL idle, and only a
// checkpoint by the writer itself lets the WAL start again from its beginning (without
// it the file grows by every commit). Should the worker stop or fail, the connection
// checkpoints as it did before (SQLite's default, or another thread's backstop). The
// importer runs one too, for the time of an import.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Database } from './database.js';
import { withSqlite } from './statements.js';

/** SQLite's own default: the commit that takes the WAL past this many pages checkpoints it. */
const SQLITE_DEFAULT_AUTOCHECKPOINT = 1000;
/** The service connection's own checkpoints while the worker runs: rare, and short (the worker copied the pages). */
export const BACKSTOP_AUTOCHECKPOINT = 10_000;

export interface CheckpointResult {
  /** Frames in the WAL, and frames of it now copied into the database. */
  log: number;
  checkpointed: number;
}

export interface Checkpointer {
  /** Checkpoints run so far (for tests and logs). */
  readonly runs: number;
  readonly last: CheckpointResult | null;
  /** Stops the worker; the service's connection checkpoints again by itself. */
  stop(): Promise<void>;
}

// Plain JavaScript: the worker needs no TypeScript loader, and imports the driver by its path.
const WORKER_SOURCE = `(async () => {
  const { parentPort, workerData } = await import('node:worker_threads');
  const Driver = (await import(workerData.driver)).default;
  const db = new Driver(workerData.filename, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  const run = () => {
    try {
      const [r] = db.pragma('wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ log: r.log, checkpointed: r.checkpointed });
    } catch {
      // Busy (a VACUUM, another process' checkpoint): the next turn.
    }
  };
  const timer = setInterval(run, workerData.everyMs);
  parentPort.on('message', () => {
    clearInterval(timer);
    run();
    db.close();
    parentPort.close();
  });
})();`;

const DRIVER = pathToFileURL(createRequire(import.meta.url).resolve('better-sqlite3')).href;

export async function startCheckpointer(db: Database, filename: string, options: { everyMs?: number; onFailure?: (message: string) => void } = {}): Promise<Checkpointer> {
  const setAutocheckpoint = (pages: number) => withSqlite(db, (conn) => conn.pragma(`wal_autocheckpoint = ${pages}`));
  // Given back when the thread stops or fails: SQLite's default, or the backstop of another
  // thread still running (an import inside the service, at its first start).
  const before = await withSqlite(db, (conn) => Number(conn.pragma('wal_autocheckpoint', { simple: true }) ?? SQLITE_DEFAULT_AUTOCHECKPOINT));
  await setAutocheckpoint(BACKSTOP_AUTOCHECKPOINT);
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: DRIVER, filename, everyMs: options.everyMs ?? 100 } });
  worker.unref();
  let stopped = false;
  const state: { runs: number; last: CheckpointResult | null } = { runs: 0, last: null };
  worker.on('message', (result: CheckpointResult) => {
    state.runs += 1;
    state.last = result;
  });
  const fallBack = (message: string) => {
    if (stopped) return;
    stopped = true;
    setAutocheckpoint(before).catch(() => undefined);
    options.onFailure?.(message);
  };
  worker.on('error', (err: unknown) => fallBack(`fil des points de contrôle en échec : ${err instanceof Error ? err.message : String(err)}`));
  worker.on('exit', (code) => fallBack(`fil des points de contrôle arrêté (code ${code})`));
  return {
    get runs() {
      return state.runs;
    },
    get last() {
      return state.last;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage('stop');
      await exited;
      await setAutocheckpoint(before);
    },
  };
}
