// A SQLite lock held by another connection, as the code sees it (SQLite's own error, and
// the service's when the wait for it ran out), and the one way to wait it out off the event
// loop. Apart from busy.ts, so that the database's client (sqlite-client.ts) uses them
// without importing what imports it.

/** The database stayed locked by another connection for the whole budget. */
export class DatabaseBusyError extends Error {
  override readonly name = 'DatabaseBusyError';
  constructor(readonly waitedMs: number) {
    super(`base de données verrouillée par une autre connexion depuis ${waitedMs} ms`);
  }
}

/** SQLITE_BUSY (another connection holds the lock) or SQLITE_LOCKED, in any of their extended forms. */
export function isBusy(err: unknown): boolean {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

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
 * for a BEGIN IMMEDIATE refused for a lock; `retryable`, asked after a failure for a lock,
 * says whether it did.
 */
export async function retryWhileBusy<T>(run: () => T | Promise<T>, budgetMs: number, retryable: () => boolean = () => true): Promise<T> {
  const started = Date.now();
  for (;;) {
    try {
      return await run();
    } catch (err) {
      if (!isBusy(err) || !retryable()) throw err;
      const waited = Date.now() - started;
      if (waited + RETRY_PAUSE_MS > budgetMs) throw new DatabaseBusyError(waited);
      await pause(RETRY_PAUSE_MS);
    }
  }
}
