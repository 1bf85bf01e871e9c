// Alerts: keyword searches of an organisation, replayed by the robot.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('alerts', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('created_by', 36).notNullable();
    t.string('name', 120).notNullable();
    t.string('query', 500).notNullable();
    t.string('frequency', 10).notNullable();
    // JSON arrays: requested sources, watched sources, followed departments (merged),
    // and the departments given in `departements` alone (what attribution follows).
    t.text('sources').notNullable();
    t.text('sources_watched').notNullable();
    t.text('departements').notNullable();
    t.text('departements_followed').notNullable();
    t.string('departement', 3).nullable();
    t.double('montant_min').nullable();
    t.boolean('is_active').notNullable();
    t.string('kind', 20).notNullable();
    /** The criteria in one canonical string: same name and same criteria means the same alert. */
    t.text('criteria').notNullable();
    t.string('created_at', 40).notNullable();
    t.string('last_evaluated_at', 40).nullable();
    t.unique(['organisation_id', 'name']);
    t.index(['organisation_id', 'created_at']);
  });
  // The 200-alert cap, kept by one conditional update (exact under concurrency).
  await knex.schema.alterTable('organisations', (t) => {
    t.integer('alert_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('organisations', (t) => t.dropColumn('alert_count'));
  await knex.schema.dropTableIfExists('alerts');
}
