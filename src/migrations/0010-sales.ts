// Property sales (DVF, issue 13): one row per mutation, its premises and parcels as JSON
// lists, the columns searched and counted derived from them. The indexes serve the
// searches' filters, each in date order (a department, a department and a kind of sale, a
// commune or a postal code), and the alert robot's recent sales (`ingested_at`). No name of a
// seller or a buyer: DVF has none.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sales', (t) => {
    t.string('id_mutation', 40).primary();
    t.string('date_mutation', 10).notNullable();
    t.string('nature_mutation', 60).notNullable();
    t.double('valeur_fonciere').nullable();
    t.string('departement', 3).nullable();
    t.string('code_commune', 5).nullable();
    t.string('nom_commune', 200).nullable();
    t.string('code_postal', 5).nullable();
    t.string('adresse', 300).nullable();
    t.string('type_local', 60).nullable();
    t.double('surface_bati').nullable();
    t.integer('nombre_pieces').nullable();
    t.double('prix_m2').nullable();
    t.double('surface_terrain').nullable();
    t.integer('nombre_locaux').notNullable();
    t.integer('nombre_parcelles').notNullable();
    t.double('longitude').nullable();
    t.double('latitude').nullable();
    t.text('locaux').notNullable();
    t.text('parcelles').notNullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['date_mutation'], 'sales_date_idx');
    t.index(['departement', 'date_mutation'], 'sales_departement_date_idx');
    t.index(['code_commune', 'date_mutation'], 'sales_commune_date_idx');
    t.index(['code_postal', 'date_mutation'], 'sales_postal_date_idx');
    // With the price and the surface: a search's count reads this index alone.
    t.index(['departement', 'type_local', 'date_mutation', 'valeur_fonciere', 'surface_bati'], 'sales_departement_type_date_idx');
    t.index(['type_local', 'date_mutation'], 'sales_type_date_idx');
    t.index(['ingested_at'], 'sales_ingested_idx');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sales');
}
