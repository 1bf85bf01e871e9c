// PostgreSQL plans every statement from the statistics ANALYZE gathers. After a bulk load
// they are missing or stale until autovacuum gets to the tables (some time later; never
// where it is off), and the plans are guessed meanwhile: measured on the demo set with
// autovacuum off, PostgreSQL's CPU per call of `entreprises.search` 3.57 → 0.85 ms and of
// `attributions.search` 1.27 → 0.50 ms once the tables were analyzed. An import therefore
// analyzes the tables it changed enough, as PostgreSQL's own guide advises after a bulk
// load, with autovacuum's own threshold (50 rows plus 10 % of the table).
import type { Knex } from 'knex';
import { kindOf, type Database } from './database.js';

/** Rows inserted, updated or deleted per table of the current schema, counted over several transactions. */
export type TableChanges = Map<string, number>;

/**
 * The current schema's tables with their rows inserted, updated or deleted as this connection
 * counts them. The counters of the schema's own tables, read from `pg_class`: the view
 * `pg_stat_xact_user_tables` computes them for every table of every schema first (3 ms a
 * read on the test database's 758 relations, against 0.3 ms), twice per batch.
 */
async function pendingCounts(trx: Knex.Transaction): Promise<Map<string, number>> {
  const { rows } = await trx.raw(
    `select relname, n from (
       select c.relname, (pg_stat_get_xact_tuples_inserted(c.oid) + pg_stat_get_xact_tuples_updated(c.oid) + pg_stat_get_xact_tuples_deleted(c.oid))::bigint as n
         from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p')) t
      where n > 0`,
  );
  return new Map((rows as { relname: string; n: string }[]).map((r) => [r.relname, Number(r.n)]));
}

/**
 * Runs `work` in the transaction `trx` and adds to `changes` the rows it changed per table,
 * from PostgreSQL's counters of the connection read before and after (exact: the
 * statistics' totals arrive later, and the connection's own counters may still hold its
 * earlier transactions', hence the difference). On SQLite, `work` alone: its planner needs
 * no such statistics for these queries.
 */
export async function countTableChanges<T>(trx: Knex.Transaction, changes: TableChanges, work: () => Promise<T>): Promise<T> {
  if (kindOf(trx as unknown as Database) !== 'postgres') return work();
  const before = await pendingCounts(trx);
  const result = await work();
  for (const [table, n] of await pendingCounts(trx)) {
    const changed = n - (before.get(table) ?? 0);
    if (changed > 0) changes.set(table, (changes.get(table) ?? 0) + changed);
  }
  return result;
}

/**
 * Analyzes each table whose changes pass autovacuum's threshold (50 rows plus 10 % of the
 * rows the table held at its last analysis); returns their names. Nothing on SQLite.
 */
export async function analyzeChangedTables(db: Database, changes: TableChanges): Promise<string[]> {
  if (kindOf(db) !== 'postgres' || !changes.size) return [];
  const { rows } = await db.raw(
    `select c.relname, greatest(c.reltuples, 0)::bigint as tuples from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(?)`,
    [[...changes.keys()]],
  );
  const analyzed: string[] = [];
  for (const { relname, tuples } of rows as { relname: string; tuples: string }[]) {
    if ((changes.get(relname) ?? 0) < 50 + 0.1 * Number(tuples)) continue;
    await db.raw('analyze ??', [relname]);
    analyzed.push(relname);
  }
  return analyzed.sort();
}
