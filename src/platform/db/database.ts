// Opens the database named by DATABASE_URL: `sqlite:PATH` (embedded default) or
// `postgres://…`. The rest of the code sees only Knex.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';

export type Database = Knex;
export type DatabaseKind = 'sqlite' | 'postgres';

export interface DatabaseOptions {
  /** PostgreSQL schema to work in (tests use one schema per run). */
  searchPath?: string;
}

export function databaseKind(url: string): DatabaseKind {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error('DATABASE_URL doit commencer par sqlite: ou postgres://');
}

/** Page cache of the service's SQLite connection (KiB). */
export const SQLITE_CACHE_KIB = 64 * 1024;

export function openDatabase(url: string, options: DatabaseOptions = {}): Database {
  if (databaseKind(url) === 'sqlite') {
    const filename = url.slice('sqlite:'.length);
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    return knexFactory({
      client: 'better-sqlite3',
      connection: { filename },
      useNullAsDefault: true,
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: { pragma: (s: string) => void }, done: (err: Error | null, conn: unknown) => void) {
          // WAL lets the import CLI write while the server reads; busy_timeout waits for
          // the other process' write lock instead of failing at once.
          conn.pragma('journal_mode = WAL');
          conn.pragma('synchronous = NORMAL');
          conn.pragma('foreign_keys = ON');
          conn.pragma('busy_timeout = 5000');
          // 64 MiB of page cache instead of SQLite's 2 MiB: a broad search reads the search
          // index's pages of tens of thousands of matches (on the large demo set, a two-word
          // notice search went from ~50 to ~30 ms once its pages stayed in memory).
          conn.pragma(`cache_size = -${SQLITE_CACHE_KIB}`);
          done(null, conn);
        },
      },
    });
  }
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, connectionTimeoutMillis: 5000 },
    searchPath: options.searchPath ? [options.searchPath] : undefined,
    pool: { min: 0, max: 10, acquireTimeoutMillis: 10_000 },
    acquireConnectionTimeout: 10_000,
  });
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
