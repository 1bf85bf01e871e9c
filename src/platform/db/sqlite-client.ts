// Knex's better-sqlite3 client, with one change for the service's connections: a statement
// run on its own (outside a transaction) that finds another process holding SQLite's write
// lock is tried again after a pause off the event loop, its connection given back to the
// pool meanwhile, within a budget; past it, DatabaseBusyError. A statement that fails for a
// lock has changed nothing, and outside a transaction it is safe to run again (SQLite's own
// advice for SQLITE_BUSY). With several service processes on one file (`WORKERS`), a write
// lock is held by another process for a few milliseconds at every commit, longer when the
// machine is loaded; failing at the connection's `busy_timeout` (10 ms, the longest the event
// loop may stall) answered 503 to 3 to 6 calls of 3,100 `suivis.create` at 20 connections in
// the benchmark. Statements inside a transaction are left as they are: the transaction, not
// the statement, would have to run again (the quota log and the imports do so themselves).
// And one more: inside `offLoop` (sqlite-readers.ts), a lone read statement goes to the
// database's reading threads, without taking the service's connection meanwhile.
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { retryWhileBusy } from './lock-retry.js';
import { offLoopReadersFor, SqliteReaders } from './sqlite-readers.js';

const require = createRequire(import.meta.url);

interface RunnerLike {
  client: { transacting?: boolean; config: { lockBudgetMs?: number }; readers?: SqliteReaders | null };
  builder: { toSQL(): unknown; _connection?: unknown };
  connection: unknown;
  run(): Promise<unknown>;
  ensureConnection(callback: (runner: RunnerLike, params?: unknown) => Promise<unknown>, params?: unknown): Promise<unknown>;
}
type RunnerClass = new (client: unknown, builder: unknown) => RunnerLike;
interface QueryObject {
  sql: string;
  bindings?: unknown[];
  response?: unknown;
}
type ClientClass = new (config: Knex.Config) => {
  config: Knex.Config;
  runner(builder: unknown): RunnerLike;
  _query(connection: unknown, obj: QueryObject): Promise<QueryObject>;
  _formatBindings(bindings: unknown[] | undefined): unknown[];
  destroy(callback?: unknown): Promise<void>;
};

/** The connection a runner is given for a statement sent to the reading threads. */
interface ThreadConnection {
  __knexUid: string;
  readers: SqliteReaders;
}

/** A single statement that only reads: a select, or raw SQL beginning with `select` or `with`. */
function isLoneRead(sql: unknown): boolean {
  if (!sql || Array.isArray(sql)) return false;
  const { method, sql: text } = sql as { method?: string; sql?: string };
  if (method === 'select' || method === 'first' || method === 'pluck') return true;
  return method === 'raw' && typeof text === 'string' && /^\s*(select|with)\b/i.test(text);
}

const Runner = require('knex/lib/execution/runner.js') as RunnerClass;
const BetterSqliteClient = require('knex/lib/dialects/better-sqlite3/index.js') as ClientClass;

class RetryingRunner extends Runner {
  override run(): Promise<unknown> {
    const budget = this.client.config.lockBudgetMs ?? 0;
    // In a transaction: as Knex runs it.
    if (!budget || this.client.transacting) return super.run();
    // Several statements (a schema change) may have run in part: not again.
    return retryWhileBusy(() => super.run(), budget, () => !Array.isArray(this.builder.toSQL()));
  }

  override ensureConnection(callback: (runner: RunnerLike, params?: unknown) => Promise<unknown>, params?: unknown): Promise<unknown> {
    // A stream (params given), a transaction's statement or one given its connection stays here.
    const readers = params === undefined && !this.client.transacting && !this.builder._connection ? offLoopReadersFor(this.client.readers) : null;
    if (!readers || !isLoneRead(this.builder.toSQL())) return super.ensureConnection(callback, params);
    const connection: ThreadConnection = { __knexUid: 'fil-de-lecture', readers };
    this.connection = connection;
    return callback(this, params);
  }
}

/** The better-sqlite3 client whose lone statements wait out another process's write lock (`lockBudgetMs` in the Knex config). */
export class RetryingSqliteClient extends BetterSqliteClient {
  /** The database's reading threads (`readThreads` in the Knex config, a file only). */
  readonly readers: SqliteReaders | null;

  constructor(config: Knex.Config & { readThreads?: ReadThreadsConfig }) {
    super(config);
    this.readers = config.readThreads ? new SqliteReaders(config.readThreads) : null;
  }

  override runner(builder: unknown): RunnerLike {
    return new RetryingRunner(this, builder);
  }

  override async _query(connection: unknown, obj: QueryObject): Promise<QueryObject> {
    const readers = (connection as Partial<ThreadConnection> | undefined)?.readers;
    if (!readers) return super._query(connection, obj);
    obj.response = await readers.read(obj.sql, this._formatBindings(obj.bindings));
    return obj;
  }

  override async destroy(callback?: unknown): Promise<void> {
    await this.readers?.close();
    return super.destroy(callback);
  }
}

export type ReadThreadsConfig = ConstructorParameters<typeof SqliteReaders>[0];
