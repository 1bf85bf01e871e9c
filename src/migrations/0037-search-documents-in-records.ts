// PostgreSQL: the awards' and announcements' search documents move from their own tables
// (`awards_search`, `announcements_search`) into a `document` column of the records' tables,
// with their GIN indexes, so that a search filtered by department intersects the words' index
// with the department's B-tree before reading any row (full-text.ts `PostgresRecords`).
// Measured on the large set's awards: « menuiseries interieures » in the Finistère, the capped
// count 173–273 → 8.4–12 ms. A document without its record is not carried over (no search
// could find it). The search result cache's counters of the old tables go with them; the
// records' tables have theirs (migration 0030). SQLite keeps its FTS5 tables: nothing changes.
import type { Knex } from 'knex';
import { ANNOUNCEMENTS_SEARCH } from '../domains/announcements/search-index.js';
import { AWARDS_SEARCH } from '../domains/awards/search-index.js';
import { kindOf } from '../platform/db/database.js';
import { createSearchIndex, dropSearchIndex, inOwnTable, type SearchIndex } from '../platform/search/full-text.js';

const MOVED: readonly SearchIndex[] = [AWARDS_SEARCH, ANNOUNCEMENTS_SEARCH];

/** PostgreSQL: the search tables dropped here (their documents are in their records' tables). */
export const TABLES_MOVED_TO_RECORDS: readonly string[] = MOVED.map((index) => index.name);

/** The version counter and its trigger of a searched table (migration 0030), on a table created here. */
async function countChanges(knex: Knex, table: string): Promise<void> {
  await knex.raw('insert into search_data_versions (name) values (?) on conflict (name) do nothing', [table]);
  await knex.raw(`create trigger search_data_changed after insert or update or delete or truncate on ?? for each statement execute function search_data_changed()`, [table]);
}

export async function up(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  for (const index of MOVED) {
    const records = index.postgresRecords as { table: string; key: string };
    await knex.raw(`alter table ?? add column document tsvector`, [records.table]);
    await knex.raw(`update ?? as r set document = s.document from ?? as s where s.key = r.??`, [records.table, index.name, records.key]);
    await knex.raw(`create index ?? on ?? using gin (document)`, [`${records.table}_document`, records.table]);
    await knex.raw('drop table ??', [index.name]);
    await knex.raw('delete from search_data_versions where name = ?', [index.name]);
  }
}

export async function down(knex: Knex): Promise<void> {
  if (kindOf(knex) !== 'postgres') return;
  for (const index of MOVED) {
    const records = index.postgresRecords as { table: string; key: string };
    await createSearchIndex(knex, inOwnTable(index));
    await knex.raw(`insert into ?? (key, document) select ??, document from ?? where document is not null`, [index.name, records.key, records.table]);
    await dropSearchIndex(knex, index);
    await countChanges(knex, index.name);
  }
}
