// Consultation files (issue 14): a file per notice (or unmatched), its pieces as published
// (kept in the object store by the SHA-256 of their bytes), their text by reading page, and
// the full-text index of those pages.
import type { Knex } from 'knex';
import { DCE_SEARCH } from '../domains/dce/search-index.js';
import { createSearchIndex, dropSearchIndex } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dce_files', (t) => {
    t.string('id', 36).primary();
    // The notice it belongs to: its marche_id when matched at import, else the platform's
    // annonce_id (matched when the notice arrives); neither for an unmatched file.
    t.string('marche_id', 36).nullable();
    t.string('annonce_id', 100).nullable();
    t.string('label', 300).notNullable();
    t.integer('version').notNullable();
    // SHA-256 of the pieces' names and keys: the same content imported again changes nothing.
    t.string('content_sha', 64).notNullable();
    t.integer('pieces').notNullable();
    t.bigInteger('bytes').notNullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['marche_id']);
    t.index(['annonce_id']);
    t.index(['content_sha']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('dce_pieces', (t) => {
    t.string('dce_id', 36).notNullable();
    t.integer('position').notNullable();
    t.string('filename', 500).notNullable();
    t.string('doc_type', 10).notNullable();
    t.integer('lot').nullable();
    t.string('content_type', 120).notNullable();
    t.bigInteger('size').notNullable();
    t.string('object_key', 64).notNullable();
    t.integer('source_pages').notNullable();
    t.integer('scanned_pages').notNullable();
    t.integer('reading_pages').notNullable();
    t.primary(['dce_id', 'position']);
    t.unique(['dce_id', 'filename']);
  });
  await knex.schema.createTable('dce_pages', (t) => {
    t.string('dce_id', 36).notNullable();
    t.integer('position').notNullable();
    t.integer('page').notNullable();
    // `dce_id/position/page`: the page's key in the search index.
    t.string('search_key', 60).notNullable().unique();
    t.text('text').notNullable();
    t.primary(['dce_id', 'position', 'page']);
  });
  await createSearchIndex(knex, DCE_SEARCH);
}

export async function down(knex: Knex): Promise<void> {
  await dropSearchIndex(knex, DCE_SEARCH);
  for (const table of ['dce_pages', 'dce_pieces', 'dce_files']) await knex.schema.dropTableIfExists(table);
}
