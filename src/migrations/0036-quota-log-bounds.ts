// The quota's check-and-count reads the call log only when a call may have left a window.
// `quota_accounts` keeps, per account, a bound below which the log holds no call
// (`day_oldest_ms`) and one for the calls of the minute window (`minute_oldest_ms`): while a
// window's start is below its bound, no call left it, and neither the minute's count nor
// the day's prune runs (each was a statement per call: on PostgreSQL, measured with groups
// of 9 calls of one account called directly, the prune 15–25 µs and the count about 5 of
// the function's 47–68 µs per call). PostgreSQL also writes a group's calls to the log in
// one statement at its end, or before any read of the log (about 11 µs per call when each
// was inserted alone). The log's `id` (a serial key read by nothing) is dropped: one index
// and one sequence less to write per call. The verdicts do not change (quota-store.ts
// `admitSteps`; its tests compare them with a plain sliding log on both engines).
import type { Knex } from 'knex';
import { kindOf } from '../platform/db/database.js';
import { QUOTA_ADMIT_GROUPED } from './0035-quota-counters-per-group.js';

/** The group's admitted calls not yet in the log, written in one statement: before any read of the log, and at the end. */
const WRITE_LOGGED = `if v_logged_at <> '{}' then
    insert into call_log (account_id, at_ms) select * from unnest(v_logged_accounts, v_logged_at);
    v_logged_accounts := '{}';
    v_logged_at := '{}';
  end if;`;

/** Migration 0035's function, reading the log only when a call may have left a window. */
const QUOTA_ADMIT_BOUNDED = `
create or replace function quota_admit(p_accounts varchar[], p_per_minute bigint[], p_per_day bigint[], p_now bigint[], p_versions bigint[])
returns table (admitted boolean, ceiling text, retry_after_ms bigint, stale boolean)
language plpgsql as $$
declare
  -- A bound when the log holds no call of the window: nothing leaves it until a call is logged.
  c_none constant bigint := 9223372036854775807;
  v_version bigint;
  v_accounts varchar[] := '{}';
  v_days bigint[] := '{}';
  v_minutes bigint[] := '{}';
  v_floors bigint[] := '{}';
  v_day_bounds bigint[] := '{}';
  v_minute_bounds bigint[] := '{}';
  -- The group's admitted calls not yet written to the log.
  v_logged_accounts varchar[] := '{}';
  v_logged_at bigint[] := '{}';
  v_day bigint;
  v_minute bigint;
  v_floor bigint;
  v_day_bound bigint;
  v_minute_bound bigint;
  v_left bigint;
  v_pruned bigint;
  v_minute_start bigint;
  v_day_start bigint;
  v_minute_retry bigint;
  v_day_retry bigint;
  j integer;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(k) from (select distinct hashtext('quota:' || a) as k from unnest(p_accounts) a order by 1) locks;
  select cs.version into v_version from change_stamps cs where cs.name = 'identity';
  for i in 1 .. coalesce(array_length(p_accounts, 1), 0) loop
    if p_versions[i] is not null and p_versions[i] is distinct from v_version then
      admitted := false;
      ceiling := null;
      retry_after_ms := null;
      stale := true;
    else
      j := array_position(v_accounts, p_accounts[i]);
      if j is null then
        v_day := null;
        v_minute := null;
        v_floor := null;
        v_day_bound := null;
        v_minute_bound := null;
        select q.day_count, q.minute_count, q.minute_floor_ms, q.day_oldest_ms, q.minute_oldest_ms into v_day, v_minute, v_floor, v_day_bound, v_minute_bound
          from quota_accounts q where q.account_id = p_accounts[i];
        v_accounts := v_accounts || p_accounts[i];
        v_days := v_days || coalesce(v_day, 0);
        v_minutes := v_minutes || coalesce(v_minute, 0);
        v_floors := v_floors || coalesce(v_floor, 0);
        -- Null: not known, the log is read at this call.
        v_day_bounds := v_day_bounds || v_day_bound;
        v_minute_bounds := v_minute_bounds || v_minute_bound;
        j := array_length(v_accounts, 1);
      end if;
      -- The steps of quota-store.ts admitSteps, from the counters in hand.
      v_day := v_days[j];
      v_minute := v_minutes[j];
      v_floor := v_floors[j];
      v_day_bound := v_day_bounds[j];
      v_minute_bound := v_minute_bounds[j];
      v_minute_start := greatest(p_now[i] - 60000, v_floor);
      if v_minute_bound is null or (v_minute_start > v_floor and v_minute_start >= v_minute_bound) then
        ${WRITE_LOGGED}
        select (select count(*) from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_floor and c.at_ms <= v_minute_start),
               coalesce((select min(c.at_ms) from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_minute_start), c_none)
          into v_left, v_minute_bound;
        v_minute := greatest(0, v_minute - v_left);
      end if;
      v_floor := v_minute_start;
      v_day_start := p_now[i] - 86400000;
      if v_day_bound is null or v_day_start >= v_day_bound then
        ${WRITE_LOGGED}
        with pruned as (delete from call_log c where c.account_id = p_accounts[i] and c.at_ms <= v_day_start returning 1)
        select (select count(*) from pruned), coalesce((select min(c.at_ms) from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_day_start), c_none)
          into v_pruned, v_day_bound;
        v_day := greatest(0, v_day - v_pruned);
      end if;
      admitted := v_minute < p_per_minute[i] and v_day < p_per_day[i];
      ceiling := null;
      retry_after_ms := null;
      if admitted then
        v_logged_accounts := v_logged_accounts || p_accounts[i];
        v_logged_at := v_logged_at || p_now[i];
        v_day := v_day + 1;
        v_minute := v_minute + 1;
        v_day_bound := least(v_day_bound, p_now[i]);
        v_minute_bound := least(v_minute_bound, p_now[i]);
      else
        ${WRITE_LOGGED}
        -- Both ceilings reached: the refusal names the one that frees up later.
        v_minute_retry := null;
        v_day_retry := null;
        if v_minute >= p_per_minute[i] then
          select coalesce(min(c.at_ms), p_now[i]) + 60000 into v_minute_retry from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_floor;
        end if;
        if v_day >= p_per_day[i] then
          select coalesce(min(c.at_ms), p_now[i]) + 86400000 into v_day_retry from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_day_start;
        end if;
        if v_day_retry is not null and (v_minute_retry is null or v_day_retry > v_minute_retry) then
          ceiling := 'day';
          retry_after_ms := v_day_retry;
        else
          ceiling := 'minute';
          retry_after_ms := v_minute_retry;
        end if;
      end if;
      v_days[j] := v_day;
      v_minutes[j] := v_minute;
      v_floors[j] := v_floor;
      v_day_bounds[j] := v_day_bound;
      v_minute_bounds[j] := v_minute_bound;
      stale := false;
    end if;
    return next;
  end loop;
  ${WRITE_LOGGED}
  insert into quota_accounts (account_id, day_count, minute_count, minute_floor_ms, day_oldest_ms, minute_oldest_ms)
    select a, d, m, f, nullif(db, c_none), nullif(mb, c_none) from unnest(v_accounts, v_days, v_minutes, v_floors, v_day_bounds, v_minute_bounds) u(a, d, m, f, db, mb)
    on conflict (account_id) do update set day_count = excluded.day_count, minute_count = excluded.minute_count, minute_floor_ms = excluded.minute_floor_ms,
      day_oldest_ms = excluded.day_oldest_ms, minute_oldest_ms = excluded.minute_oldest_ms;
end
$$`;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('quota_accounts', (t) => {
    // No call of the account's log is older than this (null: not known, the log is read).
    t.bigInteger('day_oldest_ms').nullable();
    // No call of the minute window (after minute_floor_ms) is older than this (null: not known).
    t.bigInteger('minute_oldest_ms').nullable();
  });
  if (kindOf(knex) === 'postgres') {
    await knex.raw('alter table call_log drop column id');
    await knex.raw(QUOTA_ADMIT_BOUNDED);
    return;
  }
  // SQLite cannot drop a primary key's column: the log is copied into a table without it.
  await knex.raw('create table call_log_bounded (account_id varchar(36) not null, at_ms bigint not null)');
  await knex.raw('insert into call_log_bounded (account_id, at_ms) select account_id, at_ms from call_log');
  await knex.raw('drop table call_log');
  await knex.raw('alter table call_log_bounded rename to call_log');
  await knex.raw('create index call_log_account_id_at_ms_index on call_log (account_id, at_ms)');
}

export async function down(knex: Knex): Promise<void> {
  if (kindOf(knex) === 'postgres') {
    await knex.raw(QUOTA_ADMIT_GROUPED);
    await knex.raw('alter table call_log add column id serial primary key');
  } else {
    await knex.schema.createTable('call_log_keyed', (t) => {
      t.increments('id');
      t.string('account_id', 36).notNullable();
      t.bigInteger('at_ms').notNullable();
    });
    await knex.raw('insert into call_log_keyed (account_id, at_ms) select account_id, at_ms from call_log');
    await knex.raw('drop table call_log');
    await knex.raw('alter table call_log_keyed rename to call_log');
    await knex.raw('create index call_log_account_id_at_ms_index on call_log (account_id, at_ms)');
  }
  await knex.schema.alterTable('quota_accounts', (t) => {
    t.dropColumn('day_oldest_ms');
    t.dropColumn('minute_oldest_ms');
  });
}
