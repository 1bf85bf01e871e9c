// DVF property sales (« Demandes de valeurs foncières »), CSV as published: the geo-dvf
// files (`,`-separated, 40 columns, `id_mutation … longitude,latitude`) and the DVF Etalab
// variant (`numero_disposition` not padded, quoted street names, `section_prefixe` added),
// both read by header names. A published line is a parcel, premises or piece of land of a
// mutation (a sale), the sale's value repeated on each: the lines of a mutation, consecutive
// in the published files, are grouped by the reader into one record, and one row per
// mutation is stored with its premises and parcels.
//
// Decisions (also in the contract's descriptions):
// - An identical premises or parcel part repeated within a mutation is kept once (DVF
//   repeats lines; two identical lines cannot be told apart).
// - A mutation whose lines come back later in the same file (not consecutive) is merged
//   with what was read before; a mutation read again from another file, or a re-import,
//   replaces the stored sale whole (a republished file carries its mutations whole).
// - One unreadable line (date, value, surface) sets aside its whole mutation, never a
//   partial sale.
// - The seller's and buyer's names are not in DVF, and nothing is read of them.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { csvRecords, type RawRecord } from '../../import/records.js';
import type { Importer, Mapped, WriteCounts } from '../../import/importer.js';
import { departementOfCommune, isoDate } from '../../import/fields.js';
import { rowsWhereIn, upsertRows } from '../../import/upsert.js';
import { kindOf } from '../../platform/db/database.js';
import { statement, withSqlite } from '../../platform/db/statements.js';
import { decodeParcels, decodePremises, encodeParcels, encodePremises, type SaleParcel, type SalePremises, type SaleRow } from './rows.js';

type Csv = Record<string, string>;
/** The lines of one mutation, in the file's order. */
export interface DvfMutation {
  lines: Csv[];
}

export const DVF_LAYOUTS =
  'DVF en CSV séparé par des virgules, lu par noms de colonnes : geo-dvf (40 colonnes, id_mutation … longitude,latitude) et la variante DVF Etalab (avec section_prefixe)';

export const DEPENDANCE = 'Dépendance';

const text = (v: string | undefined): string | null => {
  const t = (v ?? '').trim();
  return t ? t : null;
};

/** A number of the file, null when empty; undefined when unreadable (the caller says which). */
function num(v: string | undefined): number | null | undefined {
  const t = (v ?? '').trim();
  if (!t) return null;
  const n = Number(t.replace(',', '.'));
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The records of a DVF file: its CSV lines grouped by `id_mutation`, consecutive lines of
 * one id making one record, placed at its first line. A line that cannot be read is given
 * as it is (its mutation's other lines still make a record: the mapping then sets it aside
 * only if what remains is unreadable).
 */
export async function* dvfMutations(stream: Readable): AsyncGenerator<RawRecord<DvfMutation>> {
  let lines: Csv[] = [];
  let id = '';
  let position = 0;
  for await (const record of csvRecords(stream, ',')) {
    if ('error' in record) {
      yield record;
      continue;
    }
    const lineId = (record.value.id_mutation ?? '').trim();
    if (lines.length && lineId && lineId === id) {
      lines.push(record.value);
      continue;
    }
    if (lines.length) yield { position, value: { lines } };
    lines = [record.value];
    id = lineId;
    position = record.position;
  }
  if (lines.length) yield { position, value: { lines } };
}

function lotsOf(r: Csv): SalePremises['lots'] | string {
  const lots: SalePremises['lots'] = [];
  for (let i = 1; i <= 5; i++) {
    const numero = text(r[`lot${i}_numero`]);
    if (!numero) continue;
    const carrez = num(r[`lot${i}_surface_carrez`]);
    if (carrez === undefined) return `surface Carrez du lot ${i} illisible (${r[`lot${i}_surface_carrez`]})`;
    lots.push({ numero, surface_carrez: carrez });
  }
  return lots;
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** The columns a sale is searched and counted by, from its value, premises and parcels. */
export function deriveSale(
  valeur: number | null,
  locaux: readonly SalePremises[],
  parcelles: readonly SaleParcel[],
): Pick<SaleRow, 'type_local' | 'surface_bati' | 'nombre_pieces' | 'prix_m2' | 'surface_terrain' | 'nombre_locaux' | 'nombre_parcelles'> {
  const kinds = new Set(locaux.map((l) => l.type_local).filter((k) => k !== DEPENDANCE));
  const type = kinds.size === 1 ? ([...kinds][0] as string) : kinds.size === 0 && locaux.length ? DEPENDANCE : null;
  const ofKind = type && type !== DEPENDANCE ? locaux.filter((l) => l.type_local === type) : [];
  // The built surface only when every premises of the kind gives its own: a partial sum would overstate the price per m².
  const surfaces = ofKind.map((l) => l.surface_reelle_bati);
  const surface = ofKind.length && surfaces.every((s): s is number => s !== null && s > 0) ? sum(surfaces as number[]) : null;
  const pieces = ofKind.map((l) => l.nombre_pieces_principales);
  const land = parcelles.map((p) => p.surface_terrain).filter((s): s is number => s !== null);
  return {
    type_local: type,
    surface_bati: surface,
    nombre_pieces: ofKind.length && pieces.every((p): p is number => p !== null) && (type === 'Maison' || type === 'Appartement') ? sum(pieces as number[]) : null,
    prix_m2: surface !== null && valeur !== null && valeur > 0 ? Math.round(valeur / surface) : null,
    surface_terrain: land.length ? sum(land) : null,
    nombre_locaux: locaux.length,
    nombre_parcelles: new Set(parcelles.map((p) => p.id_parcelle)).size,
  };
}

const premisesKey = (l: SalePremises) =>
  `${l.type_local}\u0001${l.code_type_local}\u0001${l.surface_reelle_bati}\u0001${l.nombre_pieces_principales}\u0001${l.id_parcelle}\u0001${l.nombre_lots}\u0001${l.lots.map((x) => `${x.numero}\u0002${x.surface_carrez}`).join('\u0001')}`;
const parcelKey = (p: SaleParcel) => `${p.id_parcelle}\u0001${p.section_prefixe}\u0001${p.nature_culture}\u0001${p.nature_culture_speciale}\u0001${p.surface_terrain}`;

/** Items in order, an item equal to an earlier one (same key: every field) dropped. */
function distinct<T>(items: T[], keyOf: (item: T) => string): T[] {
  if (items.length < 2) return items;
  const seen = new Set<string>();
  const out: T[] = [];
  for (const item of items) {
    const key = keyOf(item);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
  }
  return out;
}

/** One sale from two reads of the same mutation: `a`'s fields first, premises and parcels united. */
export function mergeSales(a: SaleRow, b: SaleRow): SaleRow {
  const locaux = distinct([...decodePremises(a.locaux), ...decodePremises(b.locaux)], premisesKey);
  const parcelles = distinct([...decodeParcels(a.parcelles), ...decodeParcels(b.parcelles)], parcelKey);
  const valeur = a.valeur_fonciere ?? b.valeur_fonciere;
  return {
    ...a,
    valeur_fonciere: valeur,
    code_commune: a.code_commune ?? b.code_commune,
    nom_commune: a.nom_commune ?? b.nom_commune,
    code_postal: a.code_postal ?? b.code_postal,
    departement: a.departement ?? b.departement,
    adresse: a.adresse ?? b.adresse,
    longitude: a.longitude ?? b.longitude,
    latitude: a.latitude ?? b.latitude,
    ...deriveSale(valeur, locaux, parcelles),
    locaux: encodePremises(locaux),
    parcelles: encodeParcels(parcelles),
    updated_at: b.updated_at,
  };
}

function addressOf(r: Csv): string | null {
  const voie = text(r.adresse_nom_voie);
  if (!voie) return null;
  const numero = [text(r.adresse_numero), text(r.adresse_suffixe)].filter(Boolean).join('');
  return numero ? `${numero} ${voie}` : voie;
}

export function mapMutation(m: DvfMutation, now: string): Mapped<SaleRow> {
  const first = m.lines[0] as Csv;
  if (first.id_mutation === undefined || first.date_mutation === undefined || first.valeur_fonciere === undefined)
    return { skip: 'colonnes id_mutation, date_mutation ou valeur_fonciere absentes : fichier qui n’est pas au format DVF' };
  const id = text(first.id_mutation);
  if (!id) return { skip: 'identifiant de mutation (id_mutation) absent' };
  if (id.length > 40) return { skip: `identifiant de mutation trop long (${id.slice(0, 40)}…)` };
  const date = isoDate(first.date_mutation);
  if (!date) return { skip: `date de mutation absente ou illisible (${first.date_mutation})` };
  const nature = text(first.nature_mutation);
  if (!nature) return { skip: 'nature de la mutation absente' };
  let valeur: number | null = null;
  const locaux: SalePremises[] = [];
  const parcelles: SaleParcel[] = [];
  // The address of the first main premises (dependencies aside), else of the first premises.
  let adresse: string | null = null;
  let adresseDependance: string | null = null;
  let position: { longitude: number; latitude: number } | null = null;
  for (const r of m.lines) {
    const v = num(r.valeur_fonciere);
    if (v === undefined) return { skip: `valeur foncière illisible (${r.valeur_fonciere})` };
    if (valeur === null && v !== null) valeur = v;
    const parcelle = text(r.id_parcelle);
    const type = text(r.type_local);
    if (type) {
      const surface = num(r.surface_reelle_bati);
      if (surface === undefined) return { skip: `surface réelle bâtie illisible (${r.surface_reelle_bati})` };
      const pieces = num(r.nombre_pieces_principales);
      if (pieces === undefined) return { skip: `nombre de pièces principales illisible (${r.nombre_pieces_principales})` };
      const lots = lotsOf(r);
      if (typeof lots === 'string') return { skip: lots };
      const nombreLots = num(r.nombre_lots);
      locaux.push({
        type_local: type,
        code_type_local: text(r.code_type_local),
        surface_reelle_bati: surface,
        nombre_pieces_principales: pieces,
        id_parcelle: parcelle,
        lots,
        nombre_lots: nombreLots ?? null,
      });
      if (type === DEPENDANCE) adresseDependance ??= addressOf(r);
      else adresse ??= addressOf(r);
    }
    if (parcelle) {
      const terrain = num(r.surface_terrain);
      if (terrain === undefined) return { skip: `surface du terrain illisible (${r.surface_terrain})` };
      parcelles.push({
        id_parcelle: parcelle,
        section_prefixe: text(r.section_prefixe),
        nature_culture: text(r.nature_culture),
        nature_culture_speciale: text(r.nature_culture_speciale),
        surface_terrain: terrain,
      });
    }
    if (!position) {
      const longitude = num(r.longitude);
      const latitude = num(r.latitude);
      if (typeof longitude === 'number' && typeof latitude === 'number') position = { longitude, latitude };
    }
  }
  const commune = text(first.code_commune);
  const distinctLocaux = distinct(locaux, premisesKey);
  const distinctParcelles = distinct(parcelles, parcelKey);
  return {
    row: {
      id_mutation: id,
      date_mutation: date,
      nature_mutation: nature,
      valeur_fonciere: valeur,
      departement: text(first.code_departement)?.toUpperCase() ?? departementOfCommune(commune),
      code_commune: commune,
      nom_commune: text(first.nom_commune),
      code_postal: text(first.code_postal),
      adresse: adresse ?? adresseDependance ?? addressOf(first),
      ...deriveSale(valeur, distinctLocaux, distinctParcelles),
      longitude: position?.longitude ?? null,
      latitude: position?.latitude ?? null,
      locaux: encodePremises(distinctLocaux),
      parcelles: encodeParcels(distinctParcelles),
      ingested_at: now,
      updated_at: now,
    },
  };
}

const STORED_COLUMNS = ['id_mutation', 'date_mutation', 'nature_mutation', 'valeur_fonciere', 'departement', 'code_commune', 'nom_commune', 'code_postal', 'adresse', 'longitude', 'latitude', 'locaux', 'parcelles', 'ingested_at', 'updated_at'];

/**
 * The stored sales among `ids` written by the import of this stamp (the same file). On
 * SQLite a prepared lookup by key per id (most find nothing), on PostgreSQL one array of keys.
 */
async function writtenByThisImport(trx: Knex.Transaction, ids: string[], stamp: string): Promise<SaleRow[]> {
  if (kindOf(trx) === 'sqlite') {
    const sql = `select ${STORED_COLUMNS.join(', ')} from sales where id_mutation = ? and updated_at = ?`;
    return withSqlite(trx, (conn) => {
      const lookup = statement(conn, sql);
      const found: SaleRow[] = [];
      for (const id of ids) {
        const row = lookup.get(id, stamp) as SaleRow | undefined;
        if (row) found.push(row);
      }
      return found;
    });
  }
  return rowsWhereIn<SaleRow>(trx, 'sales', 'id_mutation', ids, STORED_COLUMNS, { updated_at: stamp });
}

export const dvf: Importer<DvfMutation, SaleRow> = {
  name: 'dvf',
  input: { unit: 'ligne', layouts: DVF_LAYOUTS },
  read: (stream: Readable) => dvfMutations(stream),
  map: mapMutation,
  // No sortKey: the published files come by date and id, and every index of the table is
  // fed nearly in order as read (date, department, commune); sorting windows of 200,000
  // sales by id cost more (memory, garbage collection) than it saved on the key's index.
  async write(trx: Knex.Transaction, rows): Promise<WriteCounts> {
    // Two reads of one mutation in the batch: one sale.
    const byId = new Map<string, SaleRow>();
    for (const r of rows) {
      const before = byId.get(r.id_mutation);
      byId.set(r.id_mutation, before ? mergeSales(before, r) : r);
    }
    // A mutation already written by this same import (its earlier lines, further up the file): merged too.
    const stamp = (rows[0] as SaleRow).updated_at;
    const ids = [...byId.keys()];
    for (const s of await writtenByThisImport(trx, ids, stamp)) {
      const read = byId.get(s.id_mutation) as SaleRow;
      byId.set(s.id_mutation, mergeSales({ ...read, ...s, valeur_fonciere: s.valeur_fonciere === null ? null : Number(s.valeur_fonciere) }, read));
    }
    const { applied: _applied, ...counts } = await upsertRows(trx, 'sales', 'id_mutation', [...byId.values()], { keepOnUpdate: ['ingested_at'] });
    return { ...counts, updated: counts.updated + rows.length - byId.size };
  },
};
