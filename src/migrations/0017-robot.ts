// The alert robot (issue 15): one row per slot run (every 3 hours on the Paris clock) and
// each alert's progress. The slot row's primary key makes a slot claimed once across every
// process on the database; its lease lets another process resume a slot whose runner died.
// An alert's progress (`robot_slot`, `robot_window_end`) is written in the same transaction
// as its events, so a resumed slot skips the alerts already done and replays nothing twice.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('robot_runs', (t) => {
    /** Start of the slot (ISO 8601, UTC): one run per slot. */
    t.string('slot_start', 40).primary();
    /** The process running it (random id per process); another takes over once the lease has passed. */
    t.string('owner', 64).notNullable();
    t.string('lease_until', 40).notNullable();
    t.string('started_at', 40).notNullable();
    t.string('finished_at', 40).nullable();
    /** How many times the slot was taken over after an expired lease. */
    t.integer('takeovers').notNullable().defaultTo(0);
    t.integer('alerts_evaluated').notNullable().defaultTo(0);
    t.integer('events_written').notNullable().defaultTo(0);
    /** Events written per alert source, JSON ({"marche": 12, …}), counted by the last runner. */
    t.text('counters').notNullable().defaultTo('{}');
  });
  await knex.schema.alterTable('alerts', (t) => {
    /** Start of the slot of the alert's last evaluation (ISO 8601, UTC); null: never evaluated. */
    t.string('robot_slot', 40).nullable();
    /** Upper bound of the ingestion window of the last evaluation: the next one starts there. */
    t.string('robot_window_end', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('alerts', (t) => {
    t.dropColumn('robot_window_end');
    t.dropColumn('robot_slot');
  });
  await knex.schema.dropTableIfExists('robot_runs');
}
