// Hot-path queries on SQLite: better-sqlite3 statements prepared once per connection and
// run synchronously on Knex's own connection (so transactions and the pool stay Knex's).
// PostgreSQL's prepared statements are in prepared.ts.
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
