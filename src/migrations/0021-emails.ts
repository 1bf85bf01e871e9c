// E-mail sends requested by the caller (issue 16): the outbox (one row per message, its
// idempotency key unique in the organisation, its delivery state and lease), the hourly
// counter that caps sends exactly under concurrency, and the organisation's sending domain
// (its DKIM public key; the private key lives with the service's secrets).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('email_messages', (t) => {
    t.string('id', 36).primary();
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('created_by', 36).notNullable();
    t.string('idempotency_key', 120).notNullable();
    /** Hash of what was asked: the same key with another message is a conflict, not a replay. */
    t.string('content_hash', 64).notNullable();
    t.string('sender_kind', 20).notNullable();
    t.string('from_name', 200).notNullable();
    t.string('from_address', 320).notNullable();
    t.string('reply_to', 320).nullable();
    t.string('envelope_from', 320).notNullable();
    t.text('recipients_to').notNullable();
    t.text('recipients_cc').notNullable();
    t.string('subject', 200).notNullable();
    t.text('body').notNullable();
    t.string('draft_id', 36).nullable();
    t.string('dkim_domain', 253).nullable();
    t.string('dkim_selector', 63).nullable();
    /** Fixed at record time: a redelivery after a crash carries the same Message-ID. */
    t.string('message_id', 255).notNullable();
    t.string('state', 20).notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('next_attempt_at', 40).notNullable();
    t.string('lease_until', 40).nullable();
    t.string('last_response', 500).nullable();
    t.string('created_at', 40).notNullable();
    t.string('sent_at', 40).nullable();
    t.string('updated_at', 40).notNullable();
    t.unique(['organisation_id', 'idempotency_key']);
    t.index(['state', 'next_attempt_at']);
    t.index(['organisation_id', 'created_at']);
  });
  await knex.schema.createTable('email_hourly_counts', (t) => {
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    /** The UTC hour, AAAA-MM-JJTHH. */
    t.string('hour', 13).notNullable();
    t.integer('count').notNullable();
    t.primary(['organisation_id', 'hour']);
  });
  await knex.schema.createTable('email_domains', (t) => {
    t.string('organisation_id', 36).primary().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('domain', 253).notNullable();
    t.string('sender_local', 64).notNullable();
    t.string('dkim_selector', 63).notNullable();
    t.text('dkim_public_key').notNullable();
    /** Each record's state at the last check (JSON: spf, dkim, retour). */
    t.text('checks').notNullable();
    t.boolean('verified').notNullable().defaultTo(false);
    t.string('checked_at', 40).nullable();
    t.string('verified_at', 40).nullable();
    t.string('created_by', 36).notNullable();
    t.string('created_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('email_domains');
  await knex.schema.dropTableIfExists('email_hourly_counts');
  await knex.schema.dropTableIfExists('email_messages');
}
