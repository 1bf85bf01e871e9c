// Subscription requests (abonnement.subscribe): one per organisation at a time, started by a
// member through the API, confirmed by an administrator on the account page (which changes
// the plan). The row is kept after confirmation: who confirmed, and when.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('subscription_requests', (t) => {
    // One request per organisation: a replayed call finds it instead of starting another.
    t.string('organisation_id', 36).primary().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('id', 36).notNullable().unique();
    t.string('requested_by', 36).notNullable();
    t.string('requested_at', 40).notNullable();
    t.string('expires_at', 40).notNullable();
    t.string('confirmed_by', 36).nullable();
    t.string('confirmed_at', 40).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('subscription_requests');
}
