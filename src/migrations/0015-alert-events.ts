// The event log of alerts (issue 15): what the robot found for an alert, one row per
// (alert, kind, record) so that a run replayed after a crash writes no duplicate. `seq`
// orders the events of an alert as they were written: the robot writes an alert's events
// in one transaction, one alert at a time, so a reader never sees a later seq before an
// earlier one of the same alert.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('alert_events', (t) => {
    t.bigIncrements('seq').primary();
    t.string('id', 36).notNullable().unique();
    t.string('alert_id', 36).notNullable().references('id').inTable('alerts').onDelete('CASCADE');
    t.string('organisation_id', 36).notNullable();
    t.string('kind', 30).notNullable();
    t.string('source', 20).notNullable();
    t.string('record_id', 100).notNullable();
    /** When the fact happened (the notice's publication, the permit's authorisation…), ISO 8601. */
    t.string('occurred_at', 40).notNullable();
    /** When the robot wrote it: the 30-day retention counts from here. */
    t.string('created_at', 40).notNullable();
    /** The record as every search returns it: {id, titre, resume, fields} as JSON. */
    t.text('record').notNullable();
    t.unique(['alert_id', 'kind', 'record_id']);
    t.index(['alert_id', 'seq']);
    t.index(['created_at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('alert_events');
}
