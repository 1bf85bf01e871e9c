// The synchronisation with the publishers: one row per source holding its cursor (written in
// the same transaction as the rows it covers, so a run killed anywhere resumes where it
// stopped), the lease of its run in progress (one run per source across every process on the
// database), and what its last runs did, for the freshness said to users and operators.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sync_state', (t) => {
    /** The connector's name (`boamp`, `sirene`…). */
    t.string('source', 40).primary();
    /** The connector's cursor, JSON (a day and an offset, a SIRENE cursor, an ETag per file…); null before the first page. */
    t.text('cursor').nullable();
    /** The process running it (random id per process) and until when its lease holds. */
    t.string('owner', 64).nullable();
    t.string('lease_until', 40).nullable();
    /** Start of the run in progress, or of the last one. */
    t.string('run_started_at', 40).nullable();
    t.string('last_success_at', 40).nullable();
    t.string('last_failure_at', 40).nullable();
    /** The last failure's reason, in French (what the publisher answered, never a body or a secret). */
    t.text('last_failure_reason').nullable();
    /** Records read, added, updated and skipped by the run in progress or the last one (written with each page). */
    t.integer('run_read').notNullable().defaultTo(0);
    t.integer('run_added').notNullable().defaultTo(0);
    t.integer('run_updated').notNullable().defaultTo(0);
    t.integer('run_skipped').notNullable().defaultTo(0);
    /** Since the first run. */
    t.bigInteger('total_read').notNullable().defaultTo(0);
    t.bigInteger('total_added').notNullable().defaultTo(0);
    t.bigInteger('total_updated').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sync_state');
}
