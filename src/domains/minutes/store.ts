// Reads of the council minutes: by id, and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import type { DeliberationRow } from './rows.js';
import { DELIBERATIONS_SEARCH } from './search-index.js';
import { preparedRows } from '../../platform/db/prepared.js';

export type DeliberationView = Omit<DeliberationRow, 'ingested_at' | 'updated_at'>;

const COLUMNS = ['id', 'commune', 'commune_nom', 'departement', 'date_seance', 'numero', 'titre', 'texte', 'source'];

export async function deliberationsByIds(db: Database, ids: string[]): Promise<DeliberationView[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<DeliberationView>(db, db('deliberations').whereIn('id', ids).select(COLUMNS));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is DeliberationView => r !== undefined);
}

export interface DeliberationFilters {
  departements: string[];
  commune?: string;
  from?: string;
  to?: string;
}

export async function searchDeliberations(
  db: Database,
  parsed: ParsedQuery | null,
  f: DeliberationFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('deliberations as d');
  if (f.departements.length) base.whereIn('d.departement', f.departements);
  if (f.commune) base.where('d.commune', f.commune);
  if (f.from) base.where('d.date_seance', '>=', f.from);
  if (f.to) base.where('d.date_seance', '<=', f.to);
  const found = await searchPage(db, parsed, { index: DELIBERATIONS_SEARCH, base, key: 'd.id', then: { column: 'd.date_seance', order: 'desc' }, filtered: f.departements.length > 0 || !!f.commune || !!f.from || !!f.to }, page);
  return { ids: found.keys, hasMore: found.hasMore, total: found.total };
}
