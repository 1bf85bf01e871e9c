// Legal announcements (BODACC): one row per announcement, its SIRENs in a table of their own
// (a sale of a business cites the buyer and the seller) with the announcement's date and
// family, so that a company's proceedings are read from one index; and the full-text index.
// No column for a natural person's civil name, birth, address, nor any contact detail.
import type { Knex } from 'knex';
import { ANNOUNCEMENTS_SEARCH } from '../domains/announcements/search-index.js';
import { createSearchIndex, dropSearchIndex, inOwnTable } from '../platform/search/full-text.js';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('announcements', (t) => {
    t.string('id', 40).primary();
    t.string('bulletin', 1).nullable();
    t.string('numero_parution', 20).nullable();
    t.integer('numero_annonce').nullable();
    t.string('date_parution', 10).notNullable();
    t.string('famille', 40).nullable();
    t.string('famille_libelle', 200).nullable();
    t.string('type_avis', 40).nullable();
    t.string('type_avis_libelle', 200).nullable();
    t.string('departement', 3).nullable();
    t.string('departement_nom', 200).nullable();
    t.string('ville', 200).nullable();
    t.string('code_postal', 10).nullable();
    t.string('tribunal', 500).nullable();
    t.string('type_personne', 2).nullable();
    t.string('denomination', 1000).nullable();
    t.string('forme_juridique', 500).nullable();
    t.text('activite').nullable();
    t.text('sirens').notNullable();
    t.string('jugement_famille', 500).nullable();
    t.string('jugement_nature', 1000).nullable();
    t.string('jugement_date', 10).nullable();
    t.text('detail').nullable();
    t.string('details_illisibles', 200).notNullable();
    t.string('ingested_at', 40).notNullable();
    t.string('updated_at', 40).notNullable();
    // Searches sort by date: by date alone, within a family, within a department.
    t.index(['date_parution', 'id']);
    t.index(['famille', 'date_parution']);
    t.index(['departement', 'date_parution']);
    t.index(['ingested_at']);
    // A search by words checks the filters of every announcement matching the words (tens of
    // thousands for common words): from this covering index, never from the wide rows (the
    // large demo set: 100 ms → 25 ms for two common words and a department).
    t.index(['id', 'departement', 'famille', 'date_parution'], 'announcements_filters');
  });
  await knex.schema.createTable('announcement_sirens', (t) => {
    t.string('announcement_id', 40).notNullable();
    t.string('siren', 9).notNullable();
    t.string('date_parution', 10).notNullable();
    t.string('famille', 40).nullable();
    t.primary(['announcement_id', 'siren']);
    t.index(['siren', 'date_parution']);
  });
  await createSearchIndex(knex, inOwnTable(ANNOUNCEMENTS_SEARCH));
}

export async function down(knex: Knex): Promise<void> {
  await dropSearchIndex(knex, inOwnTable(ANNOUNCEMENTS_SEARCH));
  await knex.schema.dropTableIfExists('announcement_sirens');
  await knex.schema.dropTableIfExists('announcements');
}
