// SQLite write locks held by another connection (an import, a CLI, a backup): better-sqlite3
// waits for them synchronously, on the event loop, for as long as `busy_timeout` says. The
// service's connection therefore waits only a few milliseconds at a time, and work that must
// get through a lock held in short turns (an import's batches) is tried again after a pause
// off the loop, within a bounded budget; past it, the lock is reported (DatabaseBusyError).
import type { Knex } from 'knex';
import { kindOf } from './database.js';
import { DatabaseBusyError, isBusy, retryWhileBusy } from './lock-retry.js';

export { DatabaseBusyError, isBusy, retryWhileBusy };

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
