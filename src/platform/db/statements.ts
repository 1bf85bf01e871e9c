// Hot-path queries prepared once per connection, on Knex's own connections (so transactions
// and the pool stay Knex's): on SQLite, better-sqlite3 statements run synchronously; on
// PostgreSQL, named statements of the pg driver (parsed and planned once per connection).
import { createHash } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import type { Database } from './database.js';

const cache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

export function statement(conn: BetterSqlite3.Database, sql: string): BetterSqlite3.Statement {
  let forConn = cache.get(conn);
  if (!forConn) {
    forConn = new Map();
    cache.set(conn, forConn);
  }
  let stmt = forConn.get(sql);
  if (!stmt) {
    stmt = conn.prepare(sql);
    forConn.set(sql, stmt);
  }
  return stmt;
}

/** What `withSqlite` reads of Knex's tarn pool (public counters, and the idle connection). */
interface TarnPool {
  numUsed(): number;
  numPendingAcquires(): number;
  numPendingCreates(): number;
  free?: { resource: BetterSqlite3.Database }[];
}

/**
 * The pool's one connection when nobody holds it or waits for it, else undefined. Work
 * that runs synchronously on it cannot interleave with anything (one thread), so it needs
 * no acquisition: this skips the pool's promise, its acquire timer and its queue, which
 * cost more than the queries of a call. A transaction (`db.isTransaction`) or a held
 * connection goes through the pool as before, in its FIFO order.
 */
function idleConnection(db: Database): BetterSqlite3.Database | undefined {
  if (db.isTransaction) return undefined;
  const pool = db.client.pool as TarnPool | undefined;
  if (!pool || pool.numUsed() !== 0 || pool.numPendingAcquires() !== 0 || pool.numPendingCreates() !== 0) return undefined;
  const free = pool.free;
  const conn = free?.length === 1 ? free[0]?.resource : undefined;
  return conn?.open ? conn : undefined;
}

/** Runs synchronous work on Knex's better-sqlite3 connection, held for that work only. */
export async function withSqlite<T>(db: Database, run: (conn: BetterSqlite3.Database) => T): Promise<T> {
  const idle = idleConnection(db);
  if (idle) return run(idle);
  const conn = (await db.client.acquireConnection()) as BetterSqlite3.Database;
  try {
    return run(conn);
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** What `preparedRows` uses of a pg client (the driver's `query` with a named statement). */
interface PgClient {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

const pgNames = new Map<string, string>();

/** A statement's name: derived from its text, so one name never stands for two texts (the driver refuses that). */
function pgStatementName(text: string): string {
  let name = pgNames.get(text);
  if (!name) {
    name = `p_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
    pgNames.set(text, name);
  }
  return name;
}

/**
 * Runs `text` ($1, $2… parameters) as a named prepared statement on one of Knex's PostgreSQL
 * connections (the transaction's own inside `db.transaction`): the server parses and plans
 * it on its first use on that connection only, and the call skips Knex's query building.
 */
export async function preparedRows<T>(db: Database, text: string, values: readonly unknown[]): Promise<T[]> {
  const conn = (await db.client.acquireConnection()) as PgClient;
  try {
    return (await conn.query({ name: pgStatementName(text), text, values })).rows as T[];
  } finally {
    await db.client.releaseConnection(conn);
  }
}
