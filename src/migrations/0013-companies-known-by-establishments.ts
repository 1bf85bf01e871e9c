// A company known only by its establishments (StockEtablissement imported before, or
// without, StockUniteLegale) gets a provisional row in `companies`, `unit_known` false,
// filled from its establishments, so that searches and their filters find it; its legal
// unit replaces that row when it arrives (issue 13).
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('companies', (t) => {
    t.boolean('unit_known').notNullable().defaultTo(true);
  });
  // The provisional rows alone (usually none): the units import asks for them per batch.
  await knex.raw('create index companies_provisional on companies (siren) where unit_known = false');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index companies_provisional');
  await knex.schema.alterTable('companies', (t) => {
    t.dropColumn('unit_known');
  });
}
