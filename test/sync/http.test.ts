// The synchronisation's HTTP client: Retry-After in seconds or as a date, a spent X-RateLimit waited until its reset, the request budget spread over its window, a refusal never retried, a publisher's pause past the longest wait ends the run with the time to come back.
import { expect } from 'chai';
import { rateLimitWaitMs, retryAfterMs, SyncHttp, SyncHttpError } from '../../src/sync/http.js';
import { startReplayServer, type ReplayServer } from '../helpers/replay-server.js';

describe('sync: HTTP client', () => {
  let replay: ReplayServer;
  beforeEach(async () => {
    replay = await startReplayServer(() => ({ json: { ok: true } }));
  });
  afterEach(async () => replay.close());

  it('reads Retry-After as seconds or an HTTP date, and X-RateLimit-* as a wait until the reset', () => {
    const now = Date.parse('2026-11-26T12:00:00Z');
    expect(retryAfterMs('120', now)).to.equal(120_000);
    expect(retryAfterMs('Thu, 26 Nov 2026 12:01:00 GMT', now)).to.equal(60_000);
    expect(retryAfterMs('bientôt', now)).to.equal(null);
    expect(rateLimitWaitMs(new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(now / 1000 + 30) }), now)).to.equal(30_000);
    expect(rateLimitWaitMs(new Headers({ 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '2026-11-26T12:00:10Z' }), now)).to.equal(10_000);
    expect(rateLimitWaitMs(new Headers({ 'x-ratelimit-remaining': '5', 'x-ratelimit-reset': '99' }), now)).to.equal(0);
  });

  it('spreads requests over the budget window: the 4th of a 3-per-window budget waits for the next window', async () => {
    const waits: number[] = [];
    let clock = 0;
    const http = new SyncHttp({ budget: { requests: 3, perMs: 60_000 }, now: () => clock, sleep: async (ms) => {
        waits.push(ms);
        clock += ms;
      },
    });
    for (let i = 0; i < 4; i++) await http.getJson(`${replay.url}/x`);
    expect(waits).to.deep.equal([60_000]);
    expect(replay.requests).to.have.length(4);
  });

  it('never retries a refusal (4xx): one request, the status in the reason', async () => {
    replay.inject(() => true, { kind: 'status', status: 403 }, 10);
    const http = new SyncHttp({ sleep: async () => undefined });
    const err = await http.getJson(`${replay.url}/x?key=secret`).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(SyncHttpError);
    expect((err as SyncHttpError).message).to.equal(`${new URL(replay.url).host} a répondu HTTP 403`);
    expect(replay.requests).to.have.length(1);
  });

  it('a Retry-After longer than the longest wait stops at once and says when to come back', async () => {
    replay.inject(() => true, { kind: 'status', status: 429, headers: { 'retry-after': '3600' } });
    const http = new SyncHttp({ timing: { maxWaitMs: 60_000 }, sleep: async () => undefined });
    const err = (await http.getJson(`${replay.url}/x`).catch((e: unknown) => e)) as SyncHttpError;
    expect(err.retryAt).to.be.instanceOf(Date);
    expect(err.message).to.match(/^quota du producteur épuisé : reprise après /);
    expect(replay.requests).to.have.length(1);
  });

  it('accepts the statuses a connector expects (404 of an empty day), with or without a body', async () => {
    replay.inject(() => true, { kind: 'status', status: 404, json: { header: { statut: 404, message: 'Aucun élément trouvé' } } });
    const http = new SyncHttp({ sleep: async () => undefined });
    const answer = await http.getJson<{ header: { statut: number } }>(`${replay.url}/siren`, { accept: [404] });
    expect(answer.status).to.equal(404);
    expect(answer.body?.header.statut).to.equal(404);
  });
});
