// The quota counters with an injected clock, on SQLite and PostgreSQL alike: sliding 60 s and 24 h windows at their edges (no reset at midnight), distinct files per Paris day (re-reads free, reset at Paris midnight on change days too), refusals counted nowhere.
import { expect } from 'chai';
import type { Caller } from '../../src/access/caller.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { createQuotaStore, DAY_MS, MINUTE_MS, type Limits } from '../../src/access/quota-store.js';
import { QuotaKeeper } from '../../src/access/quota-keeper.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const FREE: Limits = { callsPerMinute: 5, callsPerDay: 100, filesPerDay: 5 };

function caller(accountId: string, limits: Limits, plan: Caller['plan'] = 'free'): Caller {
  return {
    accountId,
    organisationId: 'o',
    role: 'admin',
    plan,
    emailOption: false,
    eligibleAccess: false,
    limits,
    scopes: ['mcp:read'],
    clientId: 'c',
    grantId: null,
    address: 'rest',
  };
}

describe('quota counters', () => {
  let database: MigratedDatabase;
  let db: Database;
  let clock = Date.parse('2026-11-21T10:00:00Z');
  const keeper = () => new QuotaKeeper(createQuotaStore(db), () => new Date(clock));
  let n = 0;
  const account = () => `compte-${++n}`;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
  });
  after(async () => {
    await database.close();
  });

  async function outcome(k: QuotaKeeper, c: Caller): Promise<string> {
    try {
      await k.admitCall(c);
      return 'ok';
    } catch (err) {
      const e = err as { code: string; retryAfterSeconds: number; message: string };
      return `${e.code}:${e.retryAfterSeconds}`;
    }
  }

  it('refuses the 6th call in 60 s, until the oldest leaves the window', async () => {
    const c = caller(account(), FREE);
    const k = keeper();
    const start = Date.parse('2026-11-21T10:00:00Z');
    for (let i = 0; i < 5; i++) {
      clock = start + i * 1000;
      expect(await outcome(k, c)).to.equal('ok');
    }
    clock = start + 10_000;
    expect(await outcome(k, c)).to.equal('quota_exceeded:50');
    clock = start + MINUTE_MS - 1;
    expect(await outcome(k, c)).to.equal('quota_exceeded:1');
    clock = start + MINUTE_MS;
    expect(await outcome(k, c)).to.equal('ok');
    clock = start + MINUTE_MS + 500;
    expect(await outcome(k, c)).to.equal('quota_exceeded:1');
  });

  it('slides the 24 h window across midnight: no reset at midnight, free again 24 h after the oldest call', async () => {
    const limits = { callsPerMinute: 100, callsPerDay: 3, filesPerDay: 5 };
    const c = caller(account(), limits);
    const k = keeper();
    const evening = Date.parse('2026-11-21T22:50:00Z'); // 23:50 in Paris
    for (let i = 0; i < 3; i++) {
      clock = evening + i * 60_000;
      expect(await outcome(k, c)).to.equal('ok');
    }
    clock = Date.parse('2026-11-21T23:10:00Z'); // 00:10 in Paris, the next calendar day
    const refused = await outcome(k, c);
    expect(refused).to.match(/^quota_exceeded:/);
    expect(Number(refused.split(':')[1])).to.equal((evening + DAY_MS - clock) / 1000);
    clock = evening + DAY_MS;
    expect(await outcome(k, c)).to.equal('ok');
    clock = evening + DAY_MS + 1000;
    expect(await outcome(k, c)).to.equal('quota_exceeded:59');
  });

  it('does not count a refused call', async () => {
    const limits = { callsPerMinute: 2, callsPerDay: 100, filesPerDay: 5 };
    const c = caller(account(), limits);
    const k = keeper();
    clock = Date.parse('2026-11-21T12:00:00Z');
    await outcome(k, c);
    await outcome(k, c);
    for (let i = 0; i < 10; i++) await outcome(k, c);
    const status = await k.status(c);
    expect(status.minute.used).to.equal(2);
    expect(status.day.used).to.equal(2);
  });

  it('counts a file once a Paris day: re-reads free, the 6th distinct file refused until midnight Paris', async () => {
    const c = caller(account(), FREE);
    const k = keeper();
    clock = Date.parse('2026-11-21T22:30:00Z'); // 23:30 in Paris
    for (let i = 1; i <= 5; i++) expect(await k.openFile(c, `dce-${i}`)).to.deep.equal({ counted: true });
    expect(await k.openFile(c, 'dce-3')).to.deep.equal({ counted: false });
    const refusal = await k.openFile(c, 'dce-6').catch((e: { code: string; retryAfterSeconds: number; mcp: { kind: string } }) => e);
    expect(refusal).to.include({ code: 'quota_exceeded', retryAfterSeconds: 1800 });
    expect((refusal as { mcp: { kind: string } }).mcp.kind).to.equal('tool');
    clock = Date.parse('2026-11-21T23:00:00Z'); // midnight in Paris
    expect(await k.openFile(c, 'dce-6')).to.deep.equal({ counted: true });
    expect((await k.status(c)).files.used).to.equal(1);
  });

  for (const change of [
    { name: 'spring (23 h day)', lastMinute: '2026-03-29T21:59:00Z', midnight: '2026-03-29T22:00:00Z' },
    { name: 'autumn (25 h day)', lastMinute: '2026-10-25T22:59:00Z', midnight: '2026-10-25T23:00:00Z' },
  ]) {
    it(`restarts the file counter at midnight Paris on the ${change.name} change day`, async () => {
      const c = caller(account(), { callsPerMinute: 100, callsPerDay: 100, filesPerDay: 1 });
      const k = keeper();
      clock = Date.parse(change.lastMinute);
      await k.openFile(c, 'a');
      const refusal = await k.openFile(c, 'b').catch((e: { retryAfterSeconds: number }) => e);
      expect(refusal).to.have.property('retryAfterSeconds', 60);
      clock = Date.parse(change.midnight);
      expect(await k.openFile(c, 'b')).to.deep.equal({ counted: true });
    });
  }

  it('keeps accounts apart', async () => {
    const a = caller(account(), { callsPerMinute: 1, callsPerDay: 10, filesPerDay: 1 });
    const b = caller(account(), { callsPerMinute: 1, callsPerDay: 10, filesPerDay: 1 });
    const k = keeper();
    clock = Date.parse('2026-11-21T15:00:00Z');
    expect(await outcome(k, a)).to.equal('ok');
    expect(await outcome(k, b)).to.equal('ok');
    expect(await outcome(k, a)).to.match(/^quota_exceeded/);
  });

  it('admits exactly the limit among simultaneous calls of one account', async () => {
    const c = caller(account(), FREE);
    const k = keeper();
    clock = Date.parse('2026-11-21T16:00:00Z');
    const results = await Promise.all(Array.from({ length: 50 }, () => outcome(k, c)));
    expect(results.filter((r) => r === 'ok')).to.have.length(5);
  });

  it('says quota_unavailable, not a crash, when the counters cannot be reached', async () => {
    const broken = openDatabase(database.databaseUrl);
    await broken.destroy();
    const k = new QuotaKeeper(createQuotaStore(broken), () => new Date(clock));
    const err = await k.admitCall(caller(account(), FREE)).catch((e: { code: string; status: number }) => e);
    expect(err).to.include({ code: 'quota_unavailable', status: 503 });
  });
});
