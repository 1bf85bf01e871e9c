// The posts' search index, and the documents the importer writes into it in the same
// transaction as the posts (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';
import type { PublicationRow } from './rows.js';

export const PUBLICATIONS_SEARCH = defineSearchIndex({
  name: 'publications_search',
  columns: [
    { name: 'texte', weight: 'A' },
    { name: 'auteur', weight: 'B' },
    { name: 'commune', weight: 'C' },
  ],
});

export async function reindexPublications(trx: Knex.Transaction, rows: readonly PublicationRow[]): Promise<void> {
  await upsertSearchDocuments(
    trx,
    PUBLICATIONS_SEARCH,
    rows.map((r) => ({ key: r.id, fields: { texte: r.texte, auteur: r.auteur, commune: r.commune_nom } })),
  );
}
