// Response files of the bid workspace (issue 16): for one notice, the checklist of what the
// organisation must provide (items kept as one JSON list, so that an update rewrites the
// whole list under one version check) and the organisation's own documents attached to its
// items, their bytes in the object store of consultation files (by SHA-256).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('response_files', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('marche_id', 36).notNullable();
    t.string('title', 200).notNullable();
    /** `rc` when the checklist was read in the consultation file's RC, else `defaut`. */
    t.string('source_kind', 10).notNullable();
    t.string('source_dce_id', 36).nullable();
    t.string('source_rc', 500).nullable();
    t.text('items').notNullable();
    /** The next item number (p1, p2…): an item's id is never reused, even after removal. */
    t.integer('next_item').notNullable();
    t.integer('version').notNullable();
    t.string('created_by', 36).notNullable();
    t.string('created_at', 40).notNullable();
    t.string('updated_by', 36).notNullable();
    t.string('updated_at', 40).notNullable();
    t.unique(['organisation_id', 'marche_id']);
    t.index(['organisation_id', 'updated_at']);
  });
  await knex.schema.createTable('response_file_documents', (t) => {
    t.string('id', 36).primary();
    t.string('response_file_id', 36).notNullable().references('id').inTable('response_files').onDelete('CASCADE');
    t.string('item_id', 10).notNullable();
    /** Attachment order within the file (documents attached by one call keep the call's order). */
    t.integer('seq').notNullable();
    t.string('filename', 200).notNullable();
    t.string('content_type', 120).notNullable();
    t.bigInteger('size').notNullable();
    t.string('object_key', 64).notNullable();
    t.string('created_by', 36).notNullable();
    t.string('created_at', 40).notNullable();
    t.index(['response_file_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('response_file_documents');
  await knex.schema.dropTableIfExists('response_files');
}
