// The bid workspace (issue 16): follow-ups and drafts with their versions. Every row
// belongs to one organisation and carries who created and last changed it, when, and a
// `version` that a stale update must match (optimistic concurrency, 409 otherwise).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('follow_ups', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('target_kind', 20).notNullable();
    t.string('target_id', 220).notNullable();
    /** The notice behind the target (a notice, or the notice of a consultation file): compared at read time. */
    t.string('marche_id', 36).nullable();
    /** The notice's deadline when the follow-up began or when its move was acknowledged. */
    t.string('deadline_seen', 40).nullable();
    t.string('status', 20).notNullable();
    t.string('owner_id', 36).nullable();
    t.string('due_date', 10).nullable();
    t.text('notes').notNullable();
    t.text('tags').notNullable();
    t.integer('version').notNullable();
    t.string('created_by', 36).notNullable();
    t.string('created_at', 40).notNullable();
    t.string('updated_by', 36).notNullable();
    t.string('updated_at', 40).notNullable();
    t.unique(['organisation_id', 'target_kind', 'target_id']);
    t.index(['organisation_id', 'created_at']);
  });
  await knex.schema.createTable('drafts', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('marche_id', 36).nullable();
    t.string('response_file_id', 36).nullable();
    t.string('kind', 30).notNullable();
    t.string('title', 200).notNullable();
    t.text('body').notNullable();
    t.integer('version').notNullable();
    t.string('created_by', 36).notNullable();
    t.string('created_at', 40).notNullable();
    t.string('updated_by', 36).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['organisation_id', 'created_at']);
  });
  await knex.schema.createTable('draft_versions', (t) => {
    t.string('draft_id', 36).notNullable().references('id').inTable('drafts').onDelete('CASCADE');
    t.integer('version').notNullable();
    t.string('title', 200).notNullable();
    t.text('body').notNullable();
    t.string('written_by', 36).notNullable();
    t.string('written_at', 40).notNullable();
    t.primary(['draft_id', 'version']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('draft_versions');
  await knex.schema.dropTableIfExists('drafts');
  await knex.schema.dropTableIfExists('follow_ups');
}
