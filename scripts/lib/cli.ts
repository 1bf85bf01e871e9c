// Shared pieces of the command-line scripts: the database of DATABASE_URL, migrated, and
// a clean exit with a French message on bad input.
import { loadConfig } from '../../src/config.js';
import { CLI_BUSY_TIMEOUT_MS, DatabaseBusyError, isBusy } from '../../src/platform/db/busy.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';
import { errorSummary } from '../../src/log.js';

// A command-line tool says what failed in French, never with a stack trace.
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err: unknown) => {
    console.error(`Erreur inattendue : ${errorSummary(err).message}`);
    process.exit(1);
  });
}

/**
 * The database of DATABASE_URL, migrated, for `run`. A lock held by another process (the
 * service importing its demo data, an import) is waited for CLI_BUSY_TIMEOUT_MS at most.
 */
export async function withDatabase<T>(run: (db: Database) => Promise<T>): Promise<T> {
  const db = openDatabase(loadConfig().databaseUrl, { busyTimeoutMs: CLI_BUSY_TIMEOUT_MS });
  try {
    await migrateLatest(db);
    return await run(db);
  } catch (err) {
    if (isBusy(err) || err instanceof DatabaseBusyError) {
      console.error(`Erreur : base de données verrouillée par un autre processus depuis ${CLI_BUSY_TIMEOUT_MS / 1000} s (un import en cours ?) ; rien n'a été écrit, réessayer dans un moment.`);
      process.exit(1);
    }
    throw err;
  } finally {
    await db.destroy();
  }
}

export function fail(message: string): never {
  console.error(`Erreur : ${message}`);
  process.exit(2);
}
