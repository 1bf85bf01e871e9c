// PostgreSQL's path of an admitted call in two statements instead of ten (SQLite: nothing to do).
// - `quota_admit`: the quota check-and-count (quota-store.ts `admitSteps`, the same steps and
//   the same counters) of a group of calls in one statement, so the accounts' advisory locks
//   are held for the function only, not across eight round trips per call, and its commit
//   does not wait for the WAL to reach the disk (as SQLite's `synchronous = NORMAL`: a crash
//   of the database server may forget the last calls counted, never corrupt the counts).
// - `change_stamps`: a version of the rows a caller's identity is read from (tokens, users,
//   memberships, organisations, plan limits), raised by every statement that writes them, in
//   the writer's transaction: the identity of a token may then be kept in memory while the
//   version stays the same (bearer.ts), and a revocation is still seen on the very next call.
import type { Knex } from 'knex';

/** The tables a caller's identity is read from (bearer.ts `read`, accounts.ts `loadAccount`). */
export const IDENTITY_TABLES = ['oauth_store', 'users', 'memberships', 'organisations', 'plan_limits'] as const;

/** One admission; the caller holds the account's lock (quota_admit). */
const QUOTA_ADMIT_ONE = `
create or replace function quota_admit_one(p_account varchar, p_per_minute bigint, p_per_day bigint, p_now bigint, out admitted boolean, out ceiling text, out retry_after_ms bigint)
language plpgsql as $$
declare
  v_day bigint := 0;
  v_minute bigint := 0;
  v_floor bigint := 0;
  v_left bigint;
  v_pruned bigint;
  v_minute_start bigint := p_now - 60000;
  v_minute_retry bigint;
  v_day_retry bigint;
begin
  select q.day_count, q.minute_count, q.minute_floor_ms into v_day, v_minute, v_floor from quota_accounts q where q.account_id = p_account;
  v_day := coalesce(v_day, 0);
  v_minute := coalesce(v_minute, 0);
  v_floor := coalesce(v_floor, 0);
  if v_minute_start > v_floor then
    select count(*) into v_left from call_log c where c.account_id = p_account and c.at_ms > v_floor and c.at_ms <= v_minute_start;
    v_minute := greatest(0, v_minute - v_left);
    v_floor := v_minute_start;
  end if;
  delete from call_log c where c.account_id = p_account and c.at_ms <= p_now - 86400000;
  get diagnostics v_pruned = row_count;
  v_day := greatest(0, v_day - v_pruned);
  admitted := v_minute < p_per_minute and v_day < p_per_day;
  if admitted then
    insert into call_log (account_id, at_ms) values (p_account, p_now);
    v_day := v_day + 1;
    v_minute := v_minute + 1;
  else
    -- Both ceilings reached: the refusal names the one that frees up later.
    if v_minute >= p_per_minute then
      select coalesce(min(c.at_ms), p_now) + 60000 into v_minute_retry from call_log c where c.account_id = p_account and c.at_ms > v_floor;
    end if;
    if v_day >= p_per_day then
      select coalesce(min(c.at_ms), p_now) + 86400000 into v_day_retry from call_log c where c.account_id = p_account and c.at_ms > p_now - 86400000;
    end if;
    if v_day_retry is not null and (v_minute_retry is null or v_day_retry > v_minute_retry) then
      ceiling := 'day';
      retry_after_ms := v_day_retry;
    else
      ceiling := 'minute';
      retry_after_ms := v_minute_retry;
    end if;
  end if;
  insert into quota_accounts (account_id, day_count, minute_count, minute_floor_ms) values (p_account, v_day, v_minute, v_floor)
    on conflict (account_id) do update set day_count = excluded.day_count, minute_count = excluded.minute_count, minute_floor_ms = excluded.minute_floor_ms;
end
$$`;

/**
 * A group of admissions (the calls that asked during one turn of the event loop), decided
 * one by one in the order given, in one transaction: every account's lock is taken first,
 * in one order for all groups (no deadlock between two groups), and the commit is paid once.
 */
const QUOTA_ADMIT = `
create or replace function quota_admit(p_accounts varchar[], p_per_minute bigint[], p_per_day bigint[], p_now bigint[])
returns table (admitted boolean, ceiling text, retry_after_ms bigint)
language plpgsql as $$
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(k) from (select distinct hashtext('quota:' || a) as k from unnest(p_accounts) a order by 1) locks;
  for i in 1 .. coalesce(array_length(p_accounts, 1), 0) loop
    select o.admitted, o.ceiling, o.retry_after_ms into admitted, ceiling, retry_after_ms from quota_admit_one(p_accounts[i], p_per_minute[i], p_per_day[i], p_now[i]) o;
    return next;
  end loop;
end
$$`;

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(QUOTA_ADMIT_ONE);
  await knex.raw(QUOTA_ADMIT);
  await knex.schema.createTable('change_stamps', (t) => {
    t.string('name', 40).primary();
    t.bigInteger('version').notNullable().defaultTo(0);
  });
  await knex('change_stamps').insert({ name: 'identity', version: 0 });
  // Before each statement, not after: the stamp's row is locked before any row of the
  // statement, so two writers take the locks in the same order.
  await knex.raw(`create or replace function bump_identity_stamp() returns trigger language plpgsql as $$
begin
  update change_stamps set version = version + 1 where name = 'identity';
  return null;
end
$$`);
  for (const table of IDENTITY_TABLES) {
    await knex.raw(`create trigger ?? before insert or update or delete or truncate on ?? for each statement execute function bump_identity_stamp()`, [`${table}_identity_stamp`, table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  for (const table of IDENTITY_TABLES) await knex.raw('drop trigger if exists ?? on ??', [`${table}_identity_stamp`, table]);
  await knex.raw('drop function if exists bump_identity_stamp()');
  await knex.schema.dropTableIfExists('change_stamps');
  await knex.raw('drop function if exists quota_admit(varchar[], bigint[], bigint[], bigint[])');
  await knex.raw('drop function if exists quota_admit_one(varchar, bigint, bigint, bigint)');
}
