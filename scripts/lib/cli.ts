// Shared pieces of the command-line scripts: the database of DATABASE_URL, migrated, and
// a clean exit with a French message on bad input.
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';

export async function withDatabase<T>(run: (db: Database) => Promise<T>): Promise<T> {
  const db = openDatabase(loadConfig().databaseUrl);
  try {
    await migrateLatest(db);
    return await run(db);
  } finally {
    await db.destroy();
  }
}

export function fail(message: string): never {
  console.error(`Erreur : ${message}`);
  process.exit(2);
}
