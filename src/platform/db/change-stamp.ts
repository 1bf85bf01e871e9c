// A cheap answer to "may the database have changed since I last looked?", so what a call
// reads again and again (its token, its account and limits) can be kept in memory and still
// be exact: a plan changed by the CLI or a revoked token takes effect on the next call.
// On SQLite, `PRAGMA data_version` changes when another connection (another process, the
// CLI) commits, and `total_changes()` counts this connection's own writes. Writes known to
// change none of the cached data (the quota log) are excused, so they do not empty caches.
// On PostgreSQL, the stamp is the version of the identity's rows (tokens, users, memberships,
// organisations, plan limits), raised in the writer's own transaction by the triggers of
// migration 0029: one indexed read of one row.
import type BetterSqlite3 from 'better-sqlite3';
import { kindOf, type Database } from './database.js';
import { statement, withSqlite } from './statements.js';

// Two statements: the pragma alone is cheaper than the pragma as a table in a select.
const VERSION_SQL = 'pragma data_version';
const CHANGES_SQL = 'select total_changes()';

/** Per connection: how many of its own row changes were excused. */
const excused = new WeakMap<BetterSqlite3.Database, number>();
/** Per connection, a number of its own: a reopened connection counts from zero again. */
const connectionIds = new WeakMap<BetterSqlite3.Database, number>();
let lastConnectionId = 0;

function totalChanges(conn: BetterSqlite3.Database): number {
  return statement(conn, CHANGES_SQL).pluck().get() as number;
}

/**
 * SQLite: the stamp as this connection sees it now. Inside a write transaction this is the
 * data the transaction works on: no other connection can commit before it ends.
 */
export function readStamp(conn: BetterSqlite3.Database): string {
  let id = connectionIds.get(conn);
  if (id === undefined) connectionIds.set(conn, (id = ++lastConnectionId));
  const version = statement(conn, VERSION_SQL).pluck().get() as number;
  return `${id}:${version}:${totalChanges(conn) - (excused.get(conn) ?? 0)}`;
}

/**
 * A value that differs whenever the committed data a caller's identity is read from may
 * differ (SQLite: any data but the excused writes; PostgreSQL: the identity's tables).
 */
export async function changeStamp(db: Database): Promise<string> {
  if (kindOf(db) === 'sqlite') return withSqlite(db, readStamp);
  let reads = postgresReads.get(db);
  if (!reads) postgresReads.set(db, (reads = new SharedRead(() => readPostgresStamp(db))));
  return reads.next();
}

async function readPostgresStamp(db: Database): Promise<string> {
  const { rows } = await db.raw("select version from change_stamps where name = 'identity'");
  return `pg:${String((rows as { version: string }[])[0]?.version)}`;
}

/**
 * One read of the stamp for every call that asks while a read is under way: they share the
 * next read, sent once the current one answers, so each still gets a stamp read after it
 * asked (a change committed before a call is always seen by it). Under load this is one
 * read per round trip instead of one per call.
 */
class SharedRead {
  private current: Promise<string> | null = null;
  private queued: Promise<string> | null = null;

  constructor(private readonly read: () => Promise<string>) {}

  next(): Promise<string> {
    if (!this.current) return this.start();
    this.queued ??= this.current.then(
      () => this.start(),
      () => this.start(),
    );
    return this.queued;
  }

  private start(): Promise<string> {
    this.queued = null;
    const read = this.read();
    this.current = read;
    const done = () => {
      if (this.current === read) this.current = null;
    };
    read.then(done, done);
    return read;
  }
}

const postgresReads = new WeakMap<Database, SharedRead>();

/**
 * Runs synchronous writes on `conn` that change nothing any stamped cache holds (only the
 * quota and usage tables), and excuses them: the stamp stays as it was. Rolled-back changes
 * are counted by SQLite too, and excused the same way.
 */
export function excusingWrites<T>(conn: BetterSqlite3.Database, run: () => T): T {
  const before = totalChanges(conn);
  try {
    return run();
  } finally {
    excused.set(conn, (excused.get(conn) ?? 0) + totalChanges(conn) - before);
  }
}
