// The company record in full (issue 18): what the national company register (RNE) says of a
// company (capital, officers) and its yearly accounts (ratios BCE/INPI). Officers are kept
// as the public registers show them: name, first names, role, year of birth at most; no
// column can hold a full date of birth or an address. Confidential accounts keep no figure.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('company_registers', (t) => {
    t.string('siren', 9).primary();
    t.double('capital_social_eur').nullable();
    /** The officers, as a JSON list of { type, nom, prenoms, qualite, annee_naissance, siren, denomination }. */
    t.text('officers').notNullable();
    t.integer('officers_count').notNullable();
    /** The filing's date of update (`updatedAt`): a newer filing replaces an older one, never the reverse. */
    t.string('source_updated', 40).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
  });
  await knex.schema.createTable('company_accounts', (t) => {
    t.string('siren', 9).notNullable();
    t.string('date_cloture', 10).notNullable();
    /** S (simplified), C (complete), K (consolidated) and the other kinds as published. */
    t.string('type_bilan', 5).notNullable();
    t.boolean('confidentiel').notNullable();
    t.double('chiffre_affaires').nullable();
    t.double('marge_brute').nullable();
    t.double('ebe').nullable();
    t.double('resultat_net').nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.primary(['siren', 'date_cloture', 'type_bilan']);
  });
  // One row per company: the turnover of its latest closed year (the record's rule), for the search's band filter.
  await knex.schema.createTable('company_turnovers', (t) => {
    t.string('siren', 9).primary();
    t.string('exercice', 10).notNullable();
    t.double('chiffre_affaires').nullable();
    t.index(['chiffre_affaires']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('company_turnovers');
  await knex.schema.dropTableIfExists('company_accounts');
  await knex.schema.dropTableIfExists('company_registers');
}
