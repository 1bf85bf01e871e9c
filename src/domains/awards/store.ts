// Reads of awarded contracts (DECP) and of public buyers.
import type { Database } from '../../platform/db/database.js';
import { preparedRowsTogether } from '../../platform/db/prepared.js';
import { AWARDS_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import { foldText } from '../../platform/search/text-fold.js';
import type { AwardRow, OtherHolder } from './rows.js';

/** A holder on an award's record: a SIRET (its SIREN), or an identifier as published. */
export interface AwardHolder {
  siret: string | null;
  siren: string | null;
  denomination: string | null;
  identifiant: string | null;
  type_identifiant: string | null;
}

/** An award as its record reads it: the row's columns, its holders and its buyer's name (the directory's when unpublished). */
export type AwardView = Omit<AwardRow, 'acheteur_siret' | 'lieu_type' | 'winners' | 'titulaires_autres' | 'ingested_at' | 'updated_at'> & {
  titulaires: AwardHolder[];
  buyerName: string | null;
};

const AWARD_COLUMNS = [
  'a.award_key',
  'a.id',
  'a.source',
  'a.acheteur_nom',
  'a.acheteur_siret',
  'a.buyer_id',
  'a.objet',
  'a.cpv',
  'a.procedure',
  'a.nature',
  'a.lieu_code',
  'a.departement',
  'a.montant',
  'a.montant_initial',
  'a.date_notification',
  'a.duree_mois',
  'a.duree_mois_initiale',
  'a.forme_prix',
  'a.modifications',
  'a.titulaires_autres',
  'b.nom as buyer_nom',
];

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));
const jsonList = <T>(v: unknown): T[] => (typeof v === 'string' && v ? (JSON.parse(v) as T[]) : []);

export async function awardsByKeys(db: Database, keys: string[]): Promise<AwardView[]> {
  if (!keys.length) return [];
  // The page's awards with their buyers, and their winners, each with the directory's
  // (SIRENE) names of the company behind it, for names the publication left out: one
  // statement on PostgreSQL (preparedRowsTogether), where reading the names after the awards
  // cost two more round trips per call.
  const directory = (alias: string) => [`${alias}.denomination as ${alias}_denomination`, `${alias}.denomination_usuelle as ${alias}_denomination_usuelle`, `${alias}.nom_personne as ${alias}_nom_personne`];
  const [awardRows, winnerRows] = await preparedRowsTogether(db, [
    db('awards as a')
      .leftJoin('buyers as b', 'b.id', 'a.buyer_id')
      .leftJoin('companies as bc', (j) => j.on('bc.siren', '=', db.raw('substr(a.acheteur_siret, 1, 9)')).andOnVal('bc.unit_known', '=', true))
      .whereIn('a.award_key', keys)
      .select([...AWARD_COLUMNS, ...directory('bc')]),
    db('award_winners as w')
      .leftJoin('companies as wc', (j) => j.on('wc.siren', '=', 'w.siren').andOnVal('wc.unit_known', '=', true))
      .whereIn('w.award_key', keys)
      .select(['w.award_key', 'w.siret', 'w.siren', 'w.denomination', ...directory('wc')]),
  ]);
  const rows = (awardRows ?? []) as ({ award_key: string } & Record<string, unknown>)[];
  // In SIRET order, whatever order the rows came in.
  const winners = ((winnerRows ?? []) as { award_key: string; siret: string; siren: string; denomination: string | null }[]).sort((x, y) => (x.siret < y.siret ? -1 : x.siret > y.siret ? 1 : 0));
  // The directory's name of a company: as `directoryNames` gives it.
  const nameOf = (r: Record<string, unknown>, alias: string) =>
    ((r[`${alias}_denomination`] ?? r[`${alias}_denomination_usuelle`] ?? r[`${alias}_nom_personne`]) as string | null | undefined) || null;
  const names = new Map<string, string>();
  for (const r of rows) {
    const name = nameOf(r, 'bc');
    if (name) names.set(String(r.acheteur_siret).slice(0, 9), name);
  }
  for (const w of winners) {
    const name = nameOf(w, 'wc');
    if (name) names.set(w.siren, name);
  }
  const byKey = new Map<string, AwardView>();
  for (const r of rows) {
    const { acheteur_siret: siret, buyer_nom: buyerNom, titulaires_autres: others, bc_denomination: _d, bc_denomination_usuelle: _du, bc_nom_personne: _np, ...rest } = r as Record<string, unknown>;
    const storedName = (r.acheteur_nom as string | null) ?? (buyerNom && buyerNom !== r.buyer_id ? (buyerNom as string) : null);
    byKey.set(r.award_key, {
      ...(rest as unknown as AwardView),
      montant: numberOrNull(r.montant),
      montant_initial: numberOrNull(r.montant_initial),
      duree_mois: numberOrNull(r.duree_mois),
      duree_mois_initiale: numberOrNull(r.duree_mois_initiale),
      modifications: jsonList(r.modifications),
      titulaires: [
        ...winners
          .filter((w) => w.award_key === r.award_key)
          .map((w) => ({ siret: w.siret, siren: w.siren, denomination: w.denomination ?? names.get(w.siren) ?? null, identifiant: w.siret, type_identifiant: 'SIRET' })),
        ...jsonList<OtherHolder>(others).map((h) => ({ siret: null, siren: null, denomination: h.denomination, identifiant: h.identifiant, type_identifiant: h.type_identifiant })),
      ],
      buyerName: storedName ?? (typeof siret === 'string' ? (names.get(siret.slice(0, 9)) ?? null) : null),
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
  /** A notice's marche_id or annonce_id: the awards published for it. */
  avis?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A notice (marche_id or annonce_id) and the award notices that cite it: their idweb. */
async function awardNoticesOf(db: Database, avis: string): Promise<string[]> {
  const notice = (await (UUID.test(avis) ? db('notices').where('marche_id', avis.toLowerCase()) : db('notices').where('annonce_id', avis)).first('annonce_id')) as { annonce_id: string } | undefined;
  const annonce = notice?.annonce_id ?? avis;
  const citing = (await db('notice_corrections').where({ annonce_id: annonce, kind: 'attribution' }).select('correction_id')) as { correction_id: string }[];
  // An idweb is digits and hyphens: nothing a LIKE pattern would read as a wildcard.
  return [annonce, ...citing.map((c) => c.correction_id)].filter((id) => /^[A-Za-z0-9-]+$/.test(id));
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
  if (f.avis) {
    // The awards of the notice itself (an award notice) and of the award notices citing it (`annonce_lie`).
    const notices = await awardNoticesOf(db, f.avis);
    if (!notices.length) base.whereRaw('1 = 0');
    else base.where('a.source', 'boamp').andWhere((q) => void notices.forEach((idweb) => q.orWhere('a.award_key', 'like', `boamp:${idweb}:%`)));
  }
  if (f.cpvPrefix) base.where('a.cpv', 'like', `${f.cpvPrefix}%`);
  if (f.notifiedFrom) base.where('a.date_notification', '>=', f.notifiedFrom);
  if (f.notifiedTo) base.where('a.date_notification', '<=', f.notifiedTo);
  const filtered = Object.values(f).some((v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length));
  // The departments list their awards (every award the filter lets through): on SQLite broad
  // words are matched among them rather than each match's record read (`readsAmongListed`).
  const among = f.departements?.length ? db('awards as l').select('l.award_key').whereIn('l.departement', f.departements) : undefined;
  const found = await searchPage(db, parsed, { index: AWARDS_SEARCH, base, key: 'a.award_key', then: { column: 'a.date_notification', order: 'desc' }, filtered, among }, page);
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
