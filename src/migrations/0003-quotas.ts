// Quotas: limits per plan (and per organisation when negotiated), the sliding call log,
// and the distinct files opened per Paris calendar day.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('plan_limits', (t) => {
    t.string('plan', 20).primary();
    t.integer('calls_per_minute').notNullable();
    t.integer('calls_per_day').notNullable();
    t.integer('files_per_day').notNullable();
  });
  await knex('plan_limits').insert([
    { plan: 'free', calls_per_minute: 5, calls_per_day: 100, files_per_day: 5 },
    { plan: 'subscribed', calls_per_minute: 30, calls_per_day: 5000, files_per_day: 500 },
  ]);
  await knex.schema.alterTable('organisations', (t) => {
    // A negotiated contract: null means the plan's limit.
    t.integer('calls_per_minute').nullable();
    t.integer('calls_per_day').nullable();
    t.integer('files_per_day').nullable();
  });
  // One row per account: running counts of the call log in each window, kept exact by
  // subtracting the calls that left the window (so a check never scans the window).
  await knex.schema.createTable('quota_accounts', (t) => {
    t.string('account_id', 36).primary();
    t.integer('day_count').notNullable().defaultTo(0);
    t.integer('minute_count').notNullable().defaultTo(0);
    // Start of the minute window at the last update: calls at or before it are out.
    t.bigInteger('minute_floor_ms').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('call_log', (t) => {
    t.increments('id');
    t.string('account_id', 36).notNullable();
    t.bigInteger('at_ms').notNullable();
    t.index(['account_id', 'at_ms']);
  });
  await knex.schema.createTable('file_opens', (t) => {
    t.string('account_id', 36).notNullable();
    t.string('day', 10).notNullable();
    t.string('file_key', 200).notNullable();
    t.bigInteger('opened_at_ms').notNullable();
    t.primary(['account_id', 'day', 'file_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['file_opens', 'call_log', 'quota_accounts']) await knex.schema.dropTableIfExists(table);
  await knex.schema.alterTable('organisations', (t) => {
    t.dropColumn('calls_per_minute');
    t.dropColumn('calls_per_day');
    t.dropColumn('files_per_day');
  });
  await knex.schema.dropTableIfExists('plan_limits');
}
