// SQLite: a version counter per searched table, as PostgreSQL has had since migration 0030
// (PostgreSQL: nothing to do), so that the search result cache is invalidated only by writes
// to the tables a search reads, whichever process or connection wrote them. Until now the
// cache was keyed on SQLite by the file's change stamp, which every commit moves: with
// several service processes on one file, each admitted call's quota-log row emptied the
// other processes' caches.
// SQLite has row triggers only: each written row adds one to its table's counter, in the
// writer's own transaction (rolled back with it, seen at its commit by every connection).
// The body is one update of one row of a small WITHOUT ROWID table (one B-tree seek).
// A full-text index (an FTS5 virtual table, which cannot have triggers) is counted through
// its `<name>_keys` table, written with every change of its documents (a new key, a changed
// hash, a deleted key: src/platform/search/full-text.ts), under the index's name.
import type { Knex } from 'knex';
import { SEARCHED_TABLES } from './0030-search-under-load.js';

const CHANGES = ['insert', 'update', 'delete'] as const;

/** The SQLite triggers counting the writes of `name` (a table, or a full-text index through its keys table) in `search_data_versions`. */
export function sqliteVersionTriggers(name: string, fullText: boolean): string[] {
  const table = fullText ? `${name}_keys` : name;
  return CHANGES.map(
    (change) =>
      `create trigger "${table}_search_version_${change}" after ${change} on "${table}" begin update search_data_versions set version = version + 1 where name = '${name}'; end`,
  );
}

/** Whether `name` is a full-text index on SQLite (an FTS5 table with its keys table). */
async function isFullText(knex: Knex, name: string): Promise<boolean> {
  const rows = (await knex.raw("select name from sqlite_master where type = 'table' and name = ?", [`${name}_keys`])) as unknown[];
  return rows.length > 0;
}

export async function up(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  await knex.raw('create table search_data_versions (name text primary key, version integer not null default 0) without rowid');
  for (const name of SEARCHED_TABLES) {
    await knex.raw('insert into search_data_versions (name) values (?)', [name]);
    for (const sql of sqliteVersionTriggers(name, await isFullText(knex, name))) await knex.raw(sql);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (knex.client.config.client === 'pg') return;
  for (const name of SEARCHED_TABLES) {
    const table = (await isFullText(knex, name)) ? `${name}_keys` : name;
    for (const change of CHANGES) await knex.raw(`drop trigger if exists "${table}_search_version_${change}"`);
  }
  await knex.raw('drop table if exists search_data_versions');
}
