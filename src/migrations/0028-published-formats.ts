// What the published formats carry beyond the first columns: a notice's lots, buyer SIRET,
// estimated value and the corrections or cancellation that changed it (eForms and the
// BOAMP forms); an award's amendments with its original amount and duration, and its
// holders whose identifier is not a SIRET (kept as published); the register's own identity
// of a company (RNE), for a company the SIRENE stock does not hold. No column holds an
// address of a natural person: only the registered office's postcode and town of a legal person.
import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('notices', (t) => {
    t.string('acheteur_siret', 14).nullable();
    t.double('valeur_estimee').nullable();
    /** The lots, as a JSON list of { numero, titre, cpv_codes, valeur_estimee }. */
    t.text('lots').nullable();
    /** The earlier notices this one corrects or cancels (`annonce_lie`), a JSON list of idweb. */
    t.text('annonces_liees').nullable();
    /** When a later notice (correction, cancellation) last changed this one, and what it said. */
    t.string('modifie_le', 40).nullable();
    t.string('modifie_par', 40).nullable();
    t.string('modification', 300).nullable();
    t.index(['modifie_le']);
  });
  // The later notices of a procedure (corrections, cancellation) and what each says, by the
  // notice they change: whichever of them is imported first, the notice shows their sum.
  await knex.schema.createTable('notice_corrections', (t) => {
    t.string('annonce_id', 40).notNullable();
    t.string('correction_id', 40).notNullable();
    t.string('date_parution', 10).nullable();
    /** `annulation`, `rectificatif`, or `attribution` (an award notice: no change to the notice). */
    t.string('kind', 20).notNullable();
    /** The deadline the correction sets, if it gives one (ISO instant). */
    t.string('date_limite', 30).nullable();
    t.primary(['annonce_id', 'correction_id']);
    t.index(['correction_id']);
  });
  await knex.schema.alterTable('awards', (t) => {
    /** `decp` (the contract's essential data), `boamp` (an award notice's results). */
    t.string('source', 20).notNullable().defaultTo('decp');
    t.double('montant_initial').nullable();
    t.integer('duree_mois_initiale').nullable();
    /** The amendments applied, oldest first, a JSON list of { date, montant, duree_mois, titulaires, objet }. */
    t.text('modifications').nullable();
    /** Holders whose identifier is not a valid SIRET, as published: JSON list of { identifiant, type_identifiant, denomination }. */
    t.text('titulaires_autres').nullable();
  });
  await knex.schema.alterTable('company_registers', (t) => {
    t.string('denomination', 300).nullable();
    t.string('categorie_juridique', 10).nullable();
    t.string('activite_principale', 10).nullable();
    /** Registered office of a legal person only (never an individual's address). */
    t.string('siege_code_postal', 10).nullable();
    t.string('siege_commune', 200).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('notice_corrections');
  await knex.schema.alterTable('company_registers', (t) => {
    t.dropColumns('denomination', 'categorie_juridique', 'activite_principale', 'siege_code_postal', 'siege_commune');
  });
  await knex.schema.alterTable('awards', (t) => {
    t.dropColumns('source', 'montant_initial', 'duree_mois_initiale', 'modifications', 'titulaires_autres');
  });
  await knex.schema.alterTable('notices', (t) => {
    t.dropIndex(['modifie_le']);
    t.dropColumns('acheteur_siret', 'valeur_estimee', 'lots', 'annonces_liees', 'modifie_le', 'modifie_par', 'modification');
  });
}
