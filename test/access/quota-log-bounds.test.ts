// The admission reads the call log only when a call may have left a window; its verdicts (admitted, ceiling, release time) stay those of a plain sliding log, whatever the groups, accounts, clock steps and bounds lost, on both engines.
import { expect } from 'chai';
import { type Database } from '../../src/platform/db/database.js';
import { createQuotaStore, DAY_MS, MINUTE_MS, type CallVerdict, type Limits } from '../../src/access/quota-store.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';
import { Rng } from '../../scripts/demo/prng.js';

/** Clock steps at and around the windows' edges. */
const STEPS = [0, 0, 1, 1, 999, 20_000, MINUTE_MS - 1, MINUTE_MS, MINUTE_MS + 1, 3_600_000, DAY_MS - MINUTE_MS, DAY_MS - 1, DAY_MS, DAY_MS + 1];

/** The plain sliding log: every admitted call kept, each window counted from it. */
class SlidingLog {
  private readonly calls = new Map<string, number[]>();

  admit(accountId: string, limits: Limits, nowMs: number): CallVerdict {
    const calls = this.calls.get(accountId) ?? [];
    const minute = calls.filter((at) => at > nowMs - MINUTE_MS);
    const day = calls.filter((at) => at > nowMs - DAY_MS);
    const refusals: Extract<CallVerdict, { admitted: false }>[] = [];
    if (minute.length >= limits.callsPerMinute) refusals.push({ admitted: false, ceiling: 'minute', limit: limits.callsPerMinute, retryAfterMs: Math.min(...minute) + MINUTE_MS });
    if (day.length >= limits.callsPerDay) refusals.push({ admitted: false, ceiling: 'day', limit: limits.callsPerDay, retryAfterMs: Math.min(...day) + DAY_MS });
    const refusal = refusals.sort((a, b) => b.retryAfterMs - a.retryAfterMs)[0];
    if (refusal) return refusal;
    this.calls.set(accountId, [...calls, nowMs]);
    return { admitted: true };
  }
}

describe('quota admission reading the log only when a call may have left a window', () => {
  let database: MigratedDatabase;
  let db: Database;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
  });
  after(async () => {
    await database.close();
  });

  for (const seed of [1, 2, 3, 4]) {
    it(`gives a plain sliding log's verdicts over 400 calls in groups (draw ${seed})`, async () => {
      const rng = new Rng(seed);
      const store = createQuotaStore(db);
      const log = new SlidingLog();
      const accounts = [1, 2, 3].map((a) => ({ id: `bornes-${seed}-${a}`, limits: { callsPerMinute: 2 + a, callsPerDay: 3 + 2 * a, filesPerDay: 5 } }));
      let clock = Date.parse('2026-11-21T10:00:00Z');
      let calls = 0;
      while (calls < 400) {
        // A group: the calls asked in one turn, each at its own clock, never going back.
        const group = Array.from({ length: rng.int(1, 6) }, () => {
          clock += rng.pick(STEPS);
          return { account: rng.pick(accounts), nowMs: clock };
        });
        calls += group.length;
        const expected = group.map((c) => log.admit(c.account.id, c.account.limits, c.nowMs));
        const got = await Promise.all(group.map((c) => store.admitCall(c.account.id, c.account.limits, c.nowMs)));
        expect(got, `groupe finissant à l'appel ${calls}`).to.deep.equal(expected);
        // Bounds not known (rows logged before they were kept): the log is read again.
        if (rng.chance(0.1)) await db('quota_accounts').update({ day_oldest_ms: null, minute_oldest_ms: null });
      }
    });
  }

  it('frees each window at the exact millisecond its oldest call leaves it', async () => {
    const store = createQuotaStore(db);
    const t0 = Date.parse('2026-11-21T14:00:00Z');
    const perMinute: Limits = { callsPerMinute: 2, callsPerDay: 1000, filesPerDay: 5 };
    const verdicts = [];
    for (const at of [t0, t0 + 1, t0 + MINUTE_MS - 1, t0 + MINUTE_MS]) verdicts.push((await store.admitCall('bornes-minute', perMinute, at)).admitted);
    expect(verdicts).to.deep.equal([true, true, false, true]);
    const perDay: Limits = { callsPerMinute: 100, callsPerDay: 2, filesPerDay: 5 };
    verdicts.length = 0;
    for (const at of [t0, t0 + 1, t0 + DAY_MS - 1, t0 + DAY_MS]) verdicts.push((await store.admitCall('bornes-jour', perDay, at)).admitted);
    expect(verdicts).to.deep.equal([true, true, false, true]);
  });

  it('keeps a burst\'s bounds at its first call (the log needs no read within the minute), and still refuses at the limit', async () => {
    const store = createQuotaStore(db);
    const limits: Limits = { callsPerMinute: 50, callsPerDay: 1000, filesPerDay: 5 };
    const t0 = Date.parse('2026-11-21T12:00:00Z');
    const verdicts = await Promise.all(Array.from({ length: 60 }, (_, i) => store.admitCall('bornes-rafale', limits, t0 + i * 100)));
    expect(verdicts.filter((v) => v.admitted)).to.have.length(50);
    const row = await db('quota_accounts').where({ account_id: 'bornes-rafale' }).first();
    expect(Number(row.day_oldest_ms)).to.equal(t0);
    expect(Number(row.minute_oldest_ms)).to.equal(t0);
    expect(Number(row.minute_count)).to.equal(50);
  });
});
