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

/** The current schema's tables among `names` with PostgreSQL's row estimate of their last analysis (0 when never analyzed). */
async function analyzedRows(db: Database, names: string[]): Promise<Map<string, number>> {
  const { rows } = await db.raw(
    `select c.relname, greatest(c.reltuples, 0)::bigint as tuples from pg_class c
      where c.relnamespace = current_schema()::regnamespace and c.relkind = 'r' and c.relname = any(?)`,
    [names],
  );
  return new Map((rows as { relname: string; tuples: string }[]).map((r) => [r.relname, Number(r.tuples)]));
}

/** Statistics target of the analyses during a load (PostgreSQL's default: 100): 3,000 rows sampled. */
const GROWING_STATISTICS_TARGET = 10;

/**
 * Analyzes each table of `changes` whose count reaches `threshold(rows)`, `rows` being
 * PostgreSQL's estimate at the table's last analysis (0 when never analyzed), with
 * `statisticsTarget` for that analysis alone when given; returns their names.
 */
async function analyzePast(db: Database, changes: TableChanges, threshold: (tuples: number) => number, statisticsTarget?: number): Promise<string[]> {
  if (kindOf(db) !== 'postgres' || !changes.size) return [];
  const analyzed: string[] = [];
  for (const [relname, tuples] of await analyzedRows(db, [...changes.keys()])) {
    if ((changes.get(relname) ?? 0) < threshold(tuples)) continue;
    await db.transaction(async (trx) => {
      if (statisticsTarget !== undefined) await trx.raw(`set local default_statistics_target = ${statisticsTarget}`);
      await trx.raw('analyze ??', [relname]);
    });
    analyzed.push(relname);
  }
  return analyzed.sort();
}

/**
 * During a load, before each batch (never after the last: the load's end analyzes anyway):
 * analyzes each table whose changes since its last analysis reach 50 rows plus the rows it
 * held then (never analyzed: 50; then each time it has about doubled), removes them from
 * `pending` and returns their names. Without statistics, PostgreSQL gives
 * `siren = any(…900 values…)` a selectivity of 0.5 % per value, so the whole table, and read
 * the establishments of each batch's companies by a sequential scan of the growing table:
 * measured on the national set at factor 0.02 (310,000 establishments), 463 such reads took
 * 9.9 s of a 38.8 s import, and the time grows with the square of the rows. One analysis
 * gives the planner the column's distinct values, which it scales with the table's size;
 * doubling keeps that true for about ten analyses of a national file. These analyses sample
 * 3,000 rows (statistics target 10, against 100 by default): enough for that choice, and a
 * tenth of the time (the five analyses of the establishments' load above took 2.6 s at the
 * default target); the analysis at the end of the load (`analyzeChangedTables`, which always
 * follows a table that doubled) takes the full sample for the searches' plans. Nothing on
 * SQLite.
 */
export async function analyzeGrowingTables(db: Database, pending: TableChanges): Promise<string[]> {
  const analyzed = await analyzePast(db, pending, (tuples) => 50 + tuples, GROWING_STATISTICS_TARGET);
  for (const table of analyzed) pending.delete(table);
  return analyzed;
}

/**
 * Analyzes each table whose changes pass autovacuum's threshold (50 rows plus 10 % of the
 * rows the table held at its last analysis); returns their names. Nothing on SQLite.
 */
export function analyzeChangedTables(db: Database, changes: TableChanges): Promise<string[]> {
  return analyzePast(db, changes, (tuples) => 50 + 0.1 * tuples);
}
