// Activity nomenclatures (issue 13): SIRENE publishes each activity code with its
// nomenclature (NAF rév. 2, or a legacy one: NAFRev1, NAF1993, NAP), and the current stock
// adds the NAF 2025 code (units and establishments). Both are kept so that a legacy code
// is never shown as a NAF one.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('companies', (t) => {
    t.string('nomenclature_activite', 10).nullable();
    t.string('activite_principale_naf25', 6).nullable();
  });
  await knex.schema.alterTable('establishments', (t) => {
    t.string('nomenclature_activite', 10).nullable();
    t.string('activite_principale_naf25', 6).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('establishments', (t) => {
    t.dropColumn('activite_principale_naf25');
    t.dropColumn('nomenclature_activite');
  });
  await knex.schema.alterTable('companies', (t) => {
    t.dropColumn('activite_principale_naf25');
    t.dropColumn('nomenclature_activite');
  });
}
