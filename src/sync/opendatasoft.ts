// Reading an Opendatasoft Explore API v2.1 dataset one day of a date field at a time (the
// DILA's BOAMP and BODACC portals, data.economie.gouv.fr's DECP): `/records` pages of 100 in a
// stable order, each page's count checked against `total_count` (an answer cut short is read
// again, never taken as the end), a day above the `/records` cap (offset + limit ≤ 10,000)
// read through `/exports/json`, and the dataset's `data_processed` kept so that a run on
// unchanged data reads nothing. The publishers correct past days (a cancellation changes a
// notice's state, a correction is a new notice on a later day): each run reads again a
// sliding window of days before the last one done.
import { streamArray } from 'stream-json/streamers/stream-array.js';
import { addDays, isDay } from './days.js';
import type { SyncContext, SyncPage } from './connector.js';
import { SyncHttpError } from './http.js';
import { parisDay } from '../platform/paris-time.js';

/** `/records` answers at most this many per page. */
export const ODS_PAGE_SIZE = 100;
/** `/records` refuses offset + limit above this: a larger day goes through `/exports/json`. */
export const ODS_RECORDS_CAP = 10_000;
/** Reads of one page whose count stays wrong before the run stops (the next run resumes there). */
const COUNT_ATTEMPTS = 3;

export interface OdsDayCursor {
  /** The last day read to its end; the next run starts `windowDays` before it. */
  done: string | null;
  /** The next day of the pass in progress (a run killed between two days resumes there); null once a pass ends. */
  next: string | null;
  /** The day being read and the records of it already written. */
  day: string | null;
  offset: number;
  /** `total_count` of the day being read, when its first page came. */
  total: number | null;
  /** The dataset's `data_processed` when the last whole run ended. */
  processed: string | null;
}

export interface OdsDayOptions {
  dataset: string;
  /** The date field read one day at a time (`dateparution`). */
  dateField: string;
  /** A stable order within a day (the record's key), so that offsets mean the same records. */
  orderBy: string;
  /** Days read again before the last one done (corrections, cancellations, late records). */
  windowDays: number;
  /** Days read by a first run without `--since`. */
  firstDays: number;
  /** The importer of the pages (its key in the connector). */
  importer?: string;
}

interface OdsRecordsAnswer {
  total_count?: number;
  results?: unknown[];
}

const emptyCursor = (): OdsDayCursor => ({ done: null, next: null, day: null, offset: 0, total: null, processed: null });

function readCursor(value: unknown): OdsDayCursor {
  if (!value || typeof value !== 'object') return emptyCursor();
  const c = value as Partial<OdsDayCursor>;
  return {
    done: typeof c.done === 'string' && isDay(c.done) ? c.done : null,
    next: typeof c.next === 'string' && isDay(c.next) ? c.next : null,
    day: typeof c.day === 'string' && isDay(c.day) ? c.day : null,
    offset: Number.isInteger(c.offset) && (c.offset as number) >= 0 ? (c.offset as number) : 0,
    total: Number.isInteger(c.total) ? (c.total as number) : null,
    processed: typeof c.processed === 'string' ? c.processed : null,
  };
}

/** The dataset's last processing instant (`metas.default.data_processed`), or null. */
async function dataProcessed(ctx: SyncContext, dataset: string): Promise<string | null> {
  const { body } = await ctx.http.getJson<{ metas?: { default?: { data_processed?: unknown } } }>(`${ctx.baseUrl}/catalog/datasets/${encodeURIComponent(dataset)}`);
  const value = body?.metas?.default?.data_processed;
  return typeof value === 'string' ? value : null;
}

function dayQuery(options: OdsDayOptions, day: string): URLSearchParams {
  return new URLSearchParams({ where: `${options.dateField} = date'${day}'`, order_by: options.orderBy });
}

/** Every page of what is new in the dataset since the cursor. */
export async function* odsDayPages(ctx: SyncContext, options: OdsDayOptions): AsyncGenerator<SyncPage> {
  const cursor = readCursor(ctx.cursor);
  const today = parisDay(ctx.now());
  const processed = await dataProcessed(ctx, options.dataset);
  const explicit = ctx.since !== null || ctx.until !== null;
  // Nothing processed since the last whole run, and no day left half-read: nothing to read.
  if (!explicit && !cursor.day && !cursor.next && processed && cursor.processed === processed && cursor.done) return;
  // An on-demand window (--since/--until) reads its days whatever the cursor says; a scheduled
  // run resumes the pass in progress, else reads the sliding window before the last day done.
  const first = ctx.since ?? (explicit ? today : null) ?? cursor.day ?? cursor.next ?? (cursor.done ? addDays(cursor.done, -options.windowDays) : addDays(today, -(options.firstDays - 1)));
  const last = ctx.until ?? today;
  let state: OdsDayCursor = { ...cursor };
  for (let day = first; day <= last; day = addDays(day, 1)) {
    const resumeAt = state.day === day ? state.offset : 0;
    const knownTotal = state.day === day ? state.total : null;
    const pages = odsOneDay(ctx, options, day, resumeAt, knownTotal);
    for await (const { records, offset, total, finished } of pages) {
      state = finished
        ? { ...state, done: state.done && state.done > day ? state.done : day, next: addDays(day, 1), day: null, offset: 0, total: null }
        : { ...state, day, offset, total };
      yield { importer: options.importer, records, cursor: state };
    }
  }
  // The pass is over. A scheduled one keeps data_processed: the next run reads nothing until
  // the publisher processes again.
  yield { importer: options.importer, records: [], cursor: { ...state, next: null, day: null, offset: 0, total: null, processed: explicit ? cursor.processed : processed } };
}

interface DayPage {
  records: unknown[];
  /** Records of the day written once this page is. */
  offset: number;
  total: number;
  /** The day is read to its end with this page. */
  finished: boolean;
}

/** The pages of one day from `offset` on; its last page reaches `total` (an empty day: one empty page). */
async function* odsOneDay(ctx: SyncContext, options: OdsDayOptions, day: string, offset: number, knownTotal: number | null): AsyncGenerator<DayPage> {
  const query = dayQuery(options, day);
  let at = offset;
  let total = knownTotal;
  for (;;) {
    let answer: { results: unknown[]; total: number } | null = null;
    for (let attempt = 1; attempt <= COUNT_ATTEMPTS && !answer; attempt++) {
      const params = new URLSearchParams(query);
      params.set('limit', String(ODS_PAGE_SIZE));
      params.set('offset', String(at));
      if (total !== null && total > ODS_RECORDS_CAP) break;
      const { body } = await ctx.http.getJson<OdsRecordsAnswer>(`${ctx.baseUrl}/catalog/datasets/${encodeURIComponent(options.dataset)}/records?${params}`);
      const results = Array.isArray(body?.results) ? body.results : null;
      const count = typeof body?.total_count === 'number' ? body.total_count : null;
      if (!results || count === null) throw new SyncHttpError(`réponse sans total_count ni results pour le ${day}`, null);
      if (total !== null && count !== total) {
        // The day changed while it was read: read it again from its start (upserts: no duplicate).
        at = 0;
        total = count;
        continue;
      }
      total = count;
      if (count > ODS_RECORDS_CAP) break;
      const expected = Math.max(0, Math.min(ODS_PAGE_SIZE, count - at));
      if (results.length === expected) answer = { results, total: count };
    }
    if (total !== null && total > ODS_RECORDS_CAP) {
      yield* odsExportDay(ctx, options, day, at, total);
      return;
    }
    if (!answer) throw new SyncHttpError(`le ${day} : le nombre d'enregistrements reçus ne correspond pas à total_count (${total}) après ${COUNT_ATTEMPTS} lectures`, null);
    at += answer.results.length;
    yield { records: answer.results, offset: at, total: answer.total, finished: at >= answer.total };
    if (at >= answer.total) return;
  }
}

/** A day above the `/records` cap, through `/exports/json` (no cap), in pages; its count checked at the end. */
async function* odsExportDay(ctx: SyncContext, options: OdsDayOptions, day: string, offset: number, total: number): AsyncGenerator<DayPage> {
  const { stream } = await ctx.http.getStream(`${ctx.baseUrl}/catalog/datasets/${encodeURIComponent(options.dataset)}/exports/json?${dayQuery(options, day)}`);
  if (!stream) throw new SyncHttpError(`export du ${day} sans contenu`, null);
  const items = stream.pipe(streamArray.withParserAsStream());
  let seen = 0;
  let page: unknown[] = [];
  try {
    for await (const { value } of items as AsyncIterable<{ value: unknown }>) {
      seen += 1;
      if (seen <= offset) continue;
      page.push(value);
      if (page.length === ODS_PAGE_SIZE) {
        yield { records: page, offset: seen, total, finished: false };
        page = [];
      }
    }
  } catch (err) {
    throw new SyncHttpError(`export du ${day} interrompu après ${seen} enregistrements (${(err as Error).message})`, null);
  } finally {
    stream.destroy();
  }
  // A large export can be cut short silently: the count decides, the next run resumes at `seen`.
  if (seen !== total) throw new SyncHttpError(`export du ${day} incomplet : ${seen} enregistrements reçus pour ${total} annoncés`, null);
  yield { records: page, offset: seen, total, finished: true };
}

/**
 * Several datasets read one after the other in one run (the DECP's two schemas), each with
 * its own cursor: the run's cursor is `{ [key]: that dataset's cursor }`, and each page
 * carries every dataset's, so a run killed in the second dataset resumes there with the
 * first one's left as it was.
 */
export async function* odsManyDatasets(ctx: SyncContext, readers: { key: string; pages: (ctx: SyncContext) => AsyncIterable<SyncPage> }[]): AsyncGenerator<SyncPage> {
  const stored = ctx.cursor && typeof ctx.cursor === 'object' && !Array.isArray(ctx.cursor) ? (ctx.cursor as Record<string, unknown>) : {};
  let state: Record<string, unknown> = { ...stored };
  for (const reader of readers) {
    for await (const page of reader.pages({ ...ctx, cursor: stored[reader.key] ?? null })) {
      state = { ...state, [reader.key]: page.cursor };
      yield { ...page, cursor: state };
    }
  }
}

/**
 * Pages of `odsDayPages` in which the records sharing a key are never split between two
 * pages (a flattened dataset publishes one contract as several rows, and its importer
 * replaces a contract's holders with each write): the records at a page's end whose key
 * may go on in the next page are carried to it, and the page's cursor stays before them, so
 * that a run stopped there reads them again. The day must be ordered by that key.
 */
export async function* odsWholeGroups(pages: AsyncIterable<SyncPage>, keyOf: (record: unknown) => string): AsyncGenerator<SyncPage> {
  let carried: unknown[] = [];
  for await (const page of pages) {
    const cursor = page.cursor as OdsDayCursor;
    let records = [...carried, ...page.records];
    carried = [];
    // A day still being read (`day` set) may go on with the last key; a day read to its end cannot.
    if (cursor.day !== null && records.length) {
      const last = keyOf(records[records.length - 1]);
      let cut = records.length;
      while (cut > 0 && keyOf(records[cut - 1]) === last) cut -= 1;
      carried = records.slice(cut);
      records = records.slice(0, cut);
      yield { ...page, records, cursor: { ...cursor, offset: Math.max(0, cursor.offset - carried.length) } };
      continue;
    }
    yield { ...page, records };
  }
}
