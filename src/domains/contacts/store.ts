// Reads of the directory contacts: by id, and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { kindOf } from '../../platform/db/database.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldedWords } from '../../platform/search/text-fold.js';
import type { ContactRow } from './rows.js';
import { CONTACTS_SEARCH } from './search-index.js';
import { preparedRows } from '../../platform/db/prepared.js';

export type ContactView = Omit<ContactRow, 'organisation_mots' | 'role_mots' | 'ingested_at' | 'updated_at'>;

const COLUMNS = ['id', 'nom', 'role', 'organisation', 'organisation_siren', 'organisation_siret', 'commune', 'commune_nom', 'departement'];

export async function contactsByIds(db: Database, ids: string[]): Promise<ContactView[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<ContactView>(db, db('contacts').whereIn('id', ids).select(COLUMNS));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is ContactView => r !== undefined);
}

export interface ContactFilters {
  departements: string[];
  commune?: string;
  organisation?: string;
  organisationSiren?: string;
  role?: string;
}

export async function searchContacts(
  db: Database,
  parsed: ParsedQuery | null,
  f: ContactFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('contacts as c');
  if (f.departements.length) base.whereIn('c.departement', f.departements);
  if (f.commune) base.where('c.commune', f.commune);
  if (f.organisationSiren) base.where('c.organisation_siren', f.organisationSiren);
  // Folded words are [a-z0-9] only: no LIKE wildcard can come from the caller. A word starts a word of the text.
  for (const w of foldedWords(f.organisation ?? '')) base.where('c.organisation_mots', 'like', `% ${w}%`);
  for (const w of foldedWords(f.role ?? '')) base.where('c.role_mots', 'like', `% ${w}%`);
  const filtered = f.departements.length > 0 || !!f.commune || !!f.organisationSiren || !!f.organisation || !!f.role;
  if (parsed) {
    // Equal ranks by id (no date in a contact).
    const found = await searchPage(db, parsed, { index: CONTACTS_SEARCH, base, key: 'c.id', then: { column: 'c.id', order: 'asc' }, filtered }, page);
    return { ids: found.keys, hasMore: found.hasMore, total: found.total };
  }
  // Without words: by name, in byte order on both engines.
  const count = await db.count<{ n: number | string }[]>('* as n').from(base.clone().select('c.id').limit(page.countCap).as('capped'));
  const collate = kindOf(db) === 'postgres' ? ' collate "C"' : '';
  const rows = (await base.clone().select('c.id', 'c.nom').orderByRaw(`??${collate}, ??${collate}`, ['c.nom', 'c.id']).offset(page.offset).limit(page.limit + 1)) as { id: string }[];
  const ids = rows.map((r) => r.id);
  return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
}
