// Building permits (Sitadel lists of the SDES, issue 13): one row per authorisation, keyed
// by its kind and registration number, and its full-text index. The indexes serve the
// searches' filters ordered by authorisation date, among them the alert robot's « permits
// authorised in the last 45 days »: read newest first on (date_autorisation, id), the state
// checked on the way (four states, no index of its own: it would only slow that query). No column for a private
// applicant's name, nor for any contact detail: the lists have none, and none is kept.
import type { Knex } from 'knex';
import { PERMITS_SEARCH } from '../domains/permits/search-index.js';
import { createSearchIndex, dropSearchIndex } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('permits', (t) => {
    t.string('id', 40).primary();
    t.string('numero', 30).notNullable();
    t.string('type', 2).notNullable();
    t.string('etat', 1).notNullable();
    t.string('date_autorisation', 10).nullable();
    t.string('date_ouverture_chantier', 10).nullable();
    t.string('date_achevement', 10).nullable();
    t.integer('annee_depot').nullable();
    t.string('commune', 5).notNullable();
    t.string('departement', 3).nullable();
    t.string('localite', 500).nullable();
    t.string('code_postal', 5).nullable();
    t.string('adresse', 1000).nullable();
    t.string('nature_projet', 200).nullable();
    t.integer('logements').nullable();
    t.double('surface_habitation_creee').nullable();
    t.double('surface_locaux_creee').nullable();
    t.double('surface_creee').nullable();
    t.double('superficie_terrain').nullable();
    t.string('demandeur', 1000).nullable();
    t.string('siren_demandeur', 9).nullable();
    t.string('siret_demandeur', 14).nullable();
    t.string('categorie_juridique_demandeur', 4).nullable();
    t.string('activite_demandeur', 6).nullable();
    t.string('source_updated', 10).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['numero']);
    t.index(['date_autorisation', 'id']);
    t.index(['departement', 'date_autorisation']);
    t.index(['commune', 'date_autorisation']);
    t.index(['siren_demandeur']);
    t.index(['ingested_at']);
  });
  await createSearchIndex(knex, PERMITS_SEARCH);
}

export async function down(knex: Knex): Promise<void> {
  await dropSearchIndex(knex, PERMITS_SEARCH);
  await knex.schema.dropTableIfExists('permits');
}
