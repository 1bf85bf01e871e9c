// PostgreSQL: the search result cache shared by every process on the database
// (search-cache.ts): a page or a ranking one process computed answers the same question in
// the others, and in itself after a restart, instead of each process computing it again.
// Keyed by a hash of the data's version and the whole question, as the processes' own caches
// are: a write to a searched table changes the version, so an entry is never read after it.
// Unlogged: nothing of it goes to the write-ahead log (a cache needs no durability; after a
// crash the table is empty, which is still exact). `stored_at` for the sweep of old entries.
// SQLite: nothing (its processes are on one machine; a write per computed page would queue
// behind the imports' writer).
import type { Knex } from 'knex';
import { kindOf } from '../platform/db/database.js';

export async function up(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  await knex.raw(`create unlogged table search_cache_entries (key text primary key, value text not null, stored_at timestamptz not null default now())`);
  await knex.raw(`create index search_cache_entries_stored_at on search_cache_entries (stored_at)`);
}

export async function down(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  await knex.raw('drop table search_cache_entries');
}
