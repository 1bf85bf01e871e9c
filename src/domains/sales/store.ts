// Reads of property sales (DVF): searches by filters in date order, sales by id, and the
// rows the statistics are counted from.
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import type { SaleParcel, SalePremises, SaleRow } from './rows.js';

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
  const rows = (await db('sales').whereIn('id_mutation', ids).select(VIEW_COLUMNS)) as (SaleRow & Record<string, unknown>)[];
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
      locaux: JSON.parse(r.locaux) as SalePremises[],
      parcelles: JSON.parse(r.parcelles) as SaleParcel[],
    });
  }
  return ids.map((id) => byId.get(id)).filter((s): s is SaleView => s !== undefined);
}

export interface SaleFilters {
  idMutation?: string;
  departements?: string[];
  /** An INSEE code or a postal code: matched against both. */
  commune?: string;
  typeLocal?: string;
  nature?: string;
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
  if (f.typeLocal) q.where('type_local', f.typeLocal);
  if (f.nature) q.where('nature_mutation', f.nature);
  if (f.from) q.where('date_mutation', '>=', f.from);
  if (f.to) q.where('date_mutation', '<=', f.to);
  if (f.prixMin !== undefined) q.where('valeur_fonciere', '>=', f.prixMin);
  if (f.prixMax !== undefined) q.where('valeur_fonciere', '<=', f.prixMax);
  if (f.surfaceMin !== undefined) q.where('surface_bati', '>=', f.surfaceMin);
  if (f.surfaceMax !== undefined) q.where('surface_bati', '<=', f.surfaceMax);
  return q;
}

/** Sales matching the filters, latest first (then by id), one page, and how many match (up to `countCap`). */
export async function searchSales(
  db: Database,
  f: SaleFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ ids: string[]; hasMore: boolean; total: number }> {
  const base = filtered(db, f);
  const count = await db.count<{ n: number | string }[]>('* as n').from(base.clone().select('id_mutation').limit(page.countCap).as('capped'));
  const rows = (await base
    .clone()
    .select('id_mutation')
    .orderBy([
      { column: 'date_mutation', order: 'desc' },
      { column: 'id_mutation', order: 'asc' },
    ])
    .offset(page.offset)
    .limit(page.limit + 1)) as { id_mutation: string }[];
  const ids = rows.map((r) => r.id_mutation);
  return { ids: ids.slice(0, page.limit), hasMore: ids.length > page.limit, total: Number(count[0]?.n ?? 0) };
}

/** What the statistics count of one sale. */
export interface SaleFacts {
  code_commune: string | null;
  nom_commune: string | null;
  departement: string | null;
  type_local: string | null;
  valeur_fonciere: number | null;
  prix_m2: number | null;
  date_mutation: string;
}

export async function saleFacts(db: Database, f: SaleFilters): Promise<SaleFacts[]> {
  const rows = (await filtered(db, f).select('code_commune', 'nom_commune', 'departement', 'type_local', 'valeur_fonciere', 'prix_m2', 'date_mutation')) as SaleFacts[];
  return rows.map((r) => ({ ...r, valeur_fonciere: numberOrNull(r.valeur_fonciere), prix_m2: numberOrNull(r.prix_m2) }));
}
