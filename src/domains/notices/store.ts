// Reads of the published notices: one by its id (the service's UUID or the BOAMP idweb),
// and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { NOTICES_SEARCH } from './search-index.js';
import { bestMatches, orderByRelevance, searchMatches } from '../../platform/search/full-text.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { NoticeFields } from './rows.js';


const COLUMNS = ['marche_id', 'annonce_id', 'source', 'objet', 'acheteur_nom', 'date_parution', 'date_limite', 'departements', 'types_marche', 'nature', 'nature_libelle', 'procedure_libelle', 'cpv', 'cpv_codes'];

function toNotice(r: Record<string, unknown>): NoticeFields {
  return {
    ...(r as unknown as NoticeFields),
    departements: JSON.parse(r.departements as string) as string[],
    types_marche: JSON.parse(r.types_marche as string) as string[],
    cpv_codes: JSON.parse(r.cpv_codes as string) as string[],
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function noticeById(db: Database, id: string): Promise<NoticeFields | null> {
  const row = UUID.test(id) ? await db('notices').where('marche_id', id.toLowerCase()).first(COLUMNS) : await db('notices').where('annonce_id', id).first(COLUMNS);
  return row ? toNotice(row) : null;
}

export async function noticesByIds(db: Database, ids: string[]): Promise<NoticeFields[]> {
  if (!ids.length) return [];
  const rows = await db('notices').whereIn('marche_id', ids).select(COLUMNS);
  const byId = new Map(rows.map((r) => [r.marche_id as string, toNotice(r)]));
  return ids.map((id) => byId.get(id)).filter((n): n is NoticeFields => n !== undefined);
}

export interface NoticeFilters {
  departements?: string[];
  typesMarche?: string[];
  cpvPrefix?: string;
  publishedFrom?: string;
  publishedTo?: string;
  /** ISO instant: only notices whose deadline is after it. */
  openAfter?: string;
  buyerWords?: string;
}

/** Buyers whose folded name holds every word asked for. */
async function matchingBuyers(db: Database, words: string): Promise<string[]> {
  const wanted = foldText(words).split(' ').filter(Boolean);
  const buyers = (await db('buyers').select('id', 'nom')) as { id: string; nom: string }[];
  return buyers.filter((b) => wanted.every((w) => foldText(b.nom).includes(w))).map((b) => b.id);
}

/** The order of `orderByRelevance` with the date: rank (best first), date (latest first, none last), key in byte order. */
function byRankDateKey(rankA: number, dateA: string | null, keyA: string, rankB: number, dateB: string | null, keyB: string): number {
  if (rankA !== rankB) return rankB - rankA;
  if (dateA !== dateB) {
    if (dateA === null) return 1;
    if (dateB === null) return -1;
    return dateA < dateB ? 1 : -1;
  }
  return Buffer.compare(Buffer.from(keyA), Buffer.from(keyB));
}

export async function searchNotices(
  db: Database,
  parsed: ParsedQuery | null,
  filters: NoticeFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('notices as n');
  if (filters.departements?.length) {
    base.whereExists(db('notice_departements as d').select(db.raw('1')).whereRaw('d.marche_id = n.marche_id').whereIn('d.departement', filters.departements));
  }
  if (filters.typesMarche?.length) base.where((w) => filters.typesMarche?.forEach((t) => w.orWhere('n.types_marche', 'like', `%"${t}"%`)));
  if (filters.cpvPrefix) base.where('n.cpv_codes', 'like', `%"${filters.cpvPrefix}%`);
  if (filters.publishedFrom) base.where('n.date_parution', '>=', filters.publishedFrom);
  if (filters.publishedTo) base.where('n.date_parution', '<=', filters.publishedTo);
  if (filters.openAfter) base.where('n.date_limite', '>', filters.openAfter);
  if (filters.buyerWords) {
    const buyers = await matchingBuyers(db, filters.buyerWords);
    if (!buyers.length) return { ids: [], hasMore: false, total: 0 };
    base.whereIn('n.buyer_id', buyers);
  }
  if (parsed) base.join(searchMatches(db, NOTICES_SEARCH, parsed).as('m'), 'm.key', 'n.marche_id');
  const count = await db.count<{ n: number | string }[]>('* as n').from(base.clone().select('n.marche_id').limit(page.countCap).as('capped'));
  const unfiltered = Object.values(filters).every((v) => v === undefined || v === null || v === '' || (Array.isArray(v) && !v.length));
  if (parsed && unfiltered) {
    // Words alone: ranked in the index, only the best matches read (same order as below).
    const hits = await bestMatches(db, NOTICES_SEARCH, parsed, page.offset + page.limit + 1);
    const dates = new Map<string, string | null>();
    for (let i = 0; i < hits.length; i += 500) {
      const rows = (await db('notices').whereIn('marche_id', hits.slice(i, i + 500).map((h) => h.key)).select('marche_id', 'date_parution')) as { marche_id: string; date_parution: string | null }[];
      for (const r of rows) dates.set(r.marche_id, r.date_parution);
    }
    const ordered = hits.filter((h) => dates.has(h.key)).sort((a, b) => byRankDateKey(a.rank, dates.get(a.key) ?? null, a.key, b.rank, dates.get(b.key) ?? null, b.key));
    const ids = ordered.slice(page.offset, page.offset + page.limit + 1).map((h) => h.key);
    return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
  }
  const rows = parsed
    ? await orderByRelevance(db, base.clone().select('n.marche_id', 'm.rank'), { rank: 'm.rank', then: [{ column: 'n.date_parution', order: 'desc' }], key: 'n.marche_id' })
        .offset(page.offset)
        .limit(page.limit + 1)
    : await base
        .clone()
        .select('n.marche_id')
        .orderBy([
          { column: 'n.date_parution', order: 'desc' },
          { column: 'n.marche_id', order: 'asc' },
        ])
        .offset(page.offset)
        .limit(page.limit + 1);
  const ids = (rows as { marche_id: string }[]).map((r) => r.marche_id);
  return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
}
