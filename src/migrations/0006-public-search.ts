// Full-text indexes of companies, notices and awards (SQLite FTS5 or PostgreSQL GIN).
import type { Knex } from 'knex';
import { AWARDS_SEARCH } from '../domains/awards/search-index.js';
import { COMPANIES_SEARCH } from '../domains/companies/search-index.js';
import { NOTICES_SEARCH } from '../domains/notices/search-index.js';
import { createSearchIndex, dropSearchIndex, inOwnTable } from '../platform/search/full-text.js';

// Each index in a table of its own, as it was made then (migration 0037 moves the awards' documents on PostgreSQL).
const INDEXES = [COMPANIES_SEARCH, NOTICES_SEARCH, AWARDS_SEARCH].map(inOwnTable);

export async function up(knex: Knex): Promise<void> {
  for (const index of INDEXES) await createSearchIndex(knex, index);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of INDEXES) await dropSearchIndex(knex, index);
}
