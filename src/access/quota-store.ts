// The quota counters, exact under concurrency: a sliding log of calls per account and the
// distinct files opened per Paris day. Every check-and-count runs serialised per account:
// on SQLite in a BEGIN IMMEDIATE transaction (better-sqlite3's own, synchronous), on
// PostgreSQL in a transaction holding an advisory lock on the account (for a call's
// admission, one statement: the function `quota_admit` of migrations 0029, 0031, 0035 and 0036,
// the same steps).
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { excusingWrites, readStamp } from '../platform/db/change-stamp.js';
import { kindOf, type Database } from '../platform/db/database.js';
import { SERVICE_LOCK_BUDGET_MS, isBusy, retryWhileBusy } from '../platform/db/busy.js';
import { statement, withSqlite } from '../platform/db/statements.js';
import { preparedText } from '../platform/db/prepared.js';

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

export interface Limits {
  callsPerMinute: number;
  callsPerDay: number;
  filesPerDay: number;
}

export type CallVerdict =
  | { admitted: true }
  | { admitted: false; ceiling: 'minute' | 'day'; limit: number; retryAfterMs: number };

export type FileVerdict = { admitted: true; counted: boolean } | { admitted: false; limit: number };

export interface WindowState {
  used: number;
  /** When the oldest counted unit leaves the window (null: nothing counted). */
  nextFreeAtMs: number | null;
}

export interface QuotaState {
  minute: WindowState;
  day: WindowState;
  filesToday: number;
}

/**
 * The caller's identity changed since the version it was checked against (PostgreSQL): the
 * call was neither counted nor refused; its identity is to be read again, then admitted.
 */
export class StaleIdentityError extends Error {
  constructor() {
    super('identité à relire');
  }
}

export interface QuotaStore {
  /**
   * Counts the call if both windows have room; a refused call is not counted. With
   * `identityVersion` (the change stamp its caller's identity was read at; PostgreSQL: the
   * identity's version), the call is counted only if that stamp is still current, read
   * inside the admission's own transaction, else StaleIdentityError.
   */
  admitCall(accountId: string, limits: Limits, nowMs: number, identityVersion?: string): Promise<CallVerdict>;
  /** The first opening of a file in the (Paris) day takes a unit; a re-read that day is free. */
  openFile(accountId: string, fileKey: string, day: string, limits: Limits, nowMs: number): Promise<FileVerdict>;
  state(accountId: string, day: string, nowMs: number): Promise<QuotaState>;
}

/**
 * The sliding log, the same on both databases. `quota_accounts` keeps per account the
 * number of logged calls in each window; each check first subtracts the calls that left
 * the windows since the last check (usually one or none), so it costs the same whatever
 * the traffic. Calls older than 24 h are deleted as they leave. It also keeps a bound below
 * which the log holds no call, for the day and for the minute window (migration 0036): while
 * a window's start is below its bound, no call can have left it and the log is not read.
 */
const SQL = {
  counters: 'select day_count, minute_count, minute_floor_ms, day_oldest_ms, minute_oldest_ms from quota_accounts where account_id = ?',
  leftMinute: `select (select count(*) from call_log where account_id = ? and at_ms > ? and at_ms <= ?) as n,
                      (select min(at_ms) from call_log where account_id = ? and at_ms > ?) as oldest`,
  pruneDay: 'delete from call_log where account_id = ? and at_ms <= ?',
  oldestSince: 'select min(at_ms) as oldest from call_log where account_id = ? and at_ms > ?',
  log: 'insert into call_log (account_id, at_ms) values (?, ?)',
  save: `insert into quota_accounts (account_id, day_count, minute_count, minute_floor_ms, day_oldest_ms, minute_oldest_ms) values (?, ?, ?, ?, ?, ?)
         on conflict (account_id) do update set day_count = excluded.day_count, minute_count = excluded.minute_count, minute_floor_ms = excluded.minute_floor_ms,
           day_oldest_ms = excluded.day_oldest_ms, minute_oldest_ms = excluded.minute_oldest_ms`,
};

/** One SQL statement at a time, synchronously (SQLite). */
type Run<R> = (sql: string, params: unknown[]) => R;

type Step = { kind: 'get' | 'run'; sql: string; params: unknown[] };

/**
 * An account's row of `quota_accounts`: the calls in each window, the minute window's
 * start, and the bounds below which the log holds no call (null: not known, the log is read;
 * Infinity: the log holds none of the window).
 */
interface Counters {
  day: number;
  minute: number;
  floor: number;
  dayOldest: number | null;
  minuteOldest: number | null;
}

/** A bound as stored: a window without any call is saved as not known (read again at the next call). */
const storedBound = (bound: number | null) => (bound === null || bound === Infinity ? null : bound);
const readBound = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/**
 * The check-and-count on SQLite; PostgreSQL runs the same steps in one function (migration
 * 0036 `quota_admit`, the counters carried alike: a change here is made there too; the quota
 * tests run on both). `known` is the account's counters when the same transaction already
 * holds them (a group); the caller saves the counters it gets back (`saveStep`). The log is
 * read only when a window's start reaches its bound: a burst of calls within a minute of
 * each other costs a log write each and no read.
 */
function* admitSteps(accountId: string, limits: Limits, nowMs: number, known?: Counters): Generator<Step, { verdict: CallVerdict; counters: Counters }, unknown> {
  let day: number, minute: number, floor: number, dayOldest: number | null, minuteOldest: number | null;
  if (known) ({ day, minute, floor, dayOldest, minuteOldest } = known);
  else {
    const row = (yield { kind: 'get', sql: SQL.counters, params: [accountId] }) as Record<string, unknown> | undefined;
    day = Number(row?.day_count ?? 0);
    minute = Number(row?.minute_count ?? 0);
    floor = Number(row?.minute_floor_ms ?? 0);
    dayOldest = readBound(row?.day_oldest_ms);
    minuteOldest = readBound(row?.minute_oldest_ms);
  }
  const minuteStart = Math.max(nowMs - MINUTE_MS, floor);
  if (minuteOldest === null || (minuteStart > floor && minuteStart >= minuteOldest)) {
    const left = (yield { kind: 'get', sql: SQL.leftMinute, params: [accountId, floor, minuteStart, accountId, minuteStart] }) as { n: unknown; oldest: unknown };
    minute = Math.max(0, minute - Number(left.n));
    minuteOldest = readBound(left.oldest) ?? Infinity;
  }
  floor = minuteStart;
  const dayStart = nowMs - DAY_MS;
  if (dayOldest === null || dayStart >= dayOldest) {
    const pruned = (yield { kind: 'run', sql: SQL.pruneDay, params: [accountId, dayStart] }) as number;
    day = Math.max(0, day - pruned);
    dayOldest = readBound(((yield { kind: 'get', sql: SQL.oldestSince, params: [accountId, dayStart] }) as { oldest: unknown }).oldest) ?? Infinity;
  }
  let verdict: CallVerdict | null = null;
  if (minute >= limits.callsPerMinute || day >= limits.callsPerDay) {
    const minuteOldestCall = minute >= limits.callsPerMinute ? ((yield { kind: 'get', sql: SQL.oldestSince, params: [accountId, floor] }) as { oldest: unknown }).oldest : null;
    const dayOldestCall = day >= limits.callsPerDay ? ((yield { kind: 'get', sql: SQL.oldestSince, params: [accountId, dayStart] }) as { oldest: unknown }).oldest : null;
    verdict = judge(limits, { count: minute, oldest: Number(minuteOldestCall ?? nowMs) }, { count: day, oldest: Number(dayOldestCall ?? nowMs) });
  }
  if (!verdict) {
    yield { kind: 'run', sql: SQL.log, params: [accountId, nowMs] };
    day += 1;
    minute += 1;
    dayOldest = Math.min(dayOldest, nowMs);
    minuteOldest = Math.min(minuteOldest, nowMs);
  }
  return { verdict: verdict ?? { admitted: true }, counters: { day, minute, floor, dayOldest, minuteOldest } };
}

function saveStep(accountId: string, c: Counters): Step {
  return { kind: 'run', sql: SQL.save, params: [accountId, c.day, c.minute, c.floor, storedBound(c.dayOldest), storedBound(c.minuteOldest)] };
}

/** Drives the steps with a synchronous runner (SQLite inside BEGIN IMMEDIATE). */
function runSync<T>(steps: Generator<Step, T, unknown>, get: Run<unknown>, run: Run<number>): T {
  let next = steps.next();
  while (!next.done) next = steps.next(next.value.kind === 'get' ? get(next.value.sql, next.value.params) : run(next.value.sql, next.value.params));
  return next.value;
}

/**
 * The verdict from the counts, the same for both databases. When both ceilings are
 * reached, the refusal names the one that frees up later (no call passes before it).
 */
function judge(
  limits: Limits,
  minute: { count: number; oldest: number | null },
  day: { count: number; oldest: number | null },
): CallVerdict | null {
  const refusals: Extract<CallVerdict, { admitted: false }>[] = [];
  if (minute.count >= limits.callsPerMinute)
    refusals.push({ admitted: false, ceiling: 'minute', limit: limits.callsPerMinute, retryAfterMs: (minute.oldest ?? 0) + MINUTE_MS });
  if (day.count >= limits.callsPerDay) refusals.push({ admitted: false, ceiling: 'day', limit: limits.callsPerDay, retryAfterMs: (day.oldest ?? 0) + DAY_MS });
  return refusals.sort((a, b) => b.retryAfterMs - a.retryAfterMs)[0] ?? null;
}

interface PendingAdmission {
  accountId: string;
  limits: Limits;
  nowMs: number;
  /** The identity's stamp or version to check before counting (null: none). */
  version?: string | null;
  resolve: (verdict: CallVerdict) => void;
  reject: (err: unknown) => void;
}

type Outcome = { verdict: CallVerdict } | { error: unknown };

/**
 * Admissions on SQLite, in order, inside the caller's transaction. Each account's counters
 * are read once and saved once for the whole group: in between they are exactly what the
 * table would hold (nothing else writes in this transaction).
 */
function admitInOrder(conn: BetterSqlite3.Database, items: readonly Pick<PendingAdmission, 'accountId' | 'limits' | 'nowMs'>[]): CallVerdict[] {
  const get = (sql: string, params: unknown[]) => statement(conn, sql).get(...params);
  const run = (sql: string, params: unknown[]) => statement(conn, sql).run(...params).changes;
  const counters = new Map<string, Counters>();
  const verdicts = items.map((p) => {
    const outcome = runSync(admitSteps(p.accountId, p.limits, p.nowMs, counters.get(p.accountId)), get, run);
    counters.set(p.accountId, outcome.counters);
    return outcome.verdict;
  });
  for (const [accountId, c] of counters) {
    const step = saveStep(accountId, c);
    run(step.sql, step.params);
  }
  return verdicts;
}

/**
 * Decides a group in one transaction. If it fails, nothing of it was kept: each admission
 * is then decided again alone, in the same order, so a failure tied to one call (a write
 * error on its account) refuses only that call. A database still locked by another process
 * after busy_timeout refuses the whole group at once: retrying each would only wait again.
 */
function decideGroup(conn: BetterSqlite3.Database, group: readonly AdmissionAsked[]): Outcome[] {
  try {
    return conn.transaction(() => decideCurrent(conn, group)).immediate();
  } catch (err) {
    if (group.length === 1 || String((err as { code?: unknown }).code).startsWith('SQLITE_BUSY')) return group.map(() => ({ error: err }));
    return group.map((p) => {
      try {
        return conn.transaction(() => decideCurrent(conn, [p])).immediate()[0] as Outcome;
      } catch (error) {
        return { error };
      }
    });
  }
}

type AdmissionAsked = Pick<PendingAdmission, 'accountId' | 'limits' | 'nowMs' | 'version'>;

/**
 * Inside the admission's transaction: a call whose identity was taken from memory at a stamp
 * no longer current is neither counted nor refused (StaleIdentityError: its identity is read
 * again). The stamp is read once the write lock is held, so no commit can slip in between,
 * and once per group rather than once per call outside any transaction, where `pragma
 * data_version` starts a read of the WAL (9 µs of an admitted call under load).
 */
function decideCurrent(conn: BetterSqlite3.Database, group: readonly AdmissionAsked[]): Outcome[] {
  const stamp = group.some((p) => p.version != null) ? readStamp(conn) : null;
  const current = (p: AdmissionAsked) => p.version == null || p.version === stamp;
  const verdicts = admitInOrder(conn, group.filter(current));
  let next = 0;
  return group.map((p) => (current(p) ? { verdict: verdicts[next++] as CallVerdict } : { error: new StaleIdentityError() }));
}

/**
 * On SQLite, admissions are committed in groups: the calls that ask during one turn of the
 * event loop are decided one by one, in the order they asked, inside one BEGIN IMMEDIATE
 * transaction, and each is answered once that transaction is committed. Every decision is
 * the same as if each call had its own transaction (same order, same counts, durable before
 * the answer), but the commit, the costliest part, is paid once per group.
 */
/** How long an admission waits for another connection's write lock on SQLite (the service's budget, busy.ts). */
export const LOCK_BUDGET_MS = SERVICE_LOCK_BUDGET_MS;

class SqliteQuotaStore implements QuotaStore {
  private queue: PendingAdmission[] = [];

  constructor(private readonly db: Database) {}

  /** A group being decided (possibly waiting out a lock): the next one waits its turn. */
  private flushing = false;

  admitCall(accountId: string, limits: Limits, nowMs: number, identityVersion?: string): Promise<CallVerdict> {
    return new Promise((resolve, reject) => {
      // setImmediate runs after the poll phase: every request read in this turn is queued by then.
      if (this.queue.push({ accountId, limits, nowMs, version: identityVersion ?? null, resolve, reject }) === 1 && !this.flushing) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    // One group at a time: two groups waiting out the same lock would each stall the loop.
    this.flushing = true;
    try {
      await this.decide();
    } finally {
      this.flushing = false;
      if (this.queue.length) setImmediate(() => void this.flush());
    }
  }

  private async decide(): Promise<void> {
    const group = this.queue;
    this.queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = await retryWhileBusy(
        () =>
          withSqlite(this.db, (conn) => {
            const decided = excusingWrites(conn, () => decideGroup(conn, group));
            // Refused as a whole for a lock: tried again after a pause, off the event loop.
            const first = decided[0];
            if (first && 'error' in first && isBusy(first.error)) throw first.error;
            return decided;
          }),
        LOCK_BUDGET_MS,
      );
    } catch (err) {
      outcomes = group.map(() => ({ error: err }));
    }
    group.forEach((pending, i) => {
      const outcome = outcomes[i] as Outcome;
      if ('verdict' in outcome) pending.resolve(outcome.verdict);
      else pending.reject(outcome.error);
    });
  }

  openFile(accountId: string, fileKey: string, day: string, limits: Limits, nowMs: number): Promise<FileVerdict> {
    return retryWhileBusy(() => this.openFileNow(accountId, fileKey, day, limits, nowMs), LOCK_BUDGET_MS);
  }

  private openFileNow(accountId: string, fileKey: string, day: string, limits: Limits, nowMs: number): Promise<FileVerdict> {
    return withSqlite(this.db, (conn) =>
      excusingWrites(conn, () =>
        conn
        .transaction((): FileVerdict => {
          const seen = statement(conn, 'select 1 from file_opens where account_id = ? and day = ? and file_key = ?').get(accountId, day, fileKey);
          if (seen) return { admitted: true, counted: false };
          const { n } = statement(conn, 'select count(*) as n from file_opens where account_id = ? and day = ?').get(accountId, day) as { n: number };
          if (n >= limits.filesPerDay) return { admitted: false, limit: limits.filesPerDay };
          statement(conn, 'insert into file_opens (account_id, day, file_key, opened_at_ms) values (?, ?, ?, ?)').run(accountId, day, fileKey, nowMs);
          statement(conn, 'delete from file_opens where account_id = ? and day < ?').run(accountId, day);
          return { admitted: true, counted: true };
        })
        .immediate(),
      ),
    );
  }

  state(accountId: string, day: string, nowMs: number): Promise<QuotaState> {
    return withSqlite(this.db, (conn) => {
      const window = (ms: number): WindowState => {
        const row = statement(conn, 'select count(*) as n, min(at_ms) as oldest from call_log where account_id = ? and at_ms > ?').get(accountId, nowMs - ms) as {
          n: number;
          oldest: number | null;
        };
        return { used: row.n, nextFreeAtMs: row.oldest === null ? null : row.oldest + ms };
      };
      const files = statement(conn, 'select count(*) as n from file_opens where account_id = ? and day = ?').get(accountId, day) as { n: number };
      return { minute: window(MINUTE_MS), day: window(DAY_MS), filesToday: files.n };
    });
  }
}

const ADMIT_SQL = 'select admitted, ceiling, retry_after_ms, stale from quota_admit($1::varchar[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[])';

/** Admissions decided by one statement at most (a bound on its arrays). */
const MAX_GROUP = 200;

class PostgresQuotaStore implements QuotaStore {
  constructor(private readonly db: Database) {}

  private locked<T>(accountId: string, run: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.db.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`quota:${accountId}`]);
      return run(trx);
    });
  }

  /** Calls asked and not yet sent: those of an account with a group in flight wait for it. */
  private queue: PendingAdmission[] = [];
  private scheduled = false;
  /** Groups being decided (possibly waiting on the account's lock), per account. */
  private readonly inFlight = new Map<string, number>();

  /**
   * The calls that ask during one turn of the event loop are decided together, in the
   * order they asked, by one statement (migration 0036's `quota_admit`: the same steps as
   * `admitSteps`, every account's lock taken first, one commit for the group). An account
   * has one group in flight at a time in a process: its calls asked meanwhile wait here and
   * form its next group, instead of each group taking a connection of its own to wait on
   * the account's lock (one account at 20 connections kept several groups of a few calls
   * waiting on each other). Measured with alternated rounds, one account, 20 connections:
   * PostgreSQL's CPU per admitted call 24–28 → 20–22 µs; over 16 accounts within the noise.
   * Only that account's calls wait: a group stuck on an account's lock (held elsewhere,
   * given up at the control pool's lock limit) holds the accounts of that group, never the
   * others'.
   */
  admitCall(accountId: string, limits: Limits, nowMs: number, identityVersion?: string): Promise<CallVerdict> {
    return new Promise<CallVerdict>((resolve, reject) => {
      this.queue.push({ accountId, limits, nowMs, version: identityVersion ?? null, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.send();
    });
  }

  private send(): void {
    let ready: PendingAdmission[] = this.queue;
    if (this.inFlight.size) {
      const waiting: PendingAdmission[] = [];
      ready = [];
      for (const p of this.queue) (this.inFlight.has(p.accountId) ? waiting : ready).push(p);
      this.queue = waiting;
    } else this.queue = [];
    for (let i = 0; i < ready.length; i += MAX_GROUP) {
      const group = ready.slice(i, i + MAX_GROUP);
      const accounts = new Set(group.map((p) => p.accountId));
      for (const a of accounts) this.inFlight.set(a, (this.inFlight.get(a) ?? 0) + 1);
      void this.decide(group).then(() => {
        for (const a of accounts) {
          const left = (this.inFlight.get(a) ?? 1) - 1;
          if (left) this.inFlight.set(a, left);
          else this.inFlight.delete(a);
        }
        if (this.queue.length) this.schedule();
      });
    }
  }

  private async decide(group: PendingAdmission[]): Promise<void> {
    try {
      // Migration 0031's quota_admit: the identity versions checked in the same statement.
      // Prepared once per connection, without Knex: its building and its events cost the
      // service more than the statement's own round trip (admitted call, one statement per group).
      const rows = await preparedText<{ admitted: boolean; ceiling: 'minute' | 'day'; retry_after_ms: string | number; stale: boolean }>(this.db, ADMIT_SQL, [
        group.map((p) => p.accountId),
        group.map((p) => p.limits.callsPerMinute),
        group.map((p) => p.limits.callsPerDay),
        group.map((p) => p.nowMs),
        group.map((p) => p.version ?? null) as unknown as string[],
      ]);
      group.forEach((p, i) => {
        const row = rows[i];
        if (!row) return p.reject(new Error('quota_admit : verdict manquant'));
        if (row.stale) return p.reject(new StaleIdentityError());
        if (row.admitted) return p.resolve({ admitted: true });
        p.resolve({ admitted: false, ceiling: row.ceiling, limit: row.ceiling === 'minute' ? p.limits.callsPerMinute : p.limits.callsPerDay, retryAfterMs: Number(row.retry_after_ms) });
      });
    } catch (err) {
      for (const p of group) p.reject(err);
    }
  }

  openFile(accountId: string, fileKey: string, day: string, limits: Limits, nowMs: number): Promise<FileVerdict> {
    return this.locked(accountId, async (trx): Promise<FileVerdict> => {
      const seen = await trx('file_opens').where({ account_id: accountId, day, file_key: fileKey }).first('file_key');
      if (seen) return { admitted: true, counted: false };
      const n = Number((await trx('file_opens').where({ account_id: accountId, day }).first(trx.raw('count(*) as n'))).n);
      if (n >= limits.filesPerDay) return { admitted: false, limit: limits.filesPerDay };
      await trx('file_opens').insert({ account_id: accountId, day, file_key: fileKey, opened_at_ms: nowMs });
      await trx('file_opens').where('account_id', accountId).andWhere('day', '<', day).delete();
      return { admitted: true, counted: true };
    });
  }

  async state(accountId: string, day: string, nowMs: number): Promise<QuotaState> {
    const window = async (ms: number) => {
      const row = await this.db('call_log').where('account_id', accountId).andWhere('at_ms', '>', nowMs - ms).first(this.db.raw('count(*) as n'), this.db.raw('min(at_ms) as oldest'));
      return { used: Number(row.n), nextFreeAtMs: row.oldest === null ? null : Number(row.oldest) + ms };
    };
    const files = await this.db('file_opens').where({ account_id: accountId, day }).first(this.db.raw('count(*) as n'));
    return { minute: await window(MINUTE_MS), day: await window(DAY_MS), filesToday: Number(files.n) };
  }
}

export function createQuotaStore(db: Database): QuotaStore {
  return kindOf(db) === 'sqlite' ? new SqliteQuotaStore(db) : new PostgresQuotaStore(db);
}
