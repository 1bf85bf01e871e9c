// Full-text indexes of companies, notices and awards (SQLite FTS5 or PostgreSQL GIN).
import type { Knex } from 'knex';
import { AWARDS_SEARCH } from '../domains/awards/search-index.js';
import { COMPANIES_SEARCH } from '../domains/companies/search-index.js';
import { NOTICES_SEARCH } from '../domains/notices/search-index.js';
import { createSearchIndex, dropSearchIndex } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  for (const index of [COMPANIES_SEARCH, NOTICES_SEARCH, AWARDS_SEARCH]) await createSearchIndex(knex, index);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of [COMPANIES_SEARCH, NOTICES_SEARCH, AWARDS_SEARCH]) await dropSearchIndex(knex, index);
}
