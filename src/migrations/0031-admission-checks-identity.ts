// PostgreSQL: an admitted call in one statement instead of two (SQLite: nothing to do). The
// identity's version (`change_stamps`, migration 0029) is checked by the admission itself: a
// call whose identity came from the memory of a process says which version it was read at,
// and `quota_admit` counts it only if that version is still the current one; otherwise the
// call is answered `stale`, not counted, and its identity is read again before it is admitted
// again (bearer.ts, quota-keeper.ts). Measured: the version read was one round trip of the two.
import type { Knex } from 'knex';

/**
 * `p_versions[i]`: the identity version call i was checked against, or null when its
 * identity was read from the database for this call (nothing to check). The version is read
 * once the accounts' locks are held, so a change committed before the admission is seen.
 */
export const QUOTA_ADMIT_CHECKED = `
create or replace function quota_admit(p_accounts varchar[], p_per_minute bigint[], p_per_day bigint[], p_now bigint[], p_versions bigint[])
returns table (admitted boolean, ceiling text, retry_after_ms bigint, stale boolean)
language plpgsql as $$
declare
  v_version bigint;
begin
  perform set_config('synchronous_commit', 'off', true);
  perform pg_advisory_xact_lock(k) from (select distinct hashtext('quota:' || a) as k from unnest(p_accounts) a order by 1) locks;
  select s.version into v_version from change_stamps s where s.name = 'identity';
  for i in 1 .. coalesce(array_length(p_accounts, 1), 0) loop
    if p_versions[i] is not null and p_versions[i] is distinct from v_version then
      admitted := false;
      ceiling := null;
      retry_after_ms := null;
      stale := true;
    else
      select o.admitted, o.ceiling, o.retry_after_ms into admitted, ceiling, retry_after_ms from quota_admit_one(p_accounts[i], p_per_minute[i], p_per_day[i], p_now[i]) o;
      stale := false;
    end if;
    return next;
  end loop;
end
$$`;

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw(QUOTA_ADMIT_CHECKED);
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('drop function if exists quota_admit(varchar[], bigint[], bigint[], bigint[], bigint[])');
}
