// Reads of the building permits: by id (or bare number), and searches by words and filters,
// by relevance then authorisation date.
import type { Database } from '../../platform/db/database.js';
import { PERMITS_SEARCH } from './search-index.js';
import { searchPage } from '../../platform/search/search-page.js';
import type { ParsedQuery } from '../../platform/search/query-syntax.js';
import type { PermitRow, PermitState, PermitType } from './rows.js';
import { preparedRows } from '../../platform/db/prepared.js';

/** A permit as its record reads it, with whether its applicant is in the companies' table. */
export type PermitView = Omit<PermitRow, 'ingested_at' | 'updated_at'> & { demandeurConnu: boolean };

const COLUMNS = [
  'id', 'numero', 'type', 'etat', 'date_autorisation', 'date_ouverture_chantier', 'date_achevement', 'annee_depot', 'commune', 'departement',
  'localite', 'code_postal', 'adresse', 'nature_projet', 'logements', 'surface_habitation_creee', 'surface_locaux_creee', 'surface_creee',
  'superficie_terrain', 'demandeur', 'siren_demandeur', 'siret_demandeur', 'categorie_juridique_demandeur', 'activite_demandeur', 'source_updated',
];

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

async function views(db: Database, rows: Record<string, unknown>[]): Promise<Map<string, PermitView>> {
  const sirens = [...new Set(rows.map((r) => r.siren_demandeur).filter((s): s is string => typeof s === 'string'))];
  const known = new Set<string>(sirens.length ? ((await db('companies').whereIn('siren', sirens).pluck('siren')) as string[]) : []);
  const out = new Map<string, PermitView>();
  for (const r of rows) {
    out.set(r.id as string, {
      ...(r as unknown as PermitView),
      annee_depot: num(r.annee_depot),
      logements: num(r.logements),
      surface_habitation_creee: num(r.surface_habitation_creee),
      surface_locaux_creee: num(r.surface_locaux_creee),
      surface_creee: num(r.surface_creee),
      superficie_terrain: num(r.superficie_terrain),
      demandeurConnu: typeof r.siren_demandeur === 'string' && known.has(r.siren_demandeur),
    });
  }
  return out;
}

export async function permitsByIds(db: Database, ids: string[]): Promise<PermitView[]> {
  if (!ids.length) return [];
  const byId = await views(db, await preparedRows<Record<string, unknown>>(db, db('permits').whereIn('id', ids).select(COLUMNS)));
  return ids.map((id) => byId.get(id)).filter((p): p is PermitView => p !== undefined);
}

/** The permit of this id (kind and number), or every permit of this bare number (by kind). */
export async function permitsByNumber(db: Database, normalised: string): Promise<PermitView[]> {
  const kind = /^(PC|DP|PA|PD)/.exec(normalised)?.[1];
  const rows = (await db('permits')
    .where((w) => {
      w.where('numero', normalised);
      if (kind) w.orWhere('id', normalised);
    })
    .select(COLUMNS)
    .orderBy('id')
    .limit(50)) as Record<string, unknown>[];
  return [...(await views(db, rows)).values()];
}

export interface PermitFilters {
  departements?: string[];
  commune?: string;
  types?: PermitType[];
  etats?: PermitState[];
  authorisedFrom?: string;
  authorisedTo?: string;
  logementsMin?: number;
  surfaceMin?: number;
  surfaceMax?: number;
  siren?: string;
}

export async function searchPermits(
  db: Database,
  parsed: ParsedQuery | null,
  f: PermitFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = db('permits as p');
  if (f.departements?.length) base.whereIn('p.departement', f.departements);
  if (f.commune) base.where('p.commune', f.commune);
  if (f.types?.length) base.whereIn('p.type', f.types);
  if (f.etats?.length) base.whereIn('p.etat', f.etats);
  if (f.authorisedFrom) base.where('p.date_autorisation', '>=', f.authorisedFrom);
  if (f.authorisedTo) base.where('p.date_autorisation', '<=', f.authorisedTo);
  if (f.logementsMin !== undefined) base.where('p.logements', '>=', f.logementsMin);
  if (f.surfaceMin !== undefined) base.where('p.surface_creee', '>=', f.surfaceMin);
  if (f.surfaceMax !== undefined) base.where('p.surface_creee', '<=', f.surfaceMax);
  if (f.siren) base.where('p.siren_demandeur', f.siren);
  const filtered = Object.values(f).some((v) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && !v.length));
  const found = await searchPage(db, parsed, { index: PERMITS_SEARCH, base, key: 'p.id', then: { column: 'p.date_autorisation', order: 'desc' }, filtered }, page);
  return { ids: found.keys, hasMore: found.hasMore, total: found.total };
}
