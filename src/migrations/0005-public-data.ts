// Public data: companies (SIRENE units and establishments, RGE certifications), notices
// (BOAMP) and their buyers, awards (DECP) and their winners. Every record keeps when it
// entered the service (`ingested_at`, for the alert robot) and when the source last
// changed it (`source_updated`, so an older version never replaces a newer one).
// Contact details of the sources (telephone, e-mail, website) have no column: never stored.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('companies', (t) => {
    t.string('siren', 9).primary();
    t.string('denomination', 300).nullable();
    t.string('sigle', 100).nullable();
    t.string('nom_personne', 300).nullable();
    t.string('denomination_usuelle', 300).nullable();
    t.string('categorie_juridique', 4).nullable();
    t.string('activite_principale', 6).nullable();
    t.string('tranche_effectifs', 2).nullable();
    t.string('categorie_entreprise', 10).nullable();
    t.string('date_creation', 10).nullable();
    t.string('etat', 1).notNullable();
    t.string('nic_siege', 5).nullable();
    t.string('source_updated', 30).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['activite_principale']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('establishments', (t) => {
    t.string('siret', 14).primary();
    t.string('siren', 9).notNullable();
    t.string('nic', 5).notNullable();
    t.boolean('siege').notNullable();
    t.string('etat', 1).notNullable();
    t.string('date_creation', 10).nullable();
    t.string('activite_principale', 6).nullable();
    t.string('enseigne', 300).nullable();
    t.string('adresse', 400).nullable();
    t.string('code_postal', 10).nullable();
    t.string('commune', 200).nullable();
    t.string('code_commune', 5).nullable();
    t.string('departement', 3).nullable();
    t.string('source_updated', 30).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['siren']);
    t.index(['departement']);
  });
  await knex.schema.createTable('rge_certifications', (t) => {
    t.string('siret', 14).notNullable();
    t.string('domaine', 300).notNullable();
    t.string('organisme', 100).notNullable();
    t.string('meta_domaine', 300).nullable();
    t.string('code_qualification', 50).nullable();
    t.string('nom_qualification', 300).nullable();
    t.string('date_debut', 10).nullable();
    t.string('date_fin', 10).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.primary(['siret', 'domaine', 'organisme']);
  });
  await knex.schema.createTable('buyers', (t) => {
    // The buyer's SIRET when a source gives it, else `nom:` + its folded name.
    t.string('id', 220).primary();
    t.string('nom', 300).notNullable();
    t.string('siret', 14).nullable();
    t.string('ingested_at', 40).notNullable();
    t.index(['siret']);
  });
  await knex.schema.createTable('notices', (t) => {
    t.string('marche_id', 36).primary();
    t.string('annonce_id', 40).notNullable().unique();
    t.string('source', 20).notNullable();
    t.text('objet').notNullable();
    t.string('acheteur_nom', 300).nullable();
    t.string('buyer_id', 220).nullable();
    t.string('date_parution', 10).nullable();
    t.string('date_limite', 30).nullable();
    t.text('departements').notNullable();
    t.text('types_marche').notNullable();
    t.string('nature', 60).nullable();
    t.string('nature_libelle', 200).nullable();
    t.string('procedure_libelle', 200).nullable();
    t.string('famille', 60).nullable();
    t.string('etat', 60).nullable();
    t.string('cpv', 10).nullable();
    t.text('cpv_codes').notNullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['buyer_id']);
    t.index(['date_parution']);
    t.index(['date_limite']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('notice_departements', (t) => {
    t.string('marche_id', 36).notNullable();
    t.string('departement', 3).notNullable();
    t.primary(['marche_id', 'departement']);
    t.index(['departement']);
  });
  await knex.schema.createTable('awards', (t) => {
    // DECP ids are unique per buyer: the key is the buyer's SIRET and the id.
    t.string('award_key', 120).primary();
    t.string('id', 80).notNullable();
    t.string('acheteur_siret', 14).nullable();
    t.string('acheteur_nom', 300).nullable();
    t.string('buyer_id', 220).nullable();
    t.text('objet').nullable();
    t.string('cpv', 10).nullable();
    t.string('procedure', 120).nullable();
    t.string('nature', 60).nullable();
    t.string('lieu_code', 10).nullable();
    t.string('lieu_type', 40).nullable();
    t.string('departement', 3).nullable();
    t.double('montant').nullable();
    t.string('date_notification', 10).nullable();
    t.integer('duree_mois').nullable();
    t.string('forme_prix', 60).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['buyer_id']);
    t.index(['departement']);
    t.index(['date_notification']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('award_winners', (t) => {
    t.string('award_key', 120).notNullable();
    t.string('siret', 14).notNullable();
    t.string('siren', 9).notNullable();
    t.string('denomination', 300).nullable();
    t.primary(['award_key', 'siret']);
    t.index(['siren']);
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['award_winners', 'awards', 'notice_departements', 'notices', 'buyers', 'rge_certifications', 'establishments', 'companies'])
    await knex.schema.dropTableIfExists(table);
}
