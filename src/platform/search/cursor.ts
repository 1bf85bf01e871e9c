// Opaque, tamper-proof pagination cursors for every search: base64url JSON signed with
// HMAC-SHA256 under a secret of the service. A cursor carries the offset of the next page
// and a fingerprint of the search (operation, query, filters, limit excepted), so one
// reused with other arguments, altered, or not issued by us is refused (`CursorRejectedError`,
// answered 400 `invalid_cursor`). A search pages `MAX_SEARCH_DEPTH` results deep at most:
// enough to browse, not to export a base (refine the query to see further).
import { createHash, createHmac, timingSafeEqual, type BinaryLike } from 'node:crypto';
import { CursorRejectedError } from './errors.js';

/** How deep a search can page: results beyond this rank are never served. */
export const MAX_SEARCH_DEPTH = 1000;

export interface SearchCursor {
  /** Rank (0-based) of the first result of the page the cursor asks for. */
  offset: number;
  /** `searchFingerprint` of the search that issued it. */
  fingerprint: string;
}

const VERSION = 1;
const MAX_CURSOR_LENGTH = 512;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The fingerprint of a search: its operation and its arguments that select and order the
 * results (the query's `canonical` form, the filters), not `limit` nor `cursor`. Key order
 * and undefined members do not matter.
 */
export function searchFingerprint(operation: string, args: Record<string, unknown>): string {
  return createHash('sha256').update(canonicalJson({ operation, args })).digest('base64url').slice(0, 22);
}

function sign(body: string, key: BinaryLike): Buffer {
  return createHmac('sha256', key).update(body).digest();
}

function checkKey(key: BinaryLike): void {
  if ((typeof key === 'string' ? Buffer.byteLength(key) : key.byteLength) < 16) throw new Error('Clé de curseur trop courte (16 octets au moins).');
}

export function encodeCursor(payload: SearchCursor, key: BinaryLike): string {
  checkKey(key);
  if (!Number.isInteger(payload.offset) || payload.offset < 0 || payload.offset >= MAX_SEARCH_DEPTH)
    throw new RangeError(`Curseur hors de la profondeur de recherche : ${payload.offset}`);
  const body = Buffer.from(JSON.stringify({ v: VERSION, o: payload.offset, f: payload.fingerprint })).toString('base64url');
  return `${body}.${sign(body, key).toString('base64url')}`;
}

/** The cursor, if we issued it for this very search (`fingerprint`); `CursorRejectedError` otherwise. */
export function decodeCursor(text: unknown, key: BinaryLike, fingerprint: string): SearchCursor {
  checkKey(key);
  if (typeof text !== 'string' || text.length > MAX_CURSOR_LENGTH) throw new CursorRejectedError();
  const [body, mac, ...rest] = text.split('.');
  if (!body || !mac || rest.length || !BASE64URL.test(body) || !BASE64URL.test(mac)) throw new CursorRejectedError();
  const given = Buffer.from(mac, 'base64url');
  const expected = sign(body, key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new CursorRejectedError();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw new CursorRejectedError();
  }
  const p = payload as { v?: unknown; o?: unknown; f?: unknown };
  if (typeof p !== 'object' || p === null || p.v !== VERSION || typeof p.f !== 'string' || typeof p.o !== 'number' || !Number.isInteger(p.o) || p.o < 0)
    throw new CursorRejectedError();
  if (p.f !== fingerprint)
    throw new CursorRejectedError(
      'Curseur invalide : il a été émis pour une autre recherche (requête ou filtres différents) ; le réutiliser avec exactement les mêmes arguments, ou relancer sans curseur.',
    );
  if (p.o >= MAX_SEARCH_DEPTH)
    throw new CursorRejectedError(`Curseur invalide : une recherche ne se parcourt pas au-delà des ${MAX_SEARCH_DEPTH} premiers résultats ; affiner la requête.`);
  return { offset: p.o, fingerprint: p.f };
}

/**
 * The window of one page: the cursor's offset (0 without cursor) and the limit, cut so
 * that no page goes past `MAX_SEARCH_DEPTH`. `limit` comes validated by the contract.
 */
export function pageWindow(cursor: SearchCursor | null, limit: number): { offset: number; limit: number } {
  const offset = cursor?.offset ?? 0;
  return { offset, limit: Math.max(0, Math.min(limit, MAX_SEARCH_DEPTH - offset)) };
}

/**
 * The `next_cursor` of a page: null when there is nothing after it (`hasMore` false, e.g.
 * fewer rows than asked, or one row more fetched to know) or when the next page would start
 * at `MAX_SEARCH_DEPTH`.
 */
export function nextCursor(page: { offset: number; returned: number; hasMore: boolean; fingerprint: string }, key: BinaryLike): string | null {
  const next = page.offset + page.returned;
  if (!page.hasMore || page.returned === 0 || next >= MAX_SEARCH_DEPTH) return null;
  return encodeCursor({ offset: next, fingerprint: page.fingerprint }, key);
}

/**
 * One page of a search operation: the window its cursor asks for (a cursor bound to the
 * other arguments), what `find` returns for it, the next cursor, the total capped at
 * MAX_SEARCH_DEPTH. Every domain's search answers through it.
 */
export async function pagedSearch<R, A extends { cursor?: string; limit?: number }>(
  operation: string,
  args: A,
  key: BinaryLike,
  find: (page: { offset: number; limit: number; countCap: number }) => Promise<{ records: R[]; hasMore: boolean; total: number }>,
  defaultLimit = 10,
): Promise<{ results: R[]; next_cursor: string | null; total_estimated: number }> {
  const { cursor, limit, ...criteria } = args as Record<string, unknown> & { cursor?: string; limit?: number };
  const fingerprint = searchFingerprint(operation, criteria);
  const window = pageWindow(cursor ? decodeCursor(cursor, key, fingerprint) : null, limit ?? defaultLimit);
  const found = await find({ ...window, countCap: MAX_SEARCH_DEPTH });
  return {
    results: found.records,
    next_cursor: nextCursor({ offset: window.offset, returned: found.records.length, hasMore: found.hasMore, fingerprint }, key),
    total_estimated: Math.min(found.total, MAX_SEARCH_DEPTH),
  };
}
