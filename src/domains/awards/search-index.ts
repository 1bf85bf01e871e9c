// The awards' search index, and the documents the DECP importer writes into it in the same
// transaction as the awards (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';

export const AWARDS_SEARCH = defineSearchIndex({
  name: 'awards_search',
  columns: [
    { name: 'objet', weight: 'A' },
    { name: 'acheteur', weight: 'B' },
    { name: 'titulaires', weight: 'C' },
  ],
  // PostgreSQL: a filtered search intersects the words' GIN index with the filter's B-tree.
  postgresRecords: { table: 'awards', key: 'award_key' },
});

const join = (parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(' ') || null;

export async function reindexAwards(
  trx: Knex.Transaction,
  rows: { award_key: string; objet: string | null; acheteur_nom: string | null; winners: { denomination: string | null }[] }[],
): Promise<void> {
  await upsertSearchDocuments(
    trx,
    AWARDS_SEARCH,
    rows.map((r) => ({ key: r.award_key, fields: { objet: r.objet, acheteur: r.acheteur_nom, titulaires: join(r.winners.map((w) => w.denomination)) } })),
  );
}
