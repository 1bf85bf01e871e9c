// The definitions of the indexes a first load dropped to build them once at its end
// (PostgreSQL, src/platform/db/deferred-indexes.ts), written in the transaction that drops
// them: a load that stops (an error, a killed process) leaves them here, and the next import
// or the service's start builds them. On SQLite the table exists and stays empty.
// A search table that a load stopped under the former deferral left without its GIN index
// (nothing stored then) gets its definition stored here, built at the next start.
import type { Knex } from 'knex';
import { kindOf } from '../platform/db/database.js';
import { documentIndexSql, searchTables } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deferred_indexes', (t) => {
    t.text('name').primary();
    t.text('table_name').notNullable();
    t.text('definition').notNullable();
  });
  if (kindOf(knex) !== 'postgres') return;
  for (const table of await searchTables(knex)) {
    if (table.indexed) continue;
    await knex('deferred_indexes').insert({ name: `${table.name}_document`, table_name: table.name, definition: documentIndexSql(table.name) });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('deferred_indexes');
}
