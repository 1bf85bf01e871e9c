// Searches under load.
// 1. Both engines: the company filter « an active establishment in the department »
//    (EXISTS on establishments by siren, departement, etat) reads one index entry per company
//    instead of choosing, on SQLite without statistics, the department's index and scanning
//    every establishment of the department for each matching company (minutes for a broad
//    query). The index by siren alone gives way to it (its first column serves the same reads).
// 2. PostgreSQL: a version counter per searched table, bumped at the commit of every transaction
// that wrote the table, whichever process wrote it, so that the search result cache is exact
// across processes (src/platform/search/search-cache.ts). A statement trigger notes the
// table once per transaction (a transaction-local setting), in a table whose rows never
// outlive their transaction; a deferred trigger turns the notes into the increments just
// before the commit, so a counter's row is locked only during a commit, never during a long
// import, and the counters of one commit are taken in name order (no deadlock between two
// commits). SQLite: row triggers, migration 0032.
import type { Knex } from 'knex';

/** Every table a search reads (the domains' filtered queries and their full-text indexes). */
export const SEARCHED_TABLES = [
  'notices',
  'notice_departements',
  'notices_search',
  'companies',
  'establishments',
  'rge_certifications',
  'company_turnovers',
  'company_registers',
  'companies_search',
  'awards',
  'award_winners',
  'awards_search',
  'announcements',
  'announcement_sirens',
  'announcements_search',
  'permits',
  'permits_search',
  'publications',
  'publications_search',
  'deliberations',
  'deliberations_search',
  'contacts',
  'contacts_search',
  'dce_pages',
  'dce_files',
  'dce_search',
] as const;

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('establishments', (t) => {
    t.index(['siren', 'departement', 'etat'], 'establishments_siren_departement_etat');
  });
  await knex.schema.alterTable('establishments', (t) => t.dropIndex(['siren']));
  if (knex.client.config.client !== 'pg') return;
  await knex.raw('create table search_data_versions (name text primary key, version bigint not null default 0)');
  await knex.raw('create table search_data_changes (name text not null)');
  await knex.raw(`
    create function search_data_changed() returns trigger language plpgsql as $$
    begin
      if current_setting('search_data.changed_' || tg_table_name, true) is distinct from '1' then
        perform set_config('search_data.changed_' || tg_table_name, '1', true);
        insert into search_data_changes (name) values (tg_table_name);
      end if;
      return null;
    end $$`);
  await knex.raw(`
    create function search_data_commit() returns trigger language plpgsql as $$
    declare
      changed record;
    begin
      for changed in select distinct name from search_data_changes order by name loop
        update search_data_versions set version = version + 1 where name = changed.name;
      end loop;
      delete from search_data_changes;
      return null;
    end $$`);
  await knex.raw(
    'create constraint trigger search_data_commit after insert on search_data_changes deferrable initially deferred for each row execute function search_data_commit()',
  );
  for (const table of SEARCHED_TABLES) {
    await knex.raw('insert into search_data_versions (name) values (?)', [table]);
    await knex.raw(`create trigger search_data_changed after insert or update or delete or truncate on ?? for each statement execute function search_data_changed()`, [table]);
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('establishments', (t) => t.index(['siren']));
  await knex.schema.alterTable('establishments', (t) => t.dropIndex([], 'establishments_siren_departement_etat'));
  if (knex.client.config.client !== 'pg') return;
  for (const table of SEARCHED_TABLES) await knex.raw('drop trigger if exists search_data_changed on ??', [table]);
  await knex.raw('drop table if exists search_data_changes');
  await knex.raw('drop table if exists search_data_versions');
  await knex.raw('drop function if exists search_data_changed()');
  await knex.raw('drop function if exists search_data_commit()');
}
