// A cache of search pages (the keys of a page, whether more follow, the capped count), exact:
// an entry is keyed by the whole question — the domain's filtered query as SQL with its
// bound values, the normalised words, the order, the page — and by a version of the data it
// was read from, and that version changes with every committed write to a table the query
// reads, whichever process wrote it. The records themselves are read fresh on every call.
// That version is `search_data_versions`, one counter per searched table, on both engines;
// a query reading a table without a counter is not cached.
// - PostgreSQL: bumped at the commit of every transaction that wrote the table (statement
//   triggers, migration 0030).
// - SQLite: bumped by every row written, in the writer's transaction (row triggers,
//   migration 0032); a full-text index is counted through its keys table. A write to
//   another table (the quota log of every admitted call) leaves the cache alone, also in
//   the other processes on the same file: keyed by the file's change stamp instead, the
//   processes emptied each other's caches at every call (2-9 % of hits instead of 28-65 %).
// Reading the version before the search makes it exact: an answer is stored under the
// version read before it was computed, so it holds every write committed by then, and a
// write committed later bumps the version for every call that starts after it.
// Concurrent calls asking the same question at the same version share one computation.
// PostgreSQL: at most MISSES_AT_ONCE computations run at once per process, the next waiting
// their turn in order (below).
// PostgreSQL: what a process computes is also stored in the database
// (`search_cache_entries`, under a hash of the same key) and read by any process whose own
// cache misses the question: several API processes, on one machine or several, and a
// process just restarted, compute each question once between them rather than once each.
// Entries are swept some time after they were stored (`sweepSharedSearchCache`).
// Inside a transaction (which sees its own uncommitted writes), nothing is cached.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Knex } from 'knex';
import { Bulkhead } from '../bulkhead.js';
import { kindOf } from '../db/database.js';
import { preparedRows, preparedText } from '../db/prepared.js';
import { statement, withSqlite } from '../db/statements.js';

/** Entries per database: a page holds at most MAX_SEARCH_DEPTH keys, a common page 10 to 50 (a few KiB each). */
const MAX_ENTRIES = 5000;

/**
 * PostgreSQL: the computations (questions the cache cannot answer) running at once in a
 * process, twice its cores. A broad question's statements hold a core of the database for
 * tens to hundreds of milliseconds; ten of them at once (the operation's share of the pool)
 * slowed each other and the calls the cache answers, whose statements waited behind them
 * for the same cores. Measured on the large set, one process, 20 connections,
 * five runs each: p99 of `entreprises.search` 279–334 → 254–302 ms, of
 * `attributions.search` 232–332 → 229–278 ms, of `bodacc.search` 272–322 → 191–266 ms,
 * calls per second within the noise; with two at once, every figure was lower. SQLite
 * needs none: its reading threads (or its one connection) already bound them.
 */
export const MISSES_AT_ONCE = availableParallelism() * 2;
/** How long a computation waits for its turn before the call is refused (503, as the pool's own bulkhead). */
const MISS_WAIT_MS = 30_000;
/** Set while a computation runs: a question it asks in turn (a shared ranking) does not wait for a second turn, which could never come. */
const insideComputation = new AsyncLocalStorage<true>();

/** PostgreSQL: how long an entry of the shared cache is kept after it was stored (then swept). */
export const SHARED_ENTRY_KEPT_MS = 15 * 60_000;
/** A value longer than this (as JSON: a ranking of tens of thousands of matches) stays in its process. */
const SHARED_MOST_CHARS = 1_000_000;

interface Counters {
  hits: number;
  misses: number;
  /** Of the hits, those read from the cache shared by the processes (PostgreSQL). */
  shared: number;
}

/** Per search index: calls answered from the cache (or from a computation already running) and computed. */
const counters = new Map<string, Counters>();

export function searchCacheStats(): Record<string, Counters> {
  return Object.fromEntries([...counters].map(([name, c]) => [name, { ...c }]));
}

function count(index: string, answer: 'hit' | 'shared' | 'miss'): void {
  let c = counters.get(index);
  if (!c) counters.set(index, (c = { hits: 0, misses: 0, shared: 0 }));
  if (answer === 'miss') c.misses += 1;
  else c.hits += 1;
  if (answer === 'shared') c.shared += 1;
}

interface Store {
  entries: Map<string, unknown>;
  running: Map<string, Promise<unknown>>;
  /** PostgreSQL: the turns of the computations (`MISSES_AT_ONCE`). */
  turns?: Bulkhead;
  /** The searched tables that have a version counter (read once). */
  versioned?: Promise<Set<string>>;
  /** PostgreSQL: whether the database has the shared cache's table (read once). */
  shared?: Promise<boolean>;
}
const stores = new WeakMap<Knex, Store>();

function storeOf(db: Knex): Store {
  let store = stores.get(db);
  if (!store) stores.set(db, (store = { entries: new Map(), running: new Map(), turns: kindOf(db) === 'postgres' ? new Bulkhead(MISSES_AT_ONCE, MISS_WAIT_MS) : undefined }));
  return store;
}

const TABLE = /\b(?:from|join)\s+["`]([a-z_][a-z0-9_]*)["`]/gi;

/** The tables an SQL text reads (`from "t"` and `join "t"`, quoted by either engine, subqueries included). */
export function tablesOf(sql: string): string[] {
  const names = new Set<string>();
  for (const m of sql.matchAll(TABLE)) names.add((m[1] as string).toLowerCase());
  return [...names].sort();
}

async function versionedTables(db: Knex, store: Store): Promise<Set<string>> {
  store.versioned ??= (async () => {
    try {
      const rows = (await db('search_data_versions').select('name')) as { name: string }[];
      return new Set(rows.map((r) => r.name));
    } catch {
      // Before the migration (or a database without it): nothing is cached.
      return new Set<string>();
    }
  })();
  return store.versioned;
}

async function hasSharedCache(db: Knex, store: Store): Promise<boolean> {
  if (kindOf(db) !== 'postgres') return false;
  store.shared ??= db
    .raw(`select to_regclass('search_cache_entries') is not null as present`)
    .then((r: { rows: { present: boolean }[] }) => !!r.rows[0]?.present)
    .catch(() => false);
  return store.shared;
}

/**
 * The form of the values the processes share: changed with the form of a cached page or
 * ranking, so that during a rolling upgrade no process reads a value written by another
 * version of the code.
 */
const SHARED_FORM = 'page-1';
/** The shared cache's key: a hash of the values' form and the process cache's key (version and whole question), a fixed 64 characters. */
const sharedKey = (key: string) => createHash('sha256').update(SHARED_FORM).update('\u0000').update(key).digest('hex');

/**
 * The value another process (or this one, before a restart) stored for the key, or
 * undefined. A failed read is a miss: the question is computed, as without the table.
 */
async function readShared<T>(db: Knex, key: string): Promise<T | undefined> {
  try {
    const [row] = await preparedText<{ value: string }>(db, 'select value from search_cache_entries where key = $1', [sharedKey(key)]);
    return row ? (JSON.parse(row.value) as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a computed value for the other processes; a value already there (computed at once elsewhere) is kept. A failed write only costs them the computation. */
async function writeShared(db: Knex, key: string, value: unknown): Promise<void> {
  const text = JSON.stringify(value);
  if (text === undefined || text.length > SHARED_MOST_CHARS) return;
  try {
    await preparedText(db, 'insert into search_cache_entries (key, value) values ($1, $2) on conflict (key) do nothing', [sharedKey(key), text]);
  } catch {
    // Nothing: the answer is already computed.
  }
}

/** PostgreSQL: deletes the shared cache's entries stored before `before`; returns how many (0 elsewhere). */
export async function sweepSharedSearchCache(db: Knex, before: Date): Promise<number> {
  if (!(await hasSharedCache(db, storeOf(db)))) return 0;
  const result = (await db.raw('delete from search_cache_entries where stored_at < ?', [before])) as { rowCount: number };
  return result.rowCount;
}

/** PostgreSQL: deletes every entry of the shared cache, for a measure that starts with nothing computed (nothing elsewhere, or before the migration). */
export async function emptySharedSearchCache(db: Knex): Promise<void> {
  if (await hasSharedCache(db, storeOf(db))) await db.raw('truncate search_cache_entries');
}

/** SQLite: one text for any list of names, so one prepared statement per connection. */
const SQLITE_VERSIONS_SQL = 'select name, version from search_data_versions where name in (select value from json_each(?))';

/** The version of the data some tables hold, and of any part of them, read once. */
export interface DataVersion {
  /** The version of these tables (some of those read); throws for a table not read. */
  of(tables: readonly string[]): string;
}

/** The version of the data these tables hold; null when one of them has none (not cacheable), or inside a transaction. */
export async function searchDataVersion(db: Knex, tables: readonly string[]): Promise<DataVersion | null> {
  if (db.isTransaction) return null;
  const store = storeOf(db);
  const versioned = await versionedTables(db, store);
  if (!tables.every((t) => versioned.has(t))) return null;
  const names = [...new Set(tables)].sort();
  // Read at every search call: prepared (one statement per connection on SQLite, preparedRows on PostgreSQL).
  const rows =
    kindOf(db) === 'sqlite'
      ? await withSqlite(db, (conn) => statement(conn, SQLITE_VERSIONS_SQL).all(JSON.stringify(names)) as { name: string; version: number }[])
      : await preparedRows<{ name: string; version: string | number }>(db, db('search_data_versions').whereIn('name', names).select('name', 'version'));
  const versions = new Map(rows.map((r) => [r.name, String(r.version)]));
  if (!tables.every((t) => versions.has(t))) return null;
  return {
    of: (some) =>
      [...new Set(some)]
        .sort()
        .map((t) => {
          const v = versions.get(t);
          if (v === undefined) throw new Error(`Version de ${t} non lue.`);
          return `${t}:${v}`;
        })
        .join(','),
  };
}

/**
 * The answer of `compute` for `question`, from the cache when the same question was answered
 * at the same `version` (from `searchDataVersion`, read before: null computes without the
 * cache). `index` names the counters.
 */
export async function cachedSearch<T>(db: Knex, index: string, version: string | null, question: string, compute: () => Promise<T>): Promise<T> {
  if (version === null) return compute();
  const store = storeOf(db);
  const key = `${version}\u0000${question}`;
  if (store.entries.has(key)) {
    const value = store.entries.get(key) as T;
    // Most recently used last: the oldest entries go first when the cache is full.
    store.entries.delete(key);
    store.entries.set(key, value);
    count(index, 'hit');
    return value;
  }
  const running = store.running.get(key) as Promise<T> | undefined;
  if (running) {
    count(index, 'hit');
    return running;
  }
  // Read inside the computation's context: a question asked inside another computation
  // takes no second turn.
  const inside = !!insideComputation.getStore();
  const computing = (async () => {
    const sharing = await hasSharedCache(db, store);
    const shared = sharing ? await readShared<T>(db, key) : undefined;
    if (shared !== undefined) {
      count(index, 'shared');
      return shared;
    }
    count(index, 'miss');
    const turns = inside ? undefined : store.turns;
    const value = await (turns ? turns.run('recherche', () => insideComputation.run(true, compute)) : compute());
    if (sharing) await writeShared(db, key, value);
    return value;
  })();
  store.running.set(key, computing);
  try {
    const value = await computing;
    if (store.entries.size >= MAX_ENTRIES) store.entries.delete(store.entries.keys().next().value as string);
    store.entries.set(key, value);
    return value;
  } finally {
    store.running.delete(key);
  }
}
