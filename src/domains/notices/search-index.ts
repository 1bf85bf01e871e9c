// The notices' search index, and the documents the BOAMP importer writes into it in the same
// transaction as the notices (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';

export const NOTICES_SEARCH = defineSearchIndex({
  name: 'notices_search',
  columns: [
    { name: 'objet', weight: 'A' },
    { name: 'acheteur', weight: 'B' },
  ],
});

export async function reindexNotices(trx: Knex.Transaction, rows: { marche_id: string; objet: string; acheteur_nom: string | null }[]): Promise<void> {
  await upsertSearchDocuments(
    trx,
    NOTICES_SEARCH,
    rows.map((r) => ({ key: r.marche_id, fields: { objet: r.objet, acheteur: r.acheteur_nom } })),
  );
}
