// Hot-path queries on SQLite: better-sqlite3 statements prepared once per connection and
// run synchronously on Knex's own connection (so transactions and the pool stay Knex's).
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

/** Runs synchronous work on Knex's better-sqlite3 connection, held for that work only. */
export async function withSqlite<T>(db: Database, run: (conn: BetterSqlite3.Database) => T): Promise<T> {
  const conn = (await db.client.acquireConnection()) as BetterSqlite3.Database;
  try {
    return run(conn);
  } finally {
    await db.client.releaseConnection(conn);
  }
}
