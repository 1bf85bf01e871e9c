// The address the running service computed for itself (PUBLIC_URL, else http://HOST:PORT),
// kept in its database at every start: a command run in another terminal, without the
// service's PORT or PUBLIC_URL, finds the service (npm run token) and writes the same
// permalinks (npm run robot) from the database they share. Kept in the service's table of
// named values (`service_secrets`), although it is no secret: one row, no migration.
import { existsSync } from 'node:fs';
import { openDatabase, type Database } from './database.js';

const NAME = 'service-address';

export async function recordServiceAddress(db: Database, url: string): Promise<void> {
  await db('service_secrets').insert({ name: NAME, value: url }).onConflict('name').merge(['value']);
}

/** The address recorded by the service in `db`, or null (no service ever started on it). */
export async function recordedServiceAddress(db: Database): Promise<string | null> {
  try {
    const row = (await db('service_secrets').where({ name: NAME }).first('value')) as { value: string } | undefined;
    return row?.value ?? null;
  } catch {
    // A database never migrated: no table yet.
    return null;
  }
}

/**
 * The address recorded in the database of `databaseUrl`, read without migrating or
 * creating anything (a SQLite file that does not exist is not made); null when there is none
 * or the database cannot be read.
 */
export async function readServiceAddress(databaseUrl: string): Promise<string | null> {
  const sqlite = /^sqlite:(.+)$/.exec(databaseUrl)?.[1];
  if (sqlite !== undefined && (sqlite === ':memory:' || !existsSync(sqlite))) return null;
  let db: Database | null = null;
  try {
    db = openDatabase(databaseUrl, { busyTimeoutMs: 2000, poolSize: 1, acquireTimeoutMs: 3000, statementTimeoutMs: 3000 });
    return await recordedServiceAddress(db);
  } catch {
    return null;
  } finally {
    await db?.destroy().catch(() => undefined);
  }
}
