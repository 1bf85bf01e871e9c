// One page of a domain's search: by relevance then newest then key when words are given, by
// newest then key otherwise, with a capped count. The domain gives its query with its
// filters; this module picks how to rank it:
// - words alone: ranked in the index (`bestMatches`), only the best matches read;
// - words and filters: the best matches of the index, widened until enough pass the filters
//   (the first of them that pass are the first overall: a match outside the best read ranks
//   below every one read), and only for rare passes the whole join ranked by the database;
// - no words: the filters and the date order, in the database.
// Measured on the large demo set (2 cores, SQLite): a two-word query matching 30,000 posts
// took 160–250 ms through the whole join, ranked by the database, and takes a few
// milliseconds through the index.
import type { Knex } from 'knex';
import { kindOf } from '../db/database.js';
import { bestMatches, matchingKeys, orderByRelevance, searchMatches, type SearchHit, type SearchIndex } from './full-text.js';
import type { ParsedQuery } from './query-syntax.js';

export interface SearchPageSpec {
  index: SearchIndex;
  /** The domain's table under an alias, with its filters applied: no select, no order. */
  base: Knex.QueryBuilder;
  /** The record's key, qualified (`d.id`): the search documents' key. */
  key: string;
  /** The column ordering equal ranks and unranked results (a date, latest first), qualified; nulls last. */
  then: { column: string; order: 'asc' | 'desc' };
  /** Whether a filter narrows `base`. */
  filtered: boolean;
}

export interface SearchPage {
  keys: string[];
  hasMore: boolean;
  /** Results counted up to `countCap`. */
  total: number;
}

/** Matches read first for a filtered page, per result wanted; then eight times more, up to WIDEST. */
const FIRST_READ_PER_RESULT = 4;
const WIDEN = 8;
const WIDEST = 20_000;
/** Keys per `where in` (SQLite's parameters, PostgreSQL's plans). */
const CHUNK = 500;

type Ranked = { key: string; rank: number; then: string | number | null };

/** Rank (best first), the `then` column (nulls last), key in byte order: `orderByRelevance`'s order. */
function rankedOrder(order: 'asc' | 'desc'): (a: Ranked, b: Ranked) => number {
  return (a, b) => {
    if (a.rank !== b.rank) return b.rank - a.rank;
    if (a.then !== b.then) {
      if (a.then === null) return 1;
      if (b.then === null) return -1;
      return (a.then < b.then ? -1 : 1) * (order === 'desc' ? -1 : 1);
    }
    return Buffer.compare(Buffer.from(a.key), Buffer.from(b.key));
  };
}

/** The hits that are records passing the filters, with their dates, ordered. */
async function passing(spec: SearchPageSpec, hits: readonly SearchHit[]): Promise<Ranked[]> {
  const rank = new Map(hits.map((h) => [h.key, h.rank]));
  const out: Ranked[] = [];
  for (let i = 0; i < hits.length; i += CHUNK) {
    const rows = (await spec.base
      .clone()
      .whereIn(
        spec.key,
        hits.slice(i, i + CHUNK).map((h) => h.key),
      )
      .select({ k: spec.key, t: spec.then.column })) as { k: string; t: string | number | null }[];
    for (const r of rows) out.push({ key: r.k, rank: rank.get(r.k) as number, then: r.t ?? null });
  }
  return out.sort(rankedOrder(spec.then.order));
}

export async function searchPage(db: Knex, parsed: ParsedQuery | null, spec: SearchPageSpec, page: { offset: number; limit: number; countCap: number }): Promise<SearchPage> {
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

  const total = await counted(spec.base.clone().join(matchingKeys(db, spec.index, parsed).as('mk'), 'mk.key', spec.key));
  if (!total) return { keys: [], hasMore: false, total: 0 };
  // Read the best matches of the index, widening until enough pass (all of them when the
  // filters pass everything); past WIDEST, the database ranks the join itself.
  let read = spec.filtered ? Math.max(wanted * FIRST_READ_PER_RESULT, 200) : wanted;
  for (;;) {
    const hits = await bestMatches(db, spec.index, parsed, read);
    const ranked = await passing(spec, hits);
    if (ranked.length >= wanted || hits.length < read) return { ...slice(ranked.map((r) => r.key)), total };
    if (read >= WIDEST) break;
    read = Math.min(read * WIDEN, WIDEST);
  }
  const rows = (await orderByRelevance(db, spec.base.clone().join(searchMatches(db, spec.index, parsed).as('m'), 'm.key', spec.key).select({ k: spec.key, rank: 'm.rank' }), {
    rank: 'm.rank',
    then: [spec.then],
    key: spec.key,
  })
    .offset(page.offset)
    .limit(page.limit + 1)) as { k: string }[];
  const keys = rows.map((r) => r.k);
  return { keys: keys.slice(0, page.limit), hasMore: keys.length > page.limit, total };
}
