// Accounts, organisations, memberships, plans; the OAuth server's storage; web sessions
// of the account settings; login throttling; the service's own secrets.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('organisations', (t) => {
    t.string('id', 36).primary();
    t.string('name', 200).notNullable().unique();
    t.string('plan', 20).notNullable().defaultTo('free');
    t.boolean('email_option').notNullable().defaultTo(false);
    t.boolean('eligible_access').notNullable().defaultTo(false);
    t.string('created_at', 40).notNullable();
  });
  await knex.schema.createTable('users', (t) => {
    t.string('id', 36).primary();
    t.string('email', 254).notNullable().unique();
    t.string('password_hash', 300).notNullable();
    t.string('created_at', 40).notNullable();
  });
  await knex.schema.createTable('memberships', (t) => {
    // One organisation per account: writes resolve it from the identity, never a parameter.
    t.string('user_id', 36).primary().references('id').inTable('users').onDelete('CASCADE');
    t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
    t.string('role', 20).notNullable();
    t.string('created_at', 40).notNullable();
    t.index(['organisation_id']);
  });
  // oidc-provider's models (clients, grants, codes, tokens, sessions, interactions). The
  // key is a SHA-256 of the model's id: a copy of the table holds no usable token.
  await knex.schema.createTable('oauth_store', (t) => {
    t.string('model', 40).notNullable();
    t.string('id_hash', 64).notNullable();
    t.text('payload').notNullable();
    t.string('grant_id', 100).nullable();
    t.string('uid', 100).nullable();
    t.string('user_code', 100).nullable();
    t.string('account_id', 36).nullable();
    t.bigInteger('expires_at').nullable();
    t.bigInteger('consumed_at').nullable();
    t.primary(['model', 'id_hash']);
    t.index(['grant_id']);
    t.index(['uid']);
    t.index(['model', 'account_id']);
  });
  await knex.schema.createTable('ai_access_usage', (t) => {
    t.string('grant_id', 100).primary();
    t.string('last_used_at', 40).notNullable();
  });
  await knex.schema.createTable('web_sessions', (t) => {
    t.string('id_hash', 64).primary();
    t.string('user_id', 36).notNullable().references('id').inTable('users').onDelete('CASCADE');
    t.bigInteger('expires_at').notNullable();
  });
  await knex.schema.createTable('login_failures', (t) => {
    t.string('key', 300).primary();
    t.integer('count').notNullable();
    t.bigInteger('last_at').notNullable();
  });
  await knex.schema.createTable('service_secrets', (t) => {
    t.string('name', 60).primary();
    t.text('value').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['service_secrets', 'login_failures', 'web_sessions', 'ai_access_usage', 'oauth_store', 'memberships', 'users', 'organisations'])
    await knex.schema.dropTableIfExists(table);
}
