// The contacts' search index, and the documents the importer writes into it in the same
// transaction as the contacts (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';
import type { ContactRow } from './rows.js';

export const CONTACTS_SEARCH = defineSearchIndex({
  name: 'contacts_search',
  columns: [
    { name: 'nom', weight: 'A' },
    { name: 'role', weight: 'B' },
    { name: 'organisation', weight: 'B' },
    { name: 'commune', weight: 'C' },
  ],
});

export async function reindexContacts(trx: Knex.Transaction, rows: readonly ContactRow[]): Promise<void> {
  await upsertSearchDocuments(
    trx,
    CONTACTS_SEARCH,
    rows.map((r) => ({ key: r.id, fields: { nom: r.nom, role: r.role, organisation: r.organisation, commune: r.commune_nom } })),
  );
}
