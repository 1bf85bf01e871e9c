// The announcements' search index, and the documents the BODACC importer writes into it in
// the same transaction as the announcements (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, documentsInRecords, recordDocument, upsertSearchDocuments } from '../../platform/search/full-text.js';
import type { AnnouncementRow } from './rows.js';

export const ANNOUNCEMENTS_SEARCH = defineSearchIndex({
  name: 'announcements_search',
  columns: [
    { name: 'denomination', weight: 'A' },
    { name: 'jugement', weight: 'B' },
    { name: 'activite', weight: 'C' },
    { name: 'lieu', weight: 'D' },
  ],
  // PostgreSQL: a filtered search intersects the words' GIN index with the filter's B-tree.
  postgresRecords: { table: 'announcements', key: 'id' },
});

const join = (parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(' ') || null;

const fieldsOf = (r: AnnouncementRow) => ({
  denomination: r.denomination,
  jugement: join([r.jugement_nature, r.jugement_famille, r.famille_libelle]),
  activite: join([r.activite, r.detail]),
  lieu: join([r.ville, r.departement_nom, r.tribunal]),
});

/** The announcements with their search documents, for their `document` column on PostgreSQL (unchanged where the index is a table of its own). */
export function withAnnouncementDocuments(db: Knex, rows: readonly AnnouncementRow[]): readonly AnnouncementRow[] {
  if (!documentsInRecords(db, ANNOUNCEMENTS_SEARCH)) return rows;
  return rows.map((r) => ({ ...r, document: recordDocument(ANNOUNCEMENTS_SEARCH, fieldsOf(r)) }));
}

/** The announcements' documents, after the announcements, where the index is a table of its own (their rows carry them otherwise: `withAnnouncementDocuments`). */
export async function reindexAnnouncements(trx: Knex.Transaction, rows: readonly AnnouncementRow[]): Promise<void> {
  if (documentsInRecords(trx, ANNOUNCEMENTS_SEARCH)) return;
  await upsertSearchDocuments(
    trx,
    ANNOUNCEMENTS_SEARCH,
    rows.map((r) => ({ key: r.id, fields: fieldsOf(r) })),
  );
}
