// One page of a domain's search: by relevance then newest then key when words are given, by
// newest then key otherwise, with a capped count. The domain gives its query with its
// filters; this module picks how to rank it:
// - words: the count reads the records passing the filters (if any) up to its cap, with
//   their rank; below the cap they are all the records of the answer, ordered alone;
// - at the cap, the best matches of the index (`bestMatches`), widened until enough pass
//   the filters (the first of them that pass are the first overall: a match outside the
//   best read ranks below every one read), and only for rare passes the whole join ranked
//   by the database;
// - words read among a list of the filter's keys (SQLite, `among`): the database ranks,
//   orders and counts the passing records in one statement;
// - no words: the filters and the date order, in the database.
// Measured on the large demo set (2 cores, SQLite): a two-word query matching 30,000 posts
// took 160–250 ms through the whole join, ranked by the database, and takes a few
// milliseconds through the index.
// Every page goes through the exact result cache (search-cache.ts), keyed by the domain's
// query as SQL with its values, the normalised words and the page.
import type { Knex } from 'knex';
import { cachedSearch, searchDataVersion, tablesOf, type DataVersion } from './search-cache.js';
import { kindOf } from '../db/database.js';
import { offLoop } from '../db/sqlite-readers.js';
import { bestMatches, countMatches, matchingRecords, orderByRelevance, searchIndexTable, searchMatches, type SearchHit, type SearchIndex } from './full-text.js';
import type { ParsedQuery } from './query-syntax.js';

export interface SearchPageSpec {
  index: SearchIndex;
  /** The domain's table under an alias, with its filters applied: no select, no order. */
  base: Knex.QueryBuilder;
  /**
   * The record's key, qualified (`d.id`): the search documents' key. For an index whose
   * documents are in the records' table (`postgresRecords`), `base` reads that table under
   * this alias.
   */
  key: string;
  /** The column ordering equal ranks and unranked results (a date, latest first), qualified; nulls last. */
  then: { column: string; order: 'asc' | 'desc' };
  /** Whether a filter narrows `base`. */
  filtered: boolean;
  /**
   * A query of one column listing the key of every record `base` lets through (and maybe
   * others; a key may be listed more than once), cheap to list: the records of a department.
   * On SQLite the matches are read among these keys when the words match more documents
   * than a share of the list (`readsAmongListed`); the answer is the same either way.
   */
  among?: Knex.QueryBuilder;
  /**
   * PostgreSQL: values of the index's lists (`postgresLists`) one of which every record
   * `base` lets through has in its document's list (the department asked for, among the
   * departments of a company's establishments): the matches are read among the documents
   * listing them, in the index. `base` keeps the filter: the answer is the same either way.
   */
  narrow?: Readonly<Record<string, readonly string[]>>;
}

export interface SearchPage {
  keys: string[];
  hasMore: boolean;
  /** Results counted up to `countCap`. */
  total: number;
}

/** Matches read first for a filtered page, per result wanted; then as many as the share passing asks for, up to WIDEST. */
const FIRST_READ_PER_RESULT = 4;
const WIDEST = 20_000;
/** Hits per statement of `passing` (whole groups of equal rank, so a large tie may make more). */
const BATCH = 4000;

/**
 * SQLite: the matches are read among the listed keys (`among`) when the words match more
 * than one document per LISTED_PER_MATCH listed keys. Measured on the large set (a
 * department's active establishments listing their companies): gathering the list costs
 * about 0.3 µs a listed key, a match checked against it 5 µs, a match checked against its
 * records 10 to 20 µs. Past LISTED_MOST listed keys the list is never read.
 */
export const LISTED_PER_MATCH = 6;
const LISTED_MOST = 100_000;
/** Words matching this many documents or fewer are never read among a list: checking each match costs a few milliseconds. */
export const FEWEST_MATCHES = 500;

/**
 * Whether to read the matches among the listed keys (SQLite, `spec.among`) rather than
 * every match: when the words match more documents than the list holds keys per
 * LISTED_PER_MATCH, and more than FEWEST_MATCHES. Both sides counted cheaply: the list up to
 * LISTED_MOST (cached at the data's version, shared by every question with the same list),
 * the matches in the index alone, no further than the threshold.
 */
export async function readsAmongListed(db: Knex, parsed: ParsedQuery, spec: SearchPageSpec, version: DataVersion | null): Promise<boolean> {
  if (!spec.among || kindOf(db) !== 'sqlite') return false;
  const among = spec.among;
  const { sql, bindings } = among.toSQL();
  const listed = await cachedSearch(db, `${spec.index.name}:listed`, version?.of(tablesOf(sql)) ?? null, JSON.stringify([sql, bindings]), async () => {
    const [row] = (await db.count<{ n: number | string }[]>('* as n').from(among.clone().limit(LISTED_MOST).as('listed'))) as { n: number | string }[];
    return Number(row?.n ?? 0);
  });
  if (listed >= LISTED_MOST) return false;
  // One count of the words' matches, no further than the threshold.
  const threshold = Math.max(FEWEST_MATCHES, Math.floor(listed / LISTED_PER_MATCH));
  return (await countMatches(db, spec.index, parsed, threshold + 1)) > threshold;
}

/**
 * The first `want` hits that are records passing the filters, in the page's order: rank
 * (best first), the `then` column (nulls last), key in byte order. The hits go to the
 * database in batches of whole rank groups, best first, each with its group's place (an
 * integer, not the rank: no float crosses a JSON parser), and the database orders and
 * limits each batch; a batch ranks below every earlier one, so the first batches that give
 * `want` records give the answer. A tie of thousands of matches (notices of one template)
 * costs one sorted statement, not thousands of rows brought back to be sorted here.
 */
async function passing(db: Knex, spec: SearchPageSpec, hits: readonly SearchHit[], want: number): Promise<string[]> {
  const sorted = [...hits].sort((a, b) => b.rank - a.rank);
  const postgres = kindOf(db) === 'postgres';
  const out: string[] = [];
  let group = 0;
  for (let i = 0; i < sorted.length && out.length < want; ) {
    const batch: { k: string; g: number }[] = [];
    while (i < sorted.length && (batch.length < BATCH || (sorted[i] as SearchHit).rank === (sorted[i - 1] as SearchHit).rank)) {
      if (i > 0 && (sorted[i] as SearchHit).rank !== (sorted[i - 1] as SearchHit).rank) group += 1;
      batch.push({ k: (sorted[i] as SearchHit).key, g: group });
      i += 1;
    }
    const json = JSON.stringify(batch);
    // The hits drive the statement (one lookup of the record each): SQLite would otherwise
    // scan the filter's index and look each record up in the list (a minute for 500,000
    // announcements), hence its CROSS JOIN, which keeps the list first.
    const records = spec.base.clone().select({ k: spec.key, t: spec.then.column });
    const order = `${spec.then.order} nulls last`;
    const query = postgres
      ? db
          .select('b.k')
          .from(db.raw('json_to_recordset(?::json) as j(k text, g integer)', [json]))
          .join(records.as('b'), 'b.k', 'j.k')
          .orderByRaw(`j.g asc, b.t ${order}, b.k collate "C"`)
      : db
          .select('b.k')
          .from(db.raw('json_each(?) as j', [json]))
          .joinRaw("cross join (?) as b on b.k = json_extract(j.value, '$.k')", [records as unknown as Knex.Raw])
          .orderByRaw(`json_extract(j.value, '$.g') asc, b.t ${order}, b.k`);
    const rows = (await query.limit(want - out.length)) as { k: string }[];
    for (const r of rows) out.push(r.k);
  }
  return out;
}

interface RankedRecord {
  k: string;
  rank: number;
  t: unknown;
}

/**
 * SQLite's order of two values of the `then` column: NULL, then numbers, then text (compared
 * byte by byte in UTF-8, its BINARY collation), then blobs. JavaScript compares strings by
 * UTF-16 code units, which differs from UTF-8's order only between a surrogate (a code
 * point above U+FFFF) and U+E000–U+FFFF: those are moved into place.
 */
function compareSqlite(a: unknown, b: unknown): number {
  const kind = (v: unknown) => (v === null || v === undefined ? 0 : typeof v === 'number' || typeof v === 'bigint' ? 1 : typeof v === 'string' ? 2 : 3);
  const ka = kind(a);
  const kb = kind(b);
  if (ka !== kb) return ka - kb;
  if (ka === 1) return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
  if (ka === 2) return compareUtf8(a as string, b as string);
  if (ka === 3) return Buffer.compare(a as Buffer, b as Buffer);
  return 0;
}

function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      // Surrogates after U+E000–U+FFFF, as their code points are in UTF-8.
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/**
 * Every record of an answer, in the page's order: rank (best first), the `then` column
 * (nulls last), key in byte order — the order `passing` asks the database for.
 */
function inPageOrder(rows: readonly RankedRecord[], order: 'asc' | 'desc'): string[] {
  const seen = new Set<string>();
  const unique = rows.filter((r) => !seen.has(r.k) && !!seen.add(r.k));
  const direction = order === 'desc' ? -1 : 1;
  unique.sort((a, b) => {
    if (a.rank !== b.rank) return b.rank - a.rank;
    const aNull = a.t === null || a.t === undefined;
    const bNull = b.t === null || b.t === undefined;
    if (aNull !== bNull) return aNull ? 1 : -1;
    const byThen = aNull ? 0 : compareSqlite(a.t, b.t) * direction;
    return byThen || compareUtf8(a.k, b.k);
  });
  return unique.map((r) => r.k);
}

/**
 * The records passing the filters that match the words, as `{ k, rank }` plus `extra`
 * columns: on PostgreSQL, for an index whose documents are in the records' table
 * (`postgresRecords`, whose key `spec.key` names under the alias `base` reads the table by),
 * in one scan of the table (`matchingRecords`); otherwise the domain's query joined to the
 * matches.
 */
function rankedRecords(db: Knex, parsed: ParsedQuery, spec: SearchPageSpec, among: Knex.QueryBuilder | undefined, extra: Record<string, string> = {}): Knex.QueryBuilder {
  const [alias, column] = spec.key.split('.');
  const direct = alias && column === spec.index.postgresRecords?.key ? matchingRecords(db, spec.index, parsed, spec.base.clone(), alias) : undefined;
  if (direct) return direct.records.select({ k: spec.key, ...extra }, direct.rank);
  return spec.base
    .clone()
    .join(searchMatches(db, spec.index, parsed, { among, narrow: spec.narrow }).as('m'), 'm.key', spec.key)
    .select({ k: spec.key, rank: 'm.rank', ...extra });
}

export async function searchPage(db: Knex, parsed: ParsedQuery | null, spec: SearchPageSpec, page: { offset: number; limit: number; countCap: number }): Promise<SearchPage> {
  const { sql, bindings } = spec.base.toSQL();
  const question = JSON.stringify([spec.index.name, sql, bindings, parsed?.canonical ?? null, spec.key, spec.then, spec.filtered, page.offset, page.limit, page.countCap]);
  const tables = [...tablesOf(sql), ...(spec.among ? tablesOf(spec.among.toSQL().sql) : []), searchIndexTable(db, spec.index)];
  const version = await searchDataVersion(db, tables);
  // SQLite: computed in the reading threads when the database has some, off the event loop.
  const found = await cachedSearch(db, spec.index.name, version?.of(tables) ?? null, question, () => offLoop(db, () => computePage(db, parsed, spec, page, version)));
  // A copy: the cached answer is shared by every call.
  return { ...found, keys: [...found.keys] };
}

async function computePage(
  db: Knex,
  parsed: ParsedQuery | null,
  spec: SearchPageSpec,
  page: { offset: number; limit: number; countCap: number },
  version: DataVersion | null,
): Promise<SearchPage> {
  const wanted = page.offset + page.limit + 1;
  const slice = (keys: string[]) => {
    const window = keys.slice(page.offset, page.offset + page.limit + 1);
    return { keys: window.slice(0, page.limit), hasMore: window.length > page.limit };
  };
  const counted = async (query: Knex.QueryBuilder) => {
    const [row] = (await db.count<{ n: number | string }[]>('* as n').from(query.select(spec.key).limit(page.countCap).as('capped'))) as { n: number | string }[];
    return Number(row?.n ?? 0);
  };

  if (!parsed) {
    const rows = (await spec.base
      .clone()
      .select({ k: spec.key })
      .orderByRaw(`?? ${spec.then.order} nulls last, ??${kindOf(db) === 'postgres' ? ' collate "C"' : ''}`, [spec.then.column, spec.key])
      .offset(page.offset)
      .limit(page.limit + 1)) as { k: string }[];
    const keys = rows.map((r) => r.k);
    return { keys: keys.slice(0, page.limit), hasMore: keys.length > page.limit, total: await counted(spec.base.clone()) };
  }

  // One statement counts the records passing the filters up to the cap and ranks them (bm25
  // or ts_rank computed for the passing rows only, in the same pass over the matches), with
  // the column ordering their ties: below the cap they are every record of the answer. It
  // saves the second pass over the matches that ranked the passing records and the statement
  // that checked the filters of each again to order them. Measured on the large set (200
  // distinct questions of the bench's stream each): SQLite, `entreprises.search` p50 CPU per
  // question 29 → 24 ms (load average 10–12); PostgreSQL, mean per question 37–46 → 35–44
  // ms for companies, 18–23 → 17–18 ms for awards (alternated).
  const among = (await readsAmongListed(db, parsed, spec, version)) ? spec.among : undefined;
  if (among) {
    // Matches read among a list (SQLite): the database ranks them itself (bm25 for the
    // listed matches that pass only), rather than ranking every match in the index and
    // checking the best against the filters (measured on the large set: « travaux batiment »
    // in Loire-Atlantique 610–910 → 455–527 ms of CPU, « climatisation thermique » in Paris
    // 378–408 → 197–220 ms). One statement ranks, orders and counts every passing record:
    // counting up to the cap first, then ordering at the cap, read the matches twice (the
    // same question, 3,986 companies passing: 83 + 174 → 176 ms, warm).
    const rows = (await orderByRelevance(db, db.select('r.k', db.raw('count(*) over () as n')).from(rankedRecords(db, parsed, spec, among, { t: spec.then.column }).as('r')), {
      rank: 'r.rank',
      then: [{ column: 'r.t', order: spec.then.order }],
      key: 'r.k',
    }).limit(wanted)) as { k: string; n: number | string }[];
    return { ...slice([...new Set(rows.map((r) => r.k))]), total: Math.min(Number(rows[0]?.n ?? 0), page.countCap) };
  }
  const ranked = rankedRecords(db, parsed, spec, undefined, { t: spec.then.column }).limit(page.countCap);
  let total: number;
  let keys: string[];
  if (kindOf(db) === 'sqlite') {
    // Ordered here, in SQLite's own order (`inPageOrder`).
    const rows = (await ranked) as RankedRecord[];
    total = rows.length;
    keys = total < page.countCap ? inPageOrder(rows, spec.then.order) : [];
  } else {
    // Ordered by the database, which returns the page's rows and the count.
    const rows = (await db
      .select('s.k', db.raw('count(*) over () as n'))
      .from(ranked.as('s'))
      .orderByRaw(`s.rank desc, s.t ${spec.then.order} nulls last, s.k collate "C"`)
      .limit(wanted)) as { k: string; n: number | string }[];
    total = Number(rows[0]?.n ?? 0);
    keys = [...new Set(rows.map((r) => r.k))];
  }
  if (!total) return { keys: [], hasMore: false, total: 0 };
  if (total < page.countCap) return { ...slice(keys), total };
  return rankedAtCap(db, parsed, spec, page, version, total);
}

/**
 * A page of a question whose count reached the cap (`total`): the best matches of the index,
 * widened until enough pass the filters (all of them when the filters pass everything); past
 * WIDEST, the database ranks the join itself.
 */
async function rankedAtCap(
  db: Knex,
  parsed: ParsedQuery,
  spec: SearchPageSpec,
  page: { offset: number; limit: number; countCap: number },
  version: DataVersion | null,
  total: number,
): Promise<SearchPage> {
  const wanted = page.offset + page.limit + 1;
  const slice = (keys: string[]) => {
    const window = keys.slice(page.offset, page.offset + page.limit + 1);
    return { keys: window.slice(0, page.limit), hasMore: window.length > page.limit };
  };
  let read = spec.filtered ? Math.max(wanted * FIRST_READ_PER_RESULT, 200) : wanted;
  // The index's ranking alone, shared by every filter and page of the same words (and the
  // same narrowing: on PostgreSQL a department's companies are ranked alone, a fraction of
  // every match of broad words).
  const narrow = kindOf(db) === 'postgres' ? spec.narrow : undefined;
  for (;;) {
    const hits = await cachedSearch(
      db,
      `${spec.index.name}:ranking`,
      version?.of([searchIndexTable(db, spec.index)]) ?? null,
      JSON.stringify([spec.index.name, parsed.canonical, read, narrow ?? null]),
      () => bestMatches(db, spec.index, parsed, read, { narrow }),
    );
    const ranked = await passing(db, spec, hits, wanted);
    // Enough passed; or every match was read; or every record that passes (the count is
    // exact below its cap) is among those read, which rank above every match not read.
    if (ranked.length >= wanted || hits.length < read || (total < page.countCap && ranked.length >= total)) return { ...slice(ranked), total };
    if (read >= WIDEST) break;
    // Each read ranks the index again: go straight to the width the share passing so far
    // asks for (twice it, for safety), or to the database when even WIDEST would not do.
    const needed = ranked.length ? Math.ceil((Math.min(wanted, total) / ranked.length) * hits.length * 2) : Infinity;
    if (needed > WIDEST) break;
    read = Math.min(Math.max(needed, read * 2), WIDEST);
  }
  const rows = (await orderByRelevance(db, db.select('r.k').from(rankedRecords(db, parsed, spec, undefined, { t: spec.then.column }).as('r')), {
    rank: 'r.rank',
    then: [{ column: 'r.t', order: spec.then.order }],
    key: 'r.k',
  })
    .offset(page.offset)
    .limit(page.limit + 1)) as { k: string }[];
  const keys = rows.map((r) => r.k);
  return { keys: keys.slice(0, page.limit), hasMore: keys.length > page.limit, total };
}
