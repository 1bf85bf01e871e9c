// Event subscriptions to alerts (issue 15): a subscription reads its alert's event log from
// its checkpoint (the last seq of the acknowledged prefix); acknowledgements above the
// checkpoint wait in `event_acks` until the prefix reaches them. The caps of 20 per account
// and 20 per organisation are counters kept by conditional updates (exact under concurrency).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('event_subscriptions', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    // Deleting an alert ends its subscriptions explicitly (counters first); the cascade is
    // what remains when an organisation goes altogether.
    t.string('alert_id', 36).notNullable().references('id').inTable('alerts').onDelete('CASCADE');
    /** The account that created it: its 20-subscription counter holds this one. */
    t.string('created_by', 36).notNullable();
    t.string('key', 120).notNullable();
    /** The seq of alert_events up to which everything is acknowledged (or was there at creation). */
    t.bigInteger('checkpoint').notNullable();
    t.string('created_at', 40).notNullable();
    t.string('last_acked_at', 40).nullable();
    t.unique(['alert_id', 'key']);
    t.index(['organisation_id', 'created_at']);
  });
  await knex.schema.createTable('event_acks', (t) => {
    t.string('subscription_id', 36).notNullable().references('id').inTable('event_subscriptions').onDelete('CASCADE');
    /** An event acknowledged above the checkpoint (out of order). */
    t.bigInteger('seq').notNullable();
    t.primary(['subscription_id', 'seq']);
  });
  await knex.schema.alterTable('organisations', (t) => {
    t.integer('event_subscription_count').notNullable().defaultTo(0);
  });
  await knex.schema.alterTable('users', (t) => {
    t.integer('event_subscription_count').notNullable().defaultTo(0);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (t) => t.dropColumn('event_subscription_count'));
  await knex.schema.alterTable('organisations', (t) => t.dropColumn('event_subscription_count'));
  await knex.schema.dropTableIfExists('event_acks');
  await knex.schema.dropTableIfExists('event_subscriptions');
}
