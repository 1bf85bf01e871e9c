// PostgreSQL: the awards' and announcements' search documents move from their own tables
// (`awards_search`, `announcements_search`) into a `document` column of the records' tables,
// with their GIN indexes, so that a search filtered by department intersects the words' index
// with the department's B-tree before reading any row (full-text.ts `PostgresRecords`).
// Measured on the large set's awards: « menuiseries interieures » in the Finistère, the capped
// count 173–273 → 8.4–12 ms. A document without its record is not carried over (no search
// could find it). The search result cache's counters of the old tables go with them; the
// records' tables have theirs (migration 0030). SQLite keeps its FTS5 tables: nothing changes.
import type { Knex } from 'knex';
import { kindOf } from '../platform/db/database.js';
import { documentIndexSql } from '../platform/search/full-text.js';

/** The search tables moved, and their records' tables and keys (as the indexes declare them: `postgresRecords`). */
const MOVED = [
  { name: 'awards_search', table: 'awards', key: 'award_key' },
  { name: 'announcements_search', table: 'announcements', key: 'id' },
] as const;

/** PostgreSQL: the search tables dropped here (their documents are in their records' tables). */
export const TABLES_MOVED_TO_RECORDS: readonly string[] = MOVED.map((m) => m.name);

export async function up(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  for (const { name, table, key } of MOVED) {
    await knex.raw('alter table ?? add column document tsvector', [table]);
    await knex.raw('update ?? as r set document = s.document from ?? as s where s.key = r.??', [table, name, key]);
    await knex.raw(documentIndexSql(table));
    await knex.raw('drop table ??', [name]);
    await knex.raw('delete from search_data_versions where name = ?', [name]);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  for (const { name, table, key } of MOVED) {
    await knex.raw('create table ?? (key text primary key, document tsvector not null)', [name]);
    await knex.raw('insert into ?? (key, document) select ??, document from ?? where document is not null', [name, key, table]);
    await knex.raw(documentIndexSql(name));
    await knex.raw('alter table ?? drop column document', [table]);
    // The table's version counter and its trigger, as migration 0030 made them.
    await knex.raw('insert into search_data_versions (name) values (?) on conflict (name) do nothing', [name]);
    await knex.raw('create trigger search_data_changed after insert or update or delete or truncate on ?? for each statement execute function search_data_changed()', [name]);
  }
}
