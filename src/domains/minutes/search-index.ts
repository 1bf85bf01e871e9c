// The council minutes' search index, and the documents the importer writes into it in the
// same transaction as the deliberations (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';
import type { DeliberationRow } from './rows.js';

export const DELIBERATIONS_SEARCH = defineSearchIndex({
  name: 'deliberations_search',
  columns: [
    { name: 'titre', weight: 'A' },
    { name: 'texte', weight: 'B' },
    { name: 'commune', weight: 'C' },
  ],
});

export async function reindexDeliberations(trx: Knex.Transaction, rows: readonly DeliberationRow[]): Promise<void> {
  await upsertSearchDocuments(
    trx,
    DELIBERATIONS_SEARCH,
    rows.map((r) => ({ key: r.id, fields: { titre: r.titre, texte: r.texte, commune: r.commune_nom } })),
  );
}
