// SQLite write locks held by another connection (an import, a CLI, a backup): better-sqlite3
// waits for them synchronously, on the event loop, for as long as `busy_timeout` says. The
// service's connection therefore waits only a few milliseconds at a time, and work that must
// get through a lock held in short turns (an import's batches) is tried again after a pause
// off the loop, within a bounded budget; past it, the lock is reported (DatabaseBusyError).
import type { Knex } from 'knex';
import { kindOf } from './database.js';
import { DatabaseBusyError, isBusy } from './lock-errors.js';

export { DatabaseBusyError, isBusy };

/** busy_timeout of the service's connection: the longest a lock may stall the event loop at once. */
export const SERVICE_BUSY_TIMEOUT_MS = 10;

/**
 * How long the service's work waits for another connection's write lock on SQLite, in
 * pauses off the event loop: enough to pass between an import's batches (each holds the
 * lock ~0.5 s), short enough that a lock held for good is answered 503 within about a second.
 */
export const SERVICE_LOCK_BUDGET_MS = 1500;

/** busy_timeout of the command-line tools: they have no other work, so they wait longer for a lock. */
export const CLI_BUSY_TIMEOUT_MS = 30_000;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Pause between two tries: short, because another connection's lock is given back for a
 * moment only between its transactions (an import's batches), and a try must fall in it.
 */
const RETRY_PAUSE_MS = 5;

/**
 * Runs `run` until it does not fail for a lock, pausing RETRY_PAUSE_MS between tries so that
 * other calls run meanwhile; after `budgetMs`, throws DatabaseBusyError.
 * `run` must leave nothing behind when it fails (a transaction rolled back), as SQLite does
 * for a BEGIN IMMEDIATE refused for a lock.
 */
export async function retryWhileBusy<T>(run: () => T | Promise<T>, budgetMs: number): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await run();
    } catch (err) {
      if (!isBusy(err)) throw err;
      const waited = Date.now() - started;
      if (waited + RETRY_PAUSE_MS > budgetMs) throw new DatabaseBusyError(waited);
      await pause(RETRY_PAUSE_MS);
    }
  }
}

/**
 * Takes SQLite's write lock at the start of a transaction that reads before it writes (a
 * no-op on PostgreSQL). Knex begins a deferred transaction: its first read fixes a snapshot,
 * and if another connection commits before the first write, that write fails with
 * SQLITE_BUSY_SNAPSHOT instead of waiting (seen in the live-import benchmark, the service
 * counting calls while the import read the provisional companies of a batch). A write that
 * changes nothing takes the lock, waiting for it as any write does.
 */
export async function lockForWrite(trx: Knex.Transaction): Promise<void> {
  if (kindOf(trx) === 'sqlite') await trx.raw('update knex_migrations set id = id where 0');
}
