// What a SQLite lock held by another connection looks like to the code: SQLite's own error,
// and the service's when the wait for it ran out. Apart from busy.ts, so that the database's
// client (sqlite-client.ts) can tell them without importing what imports it.

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
