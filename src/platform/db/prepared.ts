// Hot-path reads on PostgreSQL as prepared statements: each SQL text is parsed and planned
// once per connection, then only bound and run. Knex sends every query unprepared, so
// PostgreSQL parses and plans it at every call, and node-postgres asks for its row
// description each time: measured on the demo set (a 10-key lookup joined to its buyer,
// 1,000 runs, loaded machine), 0.58–0.85 ms of the service's CPU and 0.61–0.72 ms of
// PostgreSQL's per statement through Knex, 0.15–0.32 ms and 0.22–0.24 ms prepared.
// For key lookups and calls of a function only: a prepared statement may keep one generic
// plan for every value, which suits `where key in (…)` and not a full-text or a range
// query whose best plan depends on the values. SQLite, and a transaction (its own
// connection), run the query as Knex does.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { kindOf, type Database } from './database.js';

interface PgConnection {
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/** Statement names by SQL text (a few dozen texts: one per query and number of keys). */
const names = new Map<string, string>();
const MAX_NAMES = 2000;

function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    // The text's digest: two texts never share a name on a connection (node-postgres refuses that).
    name = `p_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(text, name);
  }
  return name;
}

/**
 * The rows of a PostgreSQL statement given as text ($1, $2… parameters), as a named
 * statement prepared once per connection: on one of Knex's connections, or inside
 * `db.transaction` on the transaction's own connection (so it reads its uncommitted rows).
 * For a statement written for PostgreSQL alone (a joined read whose planning cost more
 * than its run).
 */
export async function preparedText<T>(db: Database, text: string, values: readonly unknown[]): Promise<T[]> {
  const conn = (await db.client.acquireConnection()) as PgConnection;
  try {
    return (await conn.query({ name: nameOf(text), text, values })).rows as T[];
  } finally {
    await db.client.releaseConnection(conn);
  }
}

/** The rows of a select built with Knex, prepared once per connection on PostgreSQL. */
export async function preparedRows<T>(db: Database, query: Knex.QueryBuilder): Promise<T[]> {
  if (kindOf(db) !== 'postgres' || db.isTransaction) return (await query) as T[];
  const { sql, bindings } = query.toSQL().toNative();
  return preparedText<T>(db, sql, bindings);
}

/**
 * The rows of several selects built with Knex, in one prepared statement on PostgreSQL:
 * each select becomes a JSON array of its rows (`json_agg`), so the page of a search reads
 * its records and everything shown with them in one round trip rather than one per table.
 * Only for selects whose columns are text, integer (int4), double precision or boolean,
 * which come back through JSON as node-postgres would give them, and whose callers do not
 * depend on the rows' order (an aggregate's input order is not promised): sort in the
 * caller when it matters. SQLite, and a transaction, run each select in turn.
 */
export async function preparedRowsTogether(db: Database, queries: readonly Knex.QueryBuilder[]): Promise<Record<string, unknown>[][]> {
  if (kindOf(db) !== 'postgres' || db.isTransaction) return rowsInTurn(queries);
  const { text, values } = togetherStatement(queries);
  return rowsOfTogether(db, text, values, queries.length);
}

async function rowsInTurn(queries: readonly Knex.QueryBuilder[]): Promise<Record<string, unknown>[][]> {
  const out: Record<string, unknown>[][] = [];
  for (const query of queries) out.push((await query) as Record<string, unknown>[]);
  return out;
}

/** The one statement of `preparedRowsTogether`: each select as a JSON array of its rows. */
function togetherStatement(queries: readonly Knex.QueryBuilder[]): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const columns = queries.map((query, i) => {
    const { sql, bindings } = query.toSQL().toNative();
    const offset = values.length;
    values.push(...bindings);
    // Knex numbers each select's parameters from $1: renumbered after the previous ones'.
    const text = sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return `(select coalesce(json_agg(t), '[]'::json) from (${text}) t) as r${i}`;
  });
  return { text: `select ${columns.join(', ')}`, values };
}

async function rowsOfTogether(db: Database, text: string, values: readonly unknown[], count: number): Promise<Record<string, unknown>[][]> {
  const [row] = await preparedText<Record<string, Record<string, unknown>[]>>(db, text, values);
  return Array.from({ length: count }, (_, i) => row?.[`r${i}`] ?? []);
}

/** A statement of `preparedRowsTogetherOf`: its text, and for each value the parameter it takes (its index) or its own constant. */
interface Template {
  text: string;
  values: ({ param: number } | { constant: unknown })[];
  count: number;
}
const templates = new Map<string, Template>();

/**
 * `preparedRowsTogether(db, build(params))` for a read of fixed shape called at every
 * request (a record): on PostgreSQL, `build` runs and Knex compiles once per `name`, with
 * stand-ins for the params, then each call only binds its params. `build` must give the same
 * selects whatever the params (no branch, filter or dedupe on them) and put them in
 * bindings only. Building and compiling a record's five selects cost more of the service's
 * CPU than running their prepared statement (demo set, loaded machine: 0.41–0.66 ms per
 * call built each time, 0.15–0.17 ms bound to the compiled text).
 */
export async function preparedRowsTogetherOf(
  db: Database,
  name: string,
  build: (params: readonly string[]) => Knex.QueryBuilder[],
  params: readonly string[],
): Promise<Record<string, unknown>[][]> {
  if (kindOf(db) !== 'postgres' || db.isTransaction) return rowsInTurn(build(params));
  let template = templates.get(name);
  if (!template) {
    const standIns = params.map((_, i) => `\u0000param ${i}\u0000`);
    const queries = build(standIns);
    const { text, values } = togetherStatement(queries);
    if (standIns.some((s) => text.includes(s))) throw new Error(`${name} : un paramètre figure dans le texte de la requête`);
    template = { text, count: queries.length, values: values.map((v) => (typeof v === 'string' && standIns.includes(v) ? { param: standIns.indexOf(v) } : { constant: v })) };
    templates.set(name, template);
  }
  const values = template.values.map((v) => ('param' in v ? params[v.param] : v.constant));
  return rowsOfTogether(db, template.text, values, template.count);
}
