// Indexes for the sweep of expired sign-in and OAuth rows (src/auth/store/expired-rows.ts):
// each batch finds its rows by expiry instead of reading the whole table.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oauth_store', (t) => t.index(['expires_at'], 'oauth_store_expires_at_index'));
  await knex.schema.alterTable('web_sessions', (t) => t.index(['expires_at'], 'web_sessions_expires_at_index'));
  await knex.schema.alterTable('login_failures', (t) => t.index(['last_at'], 'login_failures_last_at_index'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('login_failures', (t) => t.dropIndex(['last_at'], 'login_failures_last_at_index'));
  await knex.schema.alterTable('web_sessions', (t) => t.dropIndex(['expires_at'], 'web_sessions_expires_at_index'));
  await knex.schema.alterTable('oauth_store', (t) => t.dropIndex(['expires_at'], 'oauth_store_expires_at_index'));
}
