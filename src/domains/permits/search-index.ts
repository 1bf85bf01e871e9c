// The permits' search index, and the documents the Sitadel importer writes into it in the
// same transaction as the permits (what is imported is searchable at once).
import type { Knex } from 'knex';
import { defineSearchIndex, upsertSearchDocuments } from '../../platform/search/full-text.js';
import { TYPE_LABELS, type PermitType } from './rows.js';

export const PERMITS_SEARCH = defineSearchIndex({
  name: 'permits_search',
  columns: [
    { name: 'demandeur', weight: 'A' },
    { name: 'nature', weight: 'B' },
    { name: 'lieu', weight: 'B' },
  ],
});

/** Words of the kind, so that « démolition », « aménagement » or « construction » find it. */
const KIND_WORDS: Readonly<Record<PermitType, string>> = {
  PC: 'construction',
  DP: 'déclaration de travaux',
  PA: 'aménagement lotissement',
  PD: 'démolition',
};

const join = (parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(' ') || null;

export interface IndexedPermit {
  id: string;
  type: PermitType;
  demandeur: string | null;
  nature_projet: string | null;
  logements?: number | null;
  localite: string | null;
}

export function permitDocument(p: IndexedPermit): { key: string; fields: Record<string, string | null> } {
  return {
    key: p.id,
    fields: {
      demandeur: p.demandeur,
      nature: join([TYPE_LABELS[p.type], KIND_WORDS[p.type], p.nature_projet, p.logements ? 'logements' : null]),
      lieu: p.localite,
    },
  };
}

export async function reindexPermits(trx: Knex.Transaction, rows: readonly IndexedPermit[]): Promise<void> {
  await upsertSearchDocuments(trx, PERMITS_SEARCH, rows.map(permitDocument));
}
