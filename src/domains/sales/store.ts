// Reads of property sales (DVF): searches by filters in date order, sales by id, and the
// rows the statistics are counted from.
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import { decodeParcels, decodePremises, type SaleParcel, type SalePremises, type SaleRow } from './rows.js';
import { preparedRows } from '../../platform/db/prepared.js';

/** A sale as its record reads it: the row's columns, its premises and parcels parsed. */
export type SaleView = Omit<SaleRow, 'locaux' | 'parcelles' | 'ingested_at' | 'updated_at'> & { locaux: SalePremises[]; parcelles: SaleParcel[] };

const VIEW_COLUMNS = [
  'id_mutation',
  'date_mutation',
  'nature_mutation',
  'valeur_fonciere',
  'departement',
  'code_commune',
  'nom_commune',
  'code_postal',
  'adresse',
  'type_local',
  'surface_bati',
  'nombre_pieces',
  'prix_m2',
  'surface_terrain',
  'nombre_locaux',
  'nombre_parcelles',
  'longitude',
  'latitude',
  'locaux',
  'parcelles',
];

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function salesByIds(db: Database, ids: string[]): Promise<SaleView[]> {
  if (!ids.length) return [];
  const rows = await preparedRows<SaleRow & Record<string, unknown>>(db, db('sales').whereIn('id_mutation', ids).select(VIEW_COLUMNS));
  const byId = new Map<string, SaleView>();
  for (const r of rows) {
    byId.set(r.id_mutation, {
      ...r,
      valeur_fonciere: numberOrNull(r.valeur_fonciere),
      surface_bati: numberOrNull(r.surface_bati),
      nombre_pieces: numberOrNull(r.nombre_pieces),
      prix_m2: numberOrNull(r.prix_m2),
      surface_terrain: numberOrNull(r.surface_terrain),
      nombre_locaux: Number(r.nombre_locaux),
      nombre_parcelles: Number(r.nombre_parcelles),
      longitude: numberOrNull(r.longitude),
      latitude: numberOrNull(r.latitude),
      locaux: decodePremises(r.locaux),
      parcelles: decodeParcels(r.parcelles),
    });
  }
  return ids.map((id) => byId.get(id)).filter((s): s is SaleView => s !== undefined);
}

export interface SaleFilters {
  idMutation?: string;
  departements?: string[];
  /** An INSEE code or a postal code: matched against both. */
  commune?: string;
  communeInsee?: string;
  communePostal?: string;
  typeLocal?: string;
  natures?: string[];
  from?: string;
  to?: string;
  prixMin?: number;
  prixMax?: number;
  surfaceMin?: number;
  surfaceMax?: number;
}

function filtered(db: Database, f: SaleFilters): Knex.QueryBuilder {
  const q = db('sales');
  if (f.idMutation) q.where('id_mutation', f.idMutation);
  if (f.departements?.length) q.whereIn('departement', f.departements);
  if (f.commune) {
    const code = f.commune.toUpperCase();
    q.where((w) => w.where('code_commune', code).orWhere('code_postal', code));
  }
  if (f.communeInsee) q.where('code_commune', f.communeInsee.toUpperCase());
  if (f.communePostal) q.where('code_postal', f.communePostal);
  if (f.typeLocal) q.where('type_local', f.typeLocal);
  if (f.natures?.length) q.whereIn('nature_mutation', f.natures);
  if (f.from) q.where('date_mutation', '>=', f.from);
  if (f.to) q.where('date_mutation', '<=', f.to);
  if (f.prixMin !== undefined) q.where('valeur_fonciere', '>=', f.prixMin);
  if (f.prixMax !== undefined) q.where('valeur_fonciere', '<=', f.prixMax);
  if (f.surfaceMin !== undefined) q.where('surface_bati', '>=', f.surfaceMin);
  if (f.surfaceMax !== undefined) q.where('surface_bati', '<=', f.surfaceMax);
  return q;
}

/** Lists of departments up to this length are paged one department at a time (see `searchSales`). */
const MAX_SPLIT_DEPARTEMENTS = 20;

/**
 * The filters as parts each served by one index in date order: a commune code matched as
 * an INSEE code and as a postal code, a few departments one by one; else the filters whole.
 */
function partsOf(f: SaleFilters): SaleFilters[] {
  if (f.commune) return [{ ...f, commune: undefined, communeInsee: f.commune }, { ...f, commune: undefined, communePostal: f.commune }];
  const deps = f.departements ?? [];
  if (deps.length > 1 && deps.length <= MAX_SPLIT_DEPARTEMENTS) return deps.map((d) => ({ ...f, departements: [d] }));
  return [f];
}

const byDateThenId = (a: { id_mutation: string; date_mutation: string }, b: { id_mutation: string; date_mutation: string }) =>
  a.date_mutation > b.date_mutation ? -1 : a.date_mutation < b.date_mutation ? 1 : a.id_mutation < b.id_mutation ? -1 : a.id_mutation > b.id_mutation ? 1 : 0;

/**
 * Sales matching the filters, latest first (then by id), one page, and how many match (up
 * to `countCap`). A search over several departments or a commune code reads each part in
 * its index's date order, only as deep as the page, and merges them: one sort of every
 * matching sale of a region would take longer than the whole page.
 */
export async function searchSales(
  db: Database,
  f: SaleFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  // A constant, not the key: the count then reads the department index alone (it holds the kind, date, price and surface).
  const count = await db.count<{ n: number | string }[]>('* as n').from(filtered(db, f).select(db.raw('1 as one')).limit(page.countCap).as('capped'));
  const depth = page.offset + page.limit + 1;
  const parts = partsOf(f);
  const rows: { id_mutation: string; date_mutation: string }[] = [];
  for (const part of parts) {
    rows.push(
      ...((await filtered(db, part)
        .select('id_mutation', 'date_mutation')
        .orderBy([
          { column: 'date_mutation', order: 'desc' },
          { column: 'id_mutation', order: 'asc' },
        ])
        .limit(depth)) as { id_mutation: string; date_mutation: string }[]),
    );
  }
  if (parts.length > 1) rows.sort(byDateThenId);
  // A sale found by two parts (its INSEE code and its postal code alike) once.
  const ids = [...new Set(rows.map((r) => r.id_mutation))].slice(page.offset, depth);
  return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
}

/** One group of the statistics: the sales of a commune and kind. */
export interface SaleGroupStats {
  code_commune: string | null;
  nom_commune: string | null;
  departement: string | null;
  type_local: string | null;
  nombre_ventes: number;
  prix_median: number | null;
  nombre_ventes_prix_m2: number;
  prix_m2_median: number | null;
  date_min: string;
  date_max: string;
}

const groupKey = (r: { code_commune: string | null; type_local: string | null }) => `${r.code_commune ?? ''}\u0000${r.type_local ?? ''}`;

/**
 * The middle values of `column` per commune and kind among the filtered sales (one for an
 * odd count, two for an even one), by a window over the sorted values: the database sorts,
 * only two rows per group come back.
 */
async function medians(db: Database, f: SaleFilters, column: 'valeur_fonciere' | 'prix_m2'): Promise<Map<string, number>> {
  const ranked = filtered(db, f)
    .where(column, '>', 0)
    .select(
      'code_commune',
      'type_local',
      db.raw(`?? as v`, [column]),
      db.raw(`row_number() over (partition by code_commune, type_local order by ??) as rn`, [column]),
      db.raw('count(*) over (partition by code_commune, type_local) as n'),
    );
  const rows = (await db.select('code_commune', 'type_local', 'v').from(ranked.as('r')).whereRaw('2 * rn between n and n + 2')) as { code_commune: string | null; type_local: string | null; v: number | string }[];
  const middles = new Map<string, number[]>();
  for (const r of rows) {
    const key = groupKey(r);
    middles.set(key, [...(middles.get(key) ?? []), Number(r.v)]);
  }
  return new Map([...middles].map(([key, values]) => [key, Math.round(values.reduce((a, b) => a + b, 0) / values.length)]));
}

/** The sales matching the filters per commune and kind: count, median price and price per m², first and last dates. */
export async function saleStats(db: Database, f: SaleFilters): Promise<SaleGroupStats[]> {
  const groups = (await filtered(db, f)
    .select('code_commune', 'type_local')
    .max('nom_commune as nom_commune')
    .max('departement as departement')
    .count('* as n')
    .count('prix_m2 as n_m2')
    .min('date_mutation as date_min')
    .max('date_mutation as date_max')
    .groupBy('code_commune', 'type_local')) as Record<string, unknown>[];
  const prices = await medians(db, f, 'valeur_fonciere');
  const perM2 = await medians(db, f, 'prix_m2');
  return groups.map((g) => {
    const key = groupKey(g as { code_commune: string | null; type_local: string | null });
    return {
      code_commune: (g.code_commune as string | null) ?? null,
      nom_commune: (g.nom_commune as string | null) ?? null,
      departement: (g.departement as string | null) ?? null,
      type_local: (g.type_local as string | null) ?? null,
      nombre_ventes: Number(g.n),
      prix_median: prices.get(key) ?? null,
      nombre_ventes_prix_m2: Number(g.n_m2),
      prix_m2_median: perM2.get(key) ?? null,
      date_min: String(g.date_min),
      date_max: String(g.date_max),
    };
  });
}
