// The awards' search index, and the documents the DECP importer writes into it in the same
// transaction as the awards (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, documentsInRecords, recordDocument, upsertSearchDocuments } from '../../platform/search/full-text.js';

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

interface AwardText {
  award_key: string;
  objet: string | null;
  acheteur_nom: string | null;
  winners: { denomination: string | null }[];
}

const fieldsOf = (r: AwardText) => ({ objet: r.objet, acheteur: r.acheteur_nom, titulaires: join(r.winners.map((w) => w.denomination)) });

/** PostgreSQL: the award's search document, for its `document` column (nothing where the index is a table of its own). */
export function awardDocument(db: Knex, r: AwardText): { document?: string } {
  return documentsInRecords(db, AWARDS_SEARCH) ? { document: recordDocument(AWARDS_SEARCH, fieldsOf(r)) } : {};
}

/** The awards' documents, after the awards, where the index is a table of its own (their rows carry them otherwise: `awardDocument`). */
export async function reindexAwards(trx: Knex.Transaction, rows: AwardText[]): Promise<void> {
  if (documentsInRecords(trx, AWARDS_SEARCH)) return;
  await upsertSearchDocuments(
    trx,
    AWARDS_SEARCH,
    rows.map((r) => ({ key: r.award_key, fields: fieldsOf(r) })),
  );
}
