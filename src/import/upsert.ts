// Batched upserts of the importers' rows: the same outcome on SQLite (prepared statements)
// and PostgreSQL (rows as one array per column, `unnest`), rows written in key order.
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { kindOf } from '../platform/db/database.js';
import { statement, withSqlite } from '../platform/db/statements.js';
import { columnArrays, pipelined } from '../platform/db/pipelined.js';
import type { WriteCounts } from './importer.js';

export interface UpsertOutcome<Row> extends WriteCounts {
  /** The rows written (inserted or replacing), in the order they were: for each key, the last one is what the table holds. */
  applied: Row[];
}

export interface UpsertOptions {
  /** Columns a replacement leaves as they are (`ingested_at`: when the record entered the service). */
  keepOnUpdate?: string[];
  /** A row replaces the stored one only if this column is not older (text order; null is oldest). */
  versionColumn?: string;
}

/**
 * The rows sorted by key, rows of the same key in their order (a stable sort): written in
 * key order, a batch touches each page of the key's index once, not once per row (the
 * SIRENE files are not in SIREN order), and so do the search documents built from it.
 */
function inKeyOrder<Row extends object>(rows: readonly Row[], keys: readonly string[]): readonly Row[] {
  const keyOf =
    keys.length === 1
      ? (row: Row) => String((row as Record<string, unknown>)[keys[0] as string])
      : (row: Row) => keys.map((k) => String((row as Record<string, unknown>)[k])).join('\u0000');
  return sortedByKey(rows, keyOf);
}

/** The rows by key, rows of one key in their order (a stable sort: the later version stays last). */
export function sortedByKey<Row>(rows: readonly Row[], keyOf: (row: Row) => string): Row[] {
  // Already in order (a batch of a sorted window): a copy, without sorting.
  let inOrder = true;
  for (let i = 1, previous = rows.length ? keyOf(rows[0] as Row) : ''; i < rows.length; i++) {
    const key = keyOf(rows[i] as Row);
    if (key < previous) {
      inOrder = false;
      break;
    }
    previous = key;
  }
  if (inOrder) return rows.slice();
  const order = rows.map((row, i) => ({ key: keyOf(row), i }));
  order.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  return order.map((o) => rows[o.i] as Row);
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A value as better-sqlite3 binds it (Knex does the same for its queries): booleans as 0/1, undefined as null. */
function sqliteValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  return value;
}

type RowRunner = (statement: BetterSqlite3.Statement, row: Record<string, unknown>) => BetterSqlite3.RunResult;
const rowRunners = new Map<string, RowRunner>();

/**
 * A function running a statement with these columns of a row as its arguments, compiled
 * once per list of columns (the names as JSON string literals, so no column name is ever
 * code): named property reads instead of a lookup by a variable key, and no array of
 * values, for each row of an import.
 */
function rowRunner(columns: readonly string[]): RowRunner {
  const id = columns.join('\u0000');
  let runner = rowRunners.get(id);
  if (!runner) {
    const args = columns.map((c) => `v(r[${JSON.stringify(c)}])`).join(', ');
    runner = new Function('v', `return (s, r) => s.run(${args});`)(sqliteValue) as RowRunner;
    if (rowRunners.size < 100) rowRunners.set(id, runner);
  }
  return runner;
}

/**
 * Upserts rows on `key`, in order: a new key is inserted; an existing one is replaced unless
 * the stored version is newer (`versionColumn`), the `keepOnUpdate` columns kept. A key given
 * twice is written twice, in order (so the newer of the two versions stays). Returns what
 * happened to each row (inserted, updated or kept: they add up to `rows.length`) and the
 * rows written, for the search documents.
 *
 * SQLite: prepared statements (cached per connection) run row by row inside the caller's
 * transaction, `changes` telling what happened: `insert … on conflict do nothing`, then for an
 * existing key `update … where` the stored version is not newer. PostgreSQL: `insert … select
 * from unnest(…) on conflict do update … where … returning (xmax = 0)`, which tells a new row
 * from a replaced one; a row not returned was kept.
 */
export async function upsertRows<Row extends object>(
  trx: Knex.Transaction,
  table: string,
  key: string | string[],
  rows: readonly Row[],
  options: UpsertOptions = {},
): Promise<UpsertOutcome<Row>> {
  const outcome: UpsertOutcome<Row> = { inserted: 0, updated: 0, kept: 0, applied: [] };
  if (!rows.length) return outcome;
  const keys = Array.isArray(key) ? key : [key];
  const columns = Object.keys(rows[0] as object);
  for (const k of keys) if (!columns.includes(k)) throw new Error(`upsertRows ${table} : clé ${k} absente des lignes.`);
  const keep = options.keepOnUpdate ?? [];
  const update = columns.filter((c) => !keys.includes(c) && !keep.includes(c));
  const version = options.versionColumn;
  if (version && !columns.includes(version)) throw new Error(`upsertRows ${table} : colonne de version ${version} absente des lignes.`);
  if (kindOf(trx) === 'sqlite') {
    const t = quoteIdentifier(table);
    const insertSql = `insert into ${t} (${columns.map(quoteIdentifier).join(', ')}) values (${columns.map(() => '?').join(', ')}) on conflict (${keys.map(quoteIdentifier).join(', ')}) do nothing`;
    const where = [...keys.map((k) => `${quoteIdentifier(k)} = ?`), ...(version ? [`coalesce(${quoteIdentifier(version)}, '') <= coalesce(?, '')`] : [])].join(' and ');
    const updateSql = update.length ? `update ${t} set ${update.map((c) => `${quoteIdentifier(c)} = ?`).join(', ')} where ${where}` : null;
    await withSqlite(trx, (conn) => {
      const insert = statement(conn, insertSql);
      const replace = updateSql ? statement(conn, updateSql) : null;
      const runInsert = rowRunner(columns);
      // The update's arguments: the new values, the key, then the version compared.
      const runUpdate = rowRunner([...update, ...keys, ...(version ? [version] : [])]);
      for (const row of inKeyOrder(rows, keys)) {
        const r = row as Record<string, unknown>;
        if (runInsert(insert, r).changes) {
          outcome.inserted += 1;
          outcome.applied.push(row);
          continue;
        }
        if (!replace) {
          outcome.updated += 1;
          continue;
        }
        if (runUpdate(replace, r).changes) {
          outcome.updated += 1;
          outcome.applied.push(row);
        } else {
          outcome.kept += 1;
        }
      }
    });
    return outcome;
  }
  // PostgreSQL: one statement cannot touch a row twice, so the n-th occurrence of each key
  // goes in the n-th round (one round when keys are unique, as they usually are).
  // One key (most tables): its text, without an array per row.
  const [only] = keys;
  const keyOf =
    keys.length === 1 ? (row: object) => String((row as Record<string, unknown>)[only as string]) : (row: object) => keys.map((k) => String((row as Record<string, unknown>)[k])).join('\u0000');
  const rounds: Row[][] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    const id = keyOf(row);
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    (rounds[n] ??= []).push(row);
  }
  const types = await columnTypes(trx, table, columns);
  const t = quoteIdentifier(table);
  const keyList = keys.map(quoteIdentifier).join(', ');
  // A key without other columns to update is still "replaced" (as on SQLite): a no-op update returns it.
  const set = (update.length ? update : keys).map((c) => `${quoteIdentifier(c)} = excluded.${quoteIdentifier(c)}`).join(', ');
  // An older version never replaces a newer one.
  const where = version ? ` where coalesce(${t}.${quoteIdentifier(version)}, '') <= coalesce(excluded.${quoteIdentifier(version)}, '')` : '';
  const sql = `${unnestInsert(table, columns, types)} on conflict (${keyList}) do update set ${set}${where} returning ${keyList}, (xmax = 0) as inserted`;
  for (const round of rounds) {
    await pipelined(
      chunksOf(round, UNNEST_ROWS),
      (chunk) => columnArrays(chunk, columns),
      async (arrays) => (await trx.raw(sql, arrays)).rows as Record<string, unknown>[],
      (returned, chunk) => {
        const byKey = new Map(chunk.map((row) => [keyOf(row), row]));
        for (const r of returned) {
          if (r.inserted) outcome.inserted += 1;
          else outcome.updated += 1;
          const row = byKey.get(keyOf(r));
          if (row) outcome.applied.push(row);
        }
        outcome.kept += chunk.length - returned.length;
      },
    );
  }
  return outcome;
}

/**
 * Rows per statement on PostgreSQL: the rows travel as one array per column (`unnest`), so
 * a statement has as many parameters as columns whatever its rows, and nothing is compiled
 * per row (a multi-row VALUES of 500 rows cost Knex more than the database its insert).
 * A batch goes in several statements so that the next one's arrays are built while the
 * database runs the one before (`pipelined`).
 */
const UNNEST_ROWS = 2500;

function chunksOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** The SQL types of a table's columns (cached: the migrations fix them), for the arrays' casts. */
const typeCache = new Map<string, Map<string, string>>();

async function columnTypes(trx: Knex.Transaction, table: string, columns: readonly string[]): Promise<Map<string, string>> {
  let types = typeCache.get(table);
  if (!types || columns.some((c) => !types?.has(c))) {
    const { rows } = await trx.raw('select attname as name, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = to_regclass(?) and attnum > 0 and not attisdropped', [
      quoteIdentifier(table),
    ]);
    types = new Map((rows as { name: string; type: string }[]).map((r) => [r.name, r.type]));
    typeCache.set(table, types);
  }
  for (const c of columns) if (!types.has(c)) throw new Error(`upsertRows ${table} : colonne ${c} inconnue.`);
  return types;
}

/** `insert into table (columns) select * from unnest($1::type[], …)`: the rows as one array per column. */
function unnestInsert(table: string, columns: readonly string[], types: Map<string, string>): string {
  const list = columns.map(quoteIdentifier).join(', ');
  const arrays = columns.map((c) => `?::${types.get(c)}[]`).join(', ');
  return `insert into ${quoteIdentifier(table)} (${list}) select * from unnest(${arrays}) as u(${list})`;
}

/** Inserts rows, ignoring those whose key already exists (row by row on SQLite, in chunks on PostgreSQL). */
export async function insertIgnoring(trx: Knex.Transaction, table: string, key: string | string[], rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const keys = Array.isArray(key) ? key : [key];
  const columns = Object.keys(rows[0] as object);
  if (kindOf(trx) === 'sqlite') {
    const sql = `insert into ${quoteIdentifier(table)} (${columns.map(quoteIdentifier).join(', ')}) values (${columns.map(() => '?').join(', ')}) on conflict (${keys.map(quoteIdentifier).join(', ')}) do nothing`;
    await withSqlite(trx, (conn) => {
      const insert = statement(conn, sql);
      const runInsert = rowRunner(columns);
      for (const row of rows) runInsert(insert, row);
    });
    return;
  }
  const types = await columnTypes(trx, table, columns);
  const sql = `${unnestInsert(table, columns, types)} on conflict (${keys.map(quoteIdentifier).join(', ')}) do nothing`;
  await pipelined(chunksOf(rows, UNNEST_ROWS), (chunk) => columnArrays(chunk, columns), (arrays) => trx.raw(sql, arrays));
}

/**
 * The `columns` of the rows whose `column` is one of `values`. PostgreSQL: one statement,
 * the values as one array parameter (`= any(?::text[])`): lists of 900 bound values, each
 * statement parsed and planned anew, made 2,313 + 1,163 + 1,163 reads for the
 * establishments at factor 0.1 of the national set. SQLite: 900 at a time (its bound
 * parameters' limit). `also`: columns the rows must equal besides.
 */
export async function rowsWhereIn<Row>(
  trx: Knex,
  table: string,
  column: string,
  values: readonly string[],
  columns: readonly string[],
  also: Readonly<Record<string, string | number | boolean>> = {},
): Promise<Row[]> {
  if (!values.length) return [];
  if (kindOf(trx) !== 'sqlite') return (await trx(table).whereRaw('?? = any(?::text[])', [column, values as string[]]).where(also).select(...columns)) as Row[];
  const rows: Row[] = [];
  for (let i = 0; i < values.length; i += 900) for (const row of await trx(table).whereIn(column, values.slice(i, i + 900)).where(also).select(...columns)) rows.push(row as Row);
  return rows;
}

/**
 * Deletes the rows whose `column` is one of `values`. PostgreSQL: one statement, the values
 * as one array parameter (`= any(?::text[])`; text, so that no value is cut to the column's
 * length): the BODACC import's 230 statements of 900 bound parameters each (`in (…)`, parsed
 * and planned each time) took 7.3 s of a 92 s import with nothing to delete. SQLite: 900 at a
 * time (its bound parameters' limit), in-process and cheap.
 */
export async function deleteWhereIn(trx: Knex.Transaction, table: string, column: string, values: readonly string[]): Promise<void> {
  if (!values.length) return;
  if (kindOf(trx) === 'sqlite') {
    for (let i = 0; i < values.length; i += 900) await trx(table).whereIn(column, values.slice(i, i + 900)).delete();
    return;
  }
  await trx.raw(`delete from ${quoteIdentifier(table)} where ${quoteIdentifier(column)} = any(?::text[])`, [values as string[]]);
}
