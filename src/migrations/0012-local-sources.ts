// Council minutes, social-network posts and directory contacts (our JSON-lines formats), with
// their full-text indexes. Contacts have no column for a telephone, e-mail or web address,
// nor minutes and posts for the source's link: never stored.
import type { Knex } from 'knex';
import { CONTACTS_SEARCH } from '../domains/contacts/search-index.js';
import { DELIBERATIONS_SEARCH } from '../domains/minutes/search-index.js';
import { PUBLICATIONS_SEARCH } from '../domains/posts/search-index.js';
import { createSearchIndex, dropSearchIndex } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deliberations', (t) => {
    t.string('id', 200).primary();
    t.string('commune', 5).notNullable();
    t.string('commune_nom', 200).notNullable();
    t.string('departement', 3).nullable();
    t.string('date_seance', 10).notNullable();
    t.string('numero', 50).nullable();
    t.text('titre').notNullable();
    t.text('texte').notNullable();
    t.string('source', 300).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    // The filters, each with the order of a search without words (date, then id).
    t.index(['departement', 'date_seance']);
    t.index(['commune', 'date_seance']);
    t.index(['date_seance']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('publications', (t) => {
    t.string('id', 200).primary();
    t.string('reseau', 20).notNullable();
    t.string('auteur', 300).notNullable();
    t.string('date_publication', 40).notNullable();
    t.string('jour', 10).notNullable();
    t.text('texte').notNullable();
    t.string('commune', 5).nullable();
    t.string('commune_nom', 200).nullable();
    t.string('departement', 3).nullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['departement', 'jour']);
    t.index(['reseau', 'jour']);
    t.index(['commune', 'jour']);
    t.index(['jour']);
    t.index(['ingested_at']);
  });
  await knex.schema.createTable('contacts', (t) => {
    t.string('id', 200).primary();
    t.string('nom', 300).notNullable();
    t.string('role', 300).notNullable();
    t.string('organisation', 500).notNullable();
    t.string('organisation_siren', 9).nullable();
    t.string('organisation_siret', 14).nullable();
    t.string('commune', 5).nullable();
    t.string('commune_nom', 200).nullable();
    t.string('departement', 3).nullable();
    t.string('organisation_mots', 600).notNullable();
    t.string('role_mots', 400).notNullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    t.index(['departement', 'nom']);
    t.index(['commune']);
    t.index(['organisation_siren']);
    t.index(['nom']);
    t.index(['ingested_at']);
  });
  for (const index of [DELIBERATIONS_SEARCH, PUBLICATIONS_SEARCH, CONTACTS_SEARCH]) await createSearchIndex(knex, index);
}

export async function down(knex: Knex): Promise<void> {
  for (const index of [DELIBERATIONS_SEARCH, PUBLICATIONS_SEARCH, CONTACTS_SEARCH]) await dropSearchIndex(knex, index);
  for (const table of ['contacts', 'publications', 'deliberations']) await knex.schema.dropTableIfExists(table);
}
