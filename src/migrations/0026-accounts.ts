// Self-service accounts: pending sign-ups and the single-use links of the account e-mails
// (confirmation, password reset, change of address), invitations into an organisation, the
// administrators' activity log, an organisation's deletion date once its last member left,
// and account e-mails in the outbox (no organisation, a purpose, an HTML part).
import type { Knex } from 'knex';

/**
 * Not in a transaction: on SQLite, making `email_messages.organisation_id` nullable rebuilds
 * the table, which must happen with foreign keys off (a pragma ignored inside a transaction;
 * with them on, dropping the old table would cascade to the attachments). Knex turns them off
 * around its own transaction for the rebuild.
 */
export const config = { transaction: false };

export async function up(knex: Knex): Promise<void> {
  if (!(await knex.schema.hasColumn('users', 'last_sign_in_at'))) {
    await knex.schema.alterTable('users', (t) => {
      t.string('last_sign_in_at', 40).nullable();
    });
  }
  if (!(await knex.schema.hasColumn('organisations', 'deletion_due_at'))) {
    await knex.schema.alterTable('organisations', (t) => {
      /** Set when its last member leaves: the organisation and its workspace are deleted then. */
      t.string('deletion_due_at', 40).nullable();
    });
  }
  if (!(await knex.schema.hasTable('account_links'))) {
    await knex.schema.createTable('account_links', (t) => {
      /** SHA-256 of the random token the e-mail carries: the table holds no usable link. */
      t.string('id_hash', 64).primary();
      t.string('purpose', 30).notNullable();
      /** The account (reset, change of address); null for a sign-up, whose account does not exist yet. */
      t.string('user_id', 36).nullable().references('id').inTable('users').onDelete('CASCADE');
      /** The address the link was sent to (sign-up, new address). */
      t.string('email', 254).notNullable();
      /** A sign-up's password hash and organisation name (JSON); nothing else. */
      t.text('payload').nullable();
      t.bigInteger('expires_at').notNullable();
      t.bigInteger('used_at').nullable();
      t.string('created_at', 40).notNullable();
      t.index(['user_id']);
      t.index(['expires_at']);
    });
  }
  if (!(await knex.schema.hasTable('invitations'))) {
    await knex.schema.createTable('invitations', (t) => {
      t.string('id', 36).primary();
      t.string('organisation_id', 36).notNullable().references('id').inTable('organisations').onDelete('CASCADE');
      t.string('email', 254).notNullable();
      t.string('role', 20).notNullable();
      t.string('token_hash', 64).notNullable().unique();
      t.string('invited_by', 36).nullable();
      t.string('created_at', 40).notNullable();
      t.bigInteger('expires_at').notNullable();
      t.string('accepted_at', 40).nullable();
      t.string('revoked_at', 40).nullable();
      t.index(['organisation_id']);
      t.index(['email']);
    });
  }
  if (!(await knex.schema.hasTable('activity_log'))) {
    await knex.schema.createTable('activity_log', (t) => {
      t.increments('id').primary();
      t.string('organisation_id', 36).nullable().references('id').inTable('organisations').onDelete('CASCADE');
      /** Who acted, and whom it was about (account ids; null once the account is deleted). */
      t.string('actor_id', 36).nullable();
      t.string('subject_id', 36).nullable();
      t.string('kind', 40).notNullable();
      /** A short French text: never a password, a token or a link. */
      t.string('detail', 300).nullable();
      /** The full client address, blanked after 30 days; its network (/24, /48) stays. */
      t.string('ip', 45).nullable();
      t.string('network', 60).nullable();
      t.string('at', 40).notNullable();
      t.index(['organisation_id', 'at']);
      t.index(['at']);
    });
  }
  if (!(await knex.schema.hasColumn('email_messages', 'purpose'))) {
    await knex.schema.alterTable('email_messages', (t) => {
      /** null: a send the caller asked for; `compte`: an account e-mail of the service. */
      t.string('purpose', 20).nullable();
      /** The HTML part, when the message has one (account e-mails). */
      t.text('html_body').nullable();
    });
    // Account e-mails belong to no organisation (a sign-up's, a reset of an account without one).
    await knex.schema.alterTable('email_messages', (t) => {
      t.setNullable('organisation_id');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex('email_messages').whereNull('organisation_id').delete();
  await knex.schema.alterTable('email_messages', (t) => {
    t.dropNullable('organisation_id');
  });
  await knex.schema.alterTable('email_messages', (t) => {
    t.dropColumn('purpose');
    t.dropColumn('html_body');
  });
  for (const table of ['activity_log', 'invitations', 'account_links']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('organisations', (t) => t.dropColumn('deletion_due_at'));
  await knex.schema.alterTable('users', (t) => t.dropColumn('last_sign_in_at'));
}
