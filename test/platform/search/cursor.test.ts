// Search cursors are opaque and tamper-proof: only a cursor we issued, unaltered, for the very same search (query and filters) and within the documented depth cap is accepted; anything else is 400 invalid_cursor.
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { CursorRejectedError } from '../../../src/platform/search/errors.js';
import { decodeCursor, encodeCursor, MAX_SEARCH_DEPTH, nextCursor, pagedSearch, pageWindow, searchFingerprint } from '../../../src/platform/search/cursor.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';

const KEY = 'clé de test des curseurs, 32 octets au moins';
const OTHER_KEY = 'une autre clé, celle d’un autre service';
const FINGERPRINT = searchFingerprint('marches.search', { query: parseQuery('toiture zinc').canonical, departements: ['69'] });

/** A cursor signed with the right key, whatever its payload: what only a key holder could forge. */
function signed(payload: unknown, key = KEY): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

function refusal(run: () => unknown): CursorRejectedError {
  try {
    run();
  } catch (err) {
    expect(err).to.be.instanceOf(CursorRejectedError);
    const e = err as CursorRejectedError;
    expect(e.message).to.match(/^Curseur invalide/);
    return e;
  }
  return expect.fail('cursor accepted') as never;
}

describe('search cursors', () => {
  it('round-trips an offset for the same search, opaquely', () => {
    const cursor = encodeCursor({ offset: 40, fingerprint: FINGERPRINT }, KEY);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(cursor).to.not.contain('40');
    expect(decodeCursor(cursor, KEY, FINGERPRINT)).to.deep.equal({ offset: 40, fingerprint: FINGERPRINT });
    expect(decodeCursor(encodeCursor({ offset: 0, fingerprint: FINGERPRINT }, KEY), KEY, FINGERPRINT).offset).to.equal(0);
  });

  it('refuses an altered cursor', () => {
    const cursor = encodeCursor({ offset: 40, fingerprint: FINGERPRINT }, KEY);
    const [body, mac] = cursor.split('.') as [string, string];
    const otherBody = Buffer.from(JSON.stringify({ v: 1, o: 60, f: FINGERPRINT })).toString('base64url');
    const flip = (s: string, i: number) => `${s.slice(0, i)}${s[i] === 'A' ? 'B' : 'A'}${s.slice(i + 1)}`;
    for (const altered of [`${otherBody}.${mac}`, `${flip(body, 3)}.${mac}`, `${body}.${flip(mac, 5)}`, `${body}.${mac.slice(0, -2)}`, `${body}.${mac}.x`, `${body}`, `${body}.`, `.${mac}`, `${cursor}=`, ` ${cursor}`])
      refusal(() => decodeCursor(altered, KEY, FINGERPRINT));
  });

  it('refuses a cursor not issued by us', () => {
    refusal(() => decodeCursor(encodeCursor({ offset: 20, fingerprint: FINGERPRINT }, OTHER_KEY), KEY, FINGERPRINT));
    for (const foreign of ['', 'abc', 'a.b', '20', '{"v":1,"o":20}', 'eyJ2IjoxLCJvIjoyMH0', 'x'.repeat(10_000), 20, null, undefined, {}, ['a', 'b']])
      refusal(() => decodeCursor(foreign, KEY, FINGERPRINT));
    // Signed with our key but not a cursor of ours: unreadable or of another shape.
    refusal(() => decodeCursor(`${Buffer.from('pas du json').toString('base64url')}.${createHmac('sha256', KEY).update(Buffer.from('pas du json').toString('base64url')).digest('base64url')}`, KEY, FINGERPRINT));
    for (const payload of [{ v: 2, o: 20, f: FINGERPRINT }, { v: 1, o: '20', f: FINGERPRINT }, { v: 1, o: -20, f: FINGERPRINT }, { v: 1, o: 2.5, f: FINGERPRINT }, { v: 1, o: 20 }, [1, 20], null])
      refusal(() => decodeCursor(signed(payload), KEY, FINGERPRINT));
  });

  it('refuses a cursor of another search', () => {
    const cursor = encodeCursor({ offset: 20, fingerprint: FINGERPRINT }, KEY);
    const others = [
      searchFingerprint('marches.search', { query: parseQuery('toiture').canonical, departements: ['69'] }),
      searchFingerprint('marches.search', { query: parseQuery('toiture zinc').canonical, departements: ['42'] }),
      searchFingerprint('marches.search', { query: parseQuery('toiture zinc').canonical }),
      searchFingerprint('attributions.search', { query: parseQuery('toiture zinc').canonical, departements: ['69'] }),
    ];
    for (const other of others) expect(refusal(() => decodeCursor(cursor, KEY, other)).message).to.match(/autre recherche/);
  });

  it('fingerprints the search, not the spelling of its arguments', () => {
    const a = searchFingerprint('marches.search', { query: parseQuery('toiture zinc, "bardage bois"').canonical, departements: ['69'], montant_min: undefined });
    const b = searchFingerprint('marches.search', { departements: ['69'], query: parseQuery('« Bardage bois », TOITURE zinc').canonical });
    expect(a).to.equal(b);
    expect(searchFingerprint('marches.search', { departements: ['69', '42'] })).to.not.equal(searchFingerprint('marches.search', { departements: ['42', '69'] }));
  });

  it(`refuses to page beyond ${MAX_SEARCH_DEPTH} results`, () => {
    expect(decodeCursor(signed({ v: 1, o: MAX_SEARCH_DEPTH - 1, f: FINGERPRINT }), KEY, FINGERPRINT).offset).to.equal(MAX_SEARCH_DEPTH - 1);
    for (const o of [MAX_SEARCH_DEPTH, MAX_SEARCH_DEPTH + 1, 1e9])
      expect(refusal(() => decodeCursor(signed({ v: 1, o, f: FINGERPRINT }), KEY, FINGERPRINT)).message).to.match(/au-delà des 1000 premiers résultats/);
    expect(() => encodeCursor({ offset: MAX_SEARCH_DEPTH, fingerprint: FINGERPRINT }, KEY)).to.throw(RangeError);
  });

  it('cuts the last pages at the depth cap and issues no cursor past it', () => {
    expect(pageWindow(null, 20)).to.deep.equal({ offset: 0, limit: 20 });
    expect(pageWindow({ offset: 990, fingerprint: FINGERPRINT }, 50)).to.deep.equal({ offset: 990, limit: 10 });
    const next = nextCursor({ offset: 0, returned: 20, hasMore: true, fingerprint: FINGERPRINT }, KEY);
    expect(decodeCursor(next as string, KEY, FINGERPRINT).offset).to.equal(20);
    expect(nextCursor({ offset: 20, returned: 7, hasMore: false, fingerprint: FINGERPRINT }, KEY)).to.equal(null);
    expect(nextCursor({ offset: 990, returned: 10, hasMore: true, fingerprint: FINGERPRINT }, KEY)).to.equal(null);
    expect(nextCursor({ offset: 980, returned: 10, hasMore: true, fingerprint: FINGERPRINT }, KEY)).to.be.a('string');
  });

  it('demands a real key', () => {
    expect(() => encodeCursor({ offset: 0, fingerprint: FINGERPRINT }, 'court')).to.throw(/trop courte/);
  });

  it('pages a search through pagedSearch: windows from the cursor, a cursor bound to the other arguments, the total capped', async () => {
    const items = Array.from({ length: 25 }, (_, i) => i);
    const find = async (page: { offset: number; limit: number; countCap: number }) => {
      expect(page.countCap).to.equal(MAX_SEARCH_DEPTH);
      const slice = items.slice(page.offset, page.offset + page.limit + 1);
      return { records: slice.slice(0, page.limit), hasMore: slice.length > page.limit, total: 5000 };
    };
    const seen: number[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await pagedSearch('essai.search', { query: 'toiture', limit: 10, ...(cursor ? { cursor } : {}) }, KEY, find);
      expect(page.total_estimated).to.equal(MAX_SEARCH_DEPTH);
      seen.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(items);
    const first = await pagedSearch('essai.search', { query: 'toiture', limit: 10 }, KEY, find);
    const other = await pagedSearch('essai.search', { query: 'zinc', limit: 10, cursor: first.next_cursor as string }, KEY, find).catch((e: unknown) => e);
    expect(other).to.be.instanceOf(CursorRejectedError);
    // The limit is not part of the search: a cursor goes on with another page size.
    expect((await pagedSearch('essai.search', { query: 'toiture', limit: 5, cursor: first.next_cursor as string }, KEY, find)).results).to.deep.equal([10, 11, 12, 13, 14]);
  });
});
