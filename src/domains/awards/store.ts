// Reads of awarded contracts (DECP) and of public buyers.
import type { Database } from '../../platform/db/database.js';
import { AWARDS_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { AwardRow } from './rows.js';

/** An award as its record reads it: the row's columns, its winners (with their SIREN) and its buyer's name. */
export type AwardView = Omit<AwardRow, 'acheteur_siret' | 'lieu_type' | 'winners' | 'ingested_at' | 'updated_at'> & {
  titulaires: { siret: string; siren: string; denomination: string | null }[];
  buyerName: string | null;
};

const AWARD_COLUMNS = ['a.award_key', 'a.id', 'a.acheteur_nom', 'a.buyer_id', 'a.objet', 'a.cpv', 'a.procedure', 'a.nature', 'a.lieu_code', 'a.departement', 'a.montant', 'a.date_notification', 'a.duree_mois', 'a.forme_prix', 'b.nom as buyer_nom'];

export async function awardsByKeys(db: Database, keys: string[]): Promise<AwardView[]> {
  if (!keys.length) return [];
  const rows = await db('awards as a').leftJoin('buyers as b', 'b.id', 'a.buyer_id').whereIn('a.award_key', keys).select(AWARD_COLUMNS);
  const winners = await db('award_winners').whereIn('award_key', keys).select('award_key', 'siret', 'siren', 'denomination').orderBy('siret');
  const byKey = new Map<string, AwardView>();
  for (const r of rows) {
    byKey.set(r.award_key, {
      ...(r as AwardView),
      montant: r.montant === null ? null : Number(r.montant),
      duree_mois: r.duree_mois === null ? null : Number(r.duree_mois),
      titulaires: winners.filter((w) => w.award_key === r.award_key).map((w) => ({ siret: w.siret, siren: w.siren, denomination: w.denomination })),
      buyerName: r.acheteur_nom ?? r.buyer_nom ?? null,
    });
  }
  return keys.map((k) => byKey.get(k)).filter((a): a is AwardView => a !== undefined);
}

export interface AwardFilters {
  departements?: string[];
  montantMin?: number;
  titulaire?: string;
  acheteurSiret?: string;
  cpvPrefix?: string;
  notifiedFrom?: string;
  notifiedTo?: string;
}

export async function searchAwards(
  db: Database,
  parsed: ParsedQuery | null,
  f: AwardFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ keys: string[]; hasMore: boolean; total: number }> {
  const base = db('awards as a');
  if (f.departements?.length) base.whereIn('a.departement', f.departements);
  if (f.montantMin !== undefined) base.where('a.montant', '>=', f.montantMin);
  if (f.titulaire) {
    const column = f.titulaire.length === 9 ? 'w.siren' : 'w.siret';
    base.whereExists(db('award_winners as w').select(db.raw('1')).whereRaw('w.award_key = a.award_key').andWhere(column, f.titulaire));
  }
  if (f.acheteurSiret) base.where('a.acheteur_siret', f.acheteurSiret);
  if (f.cpvPrefix) base.where('a.cpv', 'like', `${f.cpvPrefix}%`);
  if (f.notifiedFrom) base.where('a.date_notification', '>=', f.notifiedFrom);
  if (f.notifiedTo) base.where('a.date_notification', '<=', f.notifiedTo);
  const filtered = Object.values(f).some((v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length));
  const found = await searchPage(db, parsed, { index: AWARDS_SEARCH, base, key: 'a.award_key', then: { column: 'a.date_notification', order: 'desc' }, filtered }, page);
  return { keys: found.keys, hasMore: found.hasMore, total: found.total };
}

export interface BuyerView {
  id: string;
  nom: string;
  siret: string | null;
  notices: { annee: number; nombre: number }[];
  awards: { annee: number; nombre: number; montant_total: number }[];
}

export async function buyerById(db: Database, id: string): Promise<BuyerView | null> {
  const buyer = await db('buyers').where({ id }).first('id', 'nom', 'siret');
  if (!buyer) return null;
  const year = (column: string) => db.raw(`cast(substr(${column}, 1, 4) as integer) as annee`);
  const notices = await db('notices').where('buyer_id', id).whereNotNull('date_parution').select(year('date_parution')).count('* as nombre').groupBy('annee').orderBy('annee');
  const awards = await db('awards')
    .where('buyer_id', id)
    .whereNotNull('date_notification')
    .select(year('date_notification'))
    .count('* as nombre')
    .sum('montant as montant_total')
    .groupBy('annee')
    .orderBy('annee');
  return {
    id: buyer.id,
    nom: buyer.nom,
    siret: buyer.siret ?? null,
    notices: notices.map((r: Record<string, unknown>) => ({ annee: Number(r.annee), nombre: Number(r.nombre) })),
    awards: awards.map((r: Record<string, unknown>) => ({ annee: Number(r.annee), nombre: Number(r.nombre), montant_total: Number(r.montant_total ?? 0) })),
  };
}

/** Buyers whose folded name holds every word, or with this SIRET, by name. */
export async function searchBuyers(db: Database, filter: { words?: string; siret?: string }, page: { offset: number; limit: number }): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const query = db('buyers').select('id', 'nom').orderBy([{ column: 'nom' }, { column: 'id' }]);
  if (filter.siret) query.where('siret', filter.siret);
  const rows = (await query) as { id: string; nom: string }[];
  const wanted = foldText(filter.words ?? '').split(' ').filter(Boolean);
  const matched = rows.filter((b) => wanted.every((w) => foldText(b.nom).includes(w))).map((b) => b.id);
  const slice = matched.slice(page.offset, page.offset + page.limit + 1);
  return { ids: slice.slice(0, page.limit), hasMore: slice.length > page.limit, total: matched.length };
}
