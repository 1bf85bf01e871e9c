// Reads of the council minutes: by id, and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { kindOf } from '../../platform/db/database.js';
import { orderByRelevance, searchMatches } from '../../platform/search/full-text.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import type { DeliberationRow } from './rows.js';
import { DELIBERATIONS_SEARCH } from './search-index.js';

export type DeliberationView = Omit<DeliberationRow, 'ingested_at' | 'updated_at'>;

const COLUMNS = ['id', 'commune', 'commune_nom', 'departement', 'date_seance', 'numero', 'titre', 'texte', 'source'];

export async function deliberationsByIds(db: Database, ids: string[]): Promise<DeliberationView[]> {
  if (!ids.length) return [];
  const rows = (await db('deliberations').whereIn('id', ids).select(COLUMNS)) as DeliberationView[];
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
  if (parsed) base.join(searchMatches(db, DELIBERATIONS_SEARCH, parsed).as('m'), 'm.key', 'd.id');
  const count = await db.count<{ n: number | string }[]>('* as n').from(base.clone().select('d.id').limit(page.countCap).as('capped'));
  const ordered = parsed
    ? orderByRelevance(db, base.clone().select('d.id', 'm.rank'), { rank: 'm.rank', then: [{ column: 'd.date_seance', order: 'desc' }], key: 'd.id' })
    : base.clone().select('d.id').orderByRaw(`?? desc, ??${kindOf(db) === 'postgres' ? ' collate "C"' : ''}`, ['d.date_seance', 'd.id']);
  const rows = (await ordered.offset(page.offset).limit(page.limit + 1)) as { id: string }[];
  const ids = rows.map((r) => r.id);
  return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
}
