// Admissions asked in one turn of the event loop are decided in one transaction, with the same verdicts as one transaction per call: in the order asked, exactly up to the limit even when a group spans it, each durable before its answer; on SQLite a failing group is decided again call by call so only the failing call is refused; on PostgreSQL an account has one group in flight per process, so an account's held lock holds only its calls.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { createQuotaStore, type CallVerdict, type Limits, type QuotaStore } from '../../src/access/quota-store.js';
import { usingPostgres, openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const FREE: Limits = { callsPerMinute: 5, callsPerDay: 100, filesPerDay: 5 };
const T0 = Date.parse('2026-11-21T10:00:00Z');

describe('quota admissions in groups', () => {
  let database: MigratedDatabase;
  let db: Database;
  let store: QuotaStore;
  let n = 0;
  const account = () => `groupe-${++n}`;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    store = createQuotaStore(db);
  });
  after(async () => {
    await database.close();
  });

  const logged = async (accountId: string) => Number((await db('call_log').where({ account_id: accountId }).count<{ n: number }[]>('* as n'))[0]?.n);
  const verdictText = (v: CallVerdict) => (v.admitted ? 'ok' : `${v.ceiling}`);

  it('a group spanning the limit admits exactly the limit, the first ones asked, and logs exactly those', async () => {
    const a = account();
    const verdicts = await Promise.all(Array.from({ length: 12 }, (_, i) => store.admitCall(a, FREE, T0 + i)));
    if (!usingPostgres) expect(verdicts.map(verdictText)).to.deep.equal([...Array(5).fill('ok'), ...Array(7).fill('minute')]);
    expect(verdicts.filter((v) => v.admitted)).to.have.length(5);
    expect(await logged(a)).to.equal(5);
    // The refusal's release time is the oldest admitted call's, one minute later.
    const refused = verdicts.find((v) => !v.admitted) as Extract<CallVerdict, { admitted: false }>;
    expect(refused.retryAfterMs).to.equal(T0 + 60_000);
  });

  it('a group continues from the counters the previous group saved (read once and saved once per account and group)', async () => {
    const a = account();
    const first = await Promise.all([0, 1, 2].map((i) => store.admitCall(a, FREE, T0 + i)));
    const second = await Promise.all([3, 4, 5, 6].map((i) => store.admitCall(a, FREE, T0 + i)));
    if (!usingPostgres) expect([...first, ...second].map(verdictText)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'ok', 'minute', 'minute']);
    expect([...first, ...second].filter((v) => v.admitted)).to.have.length(5);
    expect(await db('quota_accounts').where({ account_id: a }).first('minute_count', 'day_count')).to.deep.equal({ minute_count: 5, day_count: 5 });
    // One minute after the first call, exactly one unit is free again.
    const later = await Promise.all([0, 1].map(() => store.admitCall(a, FREE, T0 + 60_000)));
    expect(later.map(verdictText).sort()).to.deep.equal(['minute', 'ok']);
    expect(await logged(a)).to.equal(6);
  });

  it('carries the counters of each account from call to call within a group as the minute slides, then saves them once', async () => {
    const [a, b] = [account(), account()];
    await Promise.all([0, 1, 2, 3, 4].map((i) => store.admitCall(a, FREE, T0 + i)));
    await store.admitCall(b, FREE, T0);
    // One group: a's oldest calls leave the minute one by one as its calls go on; b in between.
    const asked: [string, number][] = [
      [a, T0 + 59_999],
      [a, T0 + 60_000],
      [b, T0 + 60_000],
      [a, T0 + 60_000],
      [a, T0 + 60_001],
      [a, T0 + 60_003],
      [a, T0 + 60_003],
    ];
    const verdicts = await Promise.all(asked.map(([id, at]) => store.admitCall(id, FREE, at)));
    expect(verdicts.map(verdictText)).to.deep.equal(['minute', 'ok', 'ok', 'minute', 'ok', 'ok', 'ok']);
    expect(await logged(a)).to.equal(9);
    const saved = (await db('quota_accounts').where({ account_id: a }).first('minute_count', 'day_count', 'minute_floor_ms')) as Record<string, unknown>;
    expect(Object.fromEntries(Object.entries(saved).map(([k, v]) => [k, Number(v)]))).to.deep.equal({ minute_count: 5, day_count: 9, minute_floor_ms: T0 + 3 });
    expect(await db('quota_accounts').where({ account_id: b }).first('minute_count', 'day_count')).to.deep.equal({ minute_count: 1, day_count: 2 });
  });

  it('interleaved accounts in one group are counted apart, each in its own order', async () => {
    const [a, b] = [account(), account()];
    const limits = { ...FREE, callsPerMinute: 2 };
    const asked = Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a));
    const verdicts = await Promise.all(asked.map((id, i) => store.admitCall(id, limits, T0 + i)));
    // Asked in one turn, they form one group, decided in the order asked on both engines.
    expect(verdicts.map(verdictText)).to.deep.equal(['ok', 'ok', 'ok', 'ok', 'minute', 'minute', 'minute', 'minute']);
    expect(verdicts.filter((v) => v.admitted)).to.have.length(4);
    expect([await logged(a), await logged(b)]).to.deep.equal([2, 2]);
  });

  it('each admission of a group is committed before its answer: another connection sees it at once', async () => {
    const a = account();
    const other = openDatabase(database.databaseUrl);
    try {
      let answered = 0;
      // When the k-th answer arrives, at least k calls are visible to any other connection.
      const seen = await Promise.all(
        Array.from({ length: 3 }, (_, i) =>
          store.admitCall(a, FREE, T0 + i).then(async () => {
            const mustSee = ++answered;
            const visible = Number((await other('call_log').where({ account_id: a }).count<{ n: number }[]>('* as n'))[0]?.n);
            return visible >= mustSee;
          }),
        ),
      );
      expect(seen).to.deep.equal([true, true, true]);
      expect(await logged(a)).to.equal(3);
    } finally {
      await other.destroy();
    }
  });

  // PostgreSQL: one group in flight per account and process; the account's later calls wait for it in the process.
  if (usingPostgres)
    describe('an account whose lock is held elsewhere (PostgreSQL)', () => {
      it('holds only its own calls, which wait in the process as one next group and are decided in the order asked; other accounts are admitted meanwhile', async () => {
        const [a, b] = [account(), account()];
        // Two connections, given up on after 1 s: groups of `a` each waiting on a connection of
        // its own would leave none for `b`.
        const small = openDatabase(database.databaseUrl, { poolSize: 2, acquireTimeoutMs: 1000 });
        const locker = openDatabase(database.databaseUrl, { poolSize: 1 });
        const limits = { ...FREE, callsPerMinute: 3 };
        try {
          const held = createQuotaStore(small);
          await locker.raw("select pg_advisory_lock(hashtext('quota:' || ?))", [a]);
          // Five calls of `a`, each asked in a turn of its own.
          const asked: Promise<CallVerdict>[] = [];
          for (let i = 0; i < 5; i++) {
            asked.push(held.admitCall(a, limits, T0 + i));
            await new Promise((resolve) => setImmediate(resolve));
          }
          // While `a` waits, `b` is admitted (twice, in turns of its own), and only one statement waits on the lock.
          expect(verdictText(await held.admitCall(b, limits, T0))).to.equal('ok');
          expect(verdictText(await held.admitCall(b, limits, T0 + 1))).to.equal('ok');
          const waiting = await locker.raw("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory' and datname = current_database()");
          expect((waiting.rows as { n: number }[])[0]?.n).to.equal(1);
          await locker.raw("select pg_advisory_unlock(hashtext('quota:' || ?))", [a]);
          expect((await Promise.all(asked)).map(verdictText)).to.deep.equal(['ok', 'ok', 'ok', 'minute', 'minute']);
          expect([await logged(a), await logged(b)]).to.deep.equal([3, 2]);
        } finally {
          await small.destroy();
          await locker.destroy();
        }
      });
    });

  // PostgreSQL decides each admission in its own transaction: no group to fail there.
  if (!usingPostgres)
    describe('a failing group (SQLite)', () => {
      afterEach(async () => db.raw('drop trigger if exists refuse_one'));

      it('is decided again call by call: only the failing call is refused, the others are counted once, in order', async () => {
        const [a, broken, b] = [account(), account(), account()];
        await db.raw(`create trigger refuse_one before insert on call_log when new.account_id = '${broken}' begin select raise(abort, 'panne simulée'); end`);
        const limits = { ...FREE, callsPerMinute: 2 };
        const asked = [a, broken, b, a, b, a];
        const outcomes = await Promise.all(
          asked.map((id, i) =>
            store.admitCall(id, limits, T0 + i).then(
              (v) => verdictText(v),
              (err: Error) => `erreur: ${err.message}`,
            ),
          ),
        );
        expect(outcomes).to.deep.equal(['ok', 'erreur: panne simulée', 'ok', 'ok', 'ok', 'minute']);
        expect([await logged(a), await logged(broken), await logged(b)]).to.deep.equal([2, 0, 2]);
        const counters = await db('quota_accounts').where({ account_id: a }).first('minute_count', 'day_count');
        expect(counters).to.deep.equal({ minute_count: 2, day_count: 2 });
      });

      it('a group failing as a whole refuses every call of it and keeps nothing', async () => {
        const [a, b] = [account(), account()];
        await db.raw(`create trigger refuse_one before insert on call_log begin select raise(abort, 'disque plein'); end`);
        const outcomes = await Promise.all([a, b, a].map((id, i) => store.admitCall(id, FREE, T0 + i).then(verdictText, (err: Error) => err.message)));
        expect(outcomes).to.deep.equal(['disque plein', 'disque plein', 'disque plein']);
        await db.raw('drop trigger refuse_one');
        expect([await logged(a), await logged(b)]).to.deep.equal([0, 0]);
        expect(await db('quota_accounts').whereIn('account_id', [a, b])).to.deep.equal([]);
        // And the next group goes through as usual.
        expect(verdictText(await store.admitCall(a, FREE, T0 + 10))).to.equal('ok');
      });
    });
});
