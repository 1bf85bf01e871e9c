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
import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { retryWhileBusy } from './lock-retry.js';

const require = createRequire(import.meta.url);

interface RunnerLike {
  client: { transacting?: boolean; config: { lockBudgetMs?: number } };
  builder: { toSQL(): unknown };
  run(): Promise<unknown>;
}
type RunnerClass = new (client: unknown, builder: unknown) => RunnerLike;
type ClientClass = new (config: Knex.Config) => { runner(builder: unknown): RunnerLike };

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
}

/** The better-sqlite3 client whose lone statements wait out another process's write lock (`lockBudgetMs` in the Knex config). */
export class RetryingSqliteClient extends BetterSqliteClient {
  override runner(builder: unknown): RunnerLike {
    return new RetryingRunner(this, builder);
  }
}
