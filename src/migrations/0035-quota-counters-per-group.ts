// PostgreSQL: `quota_admit` reads each account's counters once per group and writes them once
// at its end, as SQLite's grouped admission does (quota-store.ts `admitInOrder`), instead of
// a read and a write of the account's row for every call (SQLite: nothing to do). The steps
// are inline: measured on one account, `quota_admit` called directly with groups of 13 calls,
// about 48 µs per call in the group before, 34 µs with the counters carried but a function
// called per call, 26 to 30 µs inline.
import type { Knex } from 'knex';
import { QUOTA_ADMIT_CHECKED } from './0031-admission-checks-identity.js';

/**
 * The group's admissions in order (migration 0031's version check kept): each account's
 * counters read at its first call, carried from call to call, and saved once at the end.
 */
export const QUOTA_ADMIT_GROUPED = `
create or replace function quota_admit(p_accounts varchar[], p_per_minute bigint[], p_per_day bigint[], p_now bigint[], p_versions bigint[])
returns table (admitted boolean, ceiling text, retry_after_ms bigint, stale boolean)
language plpgsql as $$
declare
  v_version bigint;
  v_accounts varchar[] := '{}';
  v_days bigint[] := '{}';
  v_minutes bigint[] := '{}';
  v_floors bigint[] := '{}';
  v_day bigint;
  v_minute bigint;
  v_floor bigint;
  v_left bigint;
  v_pruned bigint;
  v_minute_start bigint;
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
        select q.day_count, q.minute_count, q.minute_floor_ms into v_day, v_minute, v_floor from quota_accounts q where q.account_id = p_accounts[i];
        v_accounts := v_accounts || p_accounts[i];
        v_days := v_days || coalesce(v_day, 0);
        v_minutes := v_minutes || coalesce(v_minute, 0);
        v_floors := v_floors || coalesce(v_floor, 0);
        j := array_length(v_accounts, 1);
      end if;
      -- The steps of migration 0029's quota_admit_one, from the counters in hand.
      v_day := v_days[j];
      v_minute := v_minutes[j];
      v_floor := v_floors[j];
      v_minute_start := p_now[i] - 60000;
      if v_minute_start > v_floor then
        select count(*) into v_left from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_floor and c.at_ms <= v_minute_start;
        v_minute := greatest(0, v_minute - v_left);
        v_floor := v_minute_start;
      end if;
      delete from call_log c where c.account_id = p_accounts[i] and c.at_ms <= p_now[i] - 86400000;
      get diagnostics v_pruned = row_count;
      v_day := greatest(0, v_day - v_pruned);
      admitted := v_minute < p_per_minute[i] and v_day < p_per_day[i];
      ceiling := null;
      retry_after_ms := null;
      if admitted then
        insert into call_log (account_id, at_ms) values (p_accounts[i], p_now[i]);
        v_day := v_day + 1;
        v_minute := v_minute + 1;
      else
        -- Both ceilings reached: the refusal names the one that frees up later.
        v_minute_retry := null;
        v_day_retry := null;
        if v_minute >= p_per_minute[i] then
          select coalesce(min(c.at_ms), p_now[i]) + 60000 into v_minute_retry from call_log c where c.account_id = p_accounts[i] and c.at_ms > v_floor;
        end if;
        if v_day >= p_per_day[i] then
          select coalesce(min(c.at_ms), p_now[i]) + 86400000 into v_day_retry from call_log c where c.account_id = p_accounts[i] and c.at_ms > p_now[i] - 86400000;
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
      stale := false;
    end if;
    return next;
  end loop;
  insert into quota_accounts (account_id, day_count, minute_count, minute_floor_ms)
    select * from unnest(v_accounts, v_days, v_minutes, v_floors)
    on conflict (account_id) do update set day_count = excluded.day_count, minute_count = excluded.minute_count, minute_floor_ms = excluded.minute_floor_ms;
end
$$`;

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(QUOTA_ADMIT_GROUPED);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(QUOTA_ADMIT_CHECKED);
}
