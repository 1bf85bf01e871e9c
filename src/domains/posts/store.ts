// Reads of the social-network posts: by id, and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import type { PublicationRow } from './rows.js';
import { PUBLICATIONS_SEARCH } from './search-index.js';
import { preparedRows } from '../../platform/db/prepared.js';

export type PublicationView = Omit<PublicationRow, 'ingested_at' | 'updated_at'>;

const COLUMNS = ['id', 'reseau', 'auteur', 'date_publication', 'jour', 'texte', 'commune', 'commune_nom', 'departement'];

export async function publicationsByIds(db: Database, ids: string[]): Promise<PublicationView[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<PublicationView>(db, db('publications').whereIn('id', ids).select(COLUMNS));
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => byId.get(id)).filter((r): r is PublicationView => r !== undefined);
}

export interface PublicationFilters {
  reseaux: string[];
  departements: string[];
  commune?: string;
  from?: string;
  to?: string;
}

export async function searchPublications(
  db: Database,
  parsed: ParsedQuery | null,
  f: PublicationFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('publications as p');
  if (f.reseaux.length) base.whereIn('p.reseau', f.reseaux);
  if (f.departements.length) base.whereIn('p.departement', f.departements);
  if (f.commune) base.where('p.commune', f.commune);
  if (f.from) base.where('p.jour', '>=', f.from);
  if (f.to) base.where('p.jour', '<=', f.to);
  const found = await searchPage(db, parsed, { index: PUBLICATIONS_SEARCH, base, key: 'p.id', then: { column: 'p.jour', order: 'desc' }, filtered: f.reseaux.length > 0 || f.departements.length > 0 || !!f.commune || !!f.from || !!f.to }, page);
  return { ids: found.keys, hasMore: found.hasMore, total: found.total };
}
