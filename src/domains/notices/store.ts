// Reads of the published notices: one by its id (the service's UUID or the BOAMP idweb),
// and searches by words and filters.
import type { Database } from '../../platform/db/database.js';
import { NOTICES_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { NoticeFields } from './rows.js';
import { preparedRows } from '../../platform/db/prepared.js';


const COLUMNS = [
  'marche_id',
  'annonce_id',
  'source',
  'objet',
  'acheteur_nom',
  'acheteur_siret',
  'buyer_id',
  'date_parution',
  'date_limite',
  'departements',
  'types_marche',
  'nature',
  'nature_libelle',
  'procedure_libelle',
  'etat',
  'cpv',
  'cpv_codes',
  'valeur_estimee',
  'lots',
  'annonces_liees',
  'modifie_le',
  'modifie_par',
  'modification',
];

const jsonList = <T>(v: unknown): T[] => (typeof v === 'string' && v ? (JSON.parse(v) as T[]) : []);

function toNotice(r: Record<string, unknown>): NoticeFields {
  return {
    ...(r as unknown as NoticeFields),
    departements: jsonList(r.departements),
    types_marche: jsonList(r.types_marche),
    cpv_codes: jsonList(r.cpv_codes),
    lots: jsonList(r.lots),
    annonces_liees: jsonList(r.annonces_liees),
    valeur_estimee: r.valeur_estimee === null || r.valeur_estimee === undefined ? null : Number(r.valeur_estimee),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function noticeById(db: Database, id: string): Promise<NoticeFields | null> {
  const row = UUID.test(id) ? await db('notices').where('marche_id', id.toLowerCase()).first(COLUMNS) : await db('notices').where('annonce_id', id).first(COLUMNS);
  return row ? toNotice(row) : null;
}

export async function noticesByIds(db: Database, ids: string[]): Promise<NoticeFields[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<Record<string, unknown>>(db, db('notices').whereIn('marche_id', ids).select(COLUMNS));
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
  const filtered = Object.values(filters).some((v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length));
  const found = await searchPage(db, parsed, { index: NOTICES_SEARCH, base, key: 'n.marche_id', then: { column: 'n.date_parution', order: 'desc' }, filtered }, page);
  return { ids: found.keys, hasMore: found.hasMore, total: found.total };
}
