// The rows of the sales' table as the DVF importer writes them: one row per mutation (a
// sale), its premises and parcels kept as JSON lists, the columns the searches and the
// statistics filter on derived from them (see `deriveSale` in import-dvf.ts).

/** One premises of a sale (a DVF line with a `type_local`). */
export interface SalePremises {
  type_local: string;
  code_type_local: string | null;
  surface_reelle_bati: number | null;
  nombre_pieces_principales: number | null;
  id_parcelle: string | null;
  /** Lots of the co-ownership (up to five in DVF), with their Carrez surface when given. */
  lots: { numero: string; surface_carrez: number | null }[];
  nombre_lots: number | null;
}

/** One parcel part of a sale: a parcel and the kind of land on it (a parcel may have several). */
export interface SaleParcel {
  id_parcelle: string;
  /** Only in the DVF Etalab variant. */
  section_prefixe: string | null;
  nature_culture: string | null;
  nature_culture_speciale: string | null;
  surface_terrain: number | null;
}

/** A sale (DVF mutation), table `sales`. */
export interface SaleRow {
  id_mutation: string;
  date_mutation: string;
  nature_mutation: string;
  valeur_fonciere: number | null;
  departement: string | null;
  code_commune: string | null;
  nom_commune: string | null;
  code_postal: string | null;
  adresse: string | null;
  /** The sale's kind: that of its premises, dependencies aside; null when it has none or several. */
  type_local: string | null;
  /** Built surface of the premises of the sale's kind (m²). */
  surface_bati: number | null;
  nombre_pieces: number | null;
  /** Euros per m² of `surface_bati`, rounded; null when the kind or the surface is unknown. */
  prix_m2: number | null;
  surface_terrain: number | null;
  nombre_locaux: number;
  nombre_parcelles: number;
  longitude: number | null;
  latitude: number | null;
  /** The lists of `SalePremises` and `SaleParcel`, stored compact (`encodePremises`, `encodeParcels`). */
  locaux: string;
  parcelles: string;
  ingested_at: string;
  updated_at: string;
}

/**
 * The stored form of the premises and parcels lists: arrays of values in a fixed order
 * rather than objects repeating every key (the lists are most of a sale's row: about 40 %
 * less to write for a large import). Read back by `decodePremises` and `decodeParcels`.
 */
type StoredPremises = [string, string | null, number | null, number | null, string | null, number | null, [string, number | null][]];
type StoredParcel = [string, string | null, string | null, string | null, number | null];

export function encodePremises(list: readonly SalePremises[]): string {
  return JSON.stringify(
    list.map((l): StoredPremises => [l.type_local, l.code_type_local, l.surface_reelle_bati, l.nombre_pieces_principales, l.id_parcelle, l.nombre_lots, l.lots.map((x) => [x.numero, x.surface_carrez])]),
  );
}

export function decodePremises(text: string): SalePremises[] {
  return (JSON.parse(text) as StoredPremises[]).map(([type_local, code_type_local, surface_reelle_bati, nombre_pieces_principales, id_parcelle, nombre_lots, lots]) => ({
    type_local,
    code_type_local,
    surface_reelle_bati,
    nombre_pieces_principales,
    id_parcelle,
    lots: lots.map(([numero, surface_carrez]) => ({ numero, surface_carrez })),
    nombre_lots,
  }));
}

export function encodeParcels(list: readonly SaleParcel[]): string {
  return JSON.stringify(list.map((p): StoredParcel => [p.id_parcelle, p.section_prefixe, p.nature_culture, p.nature_culture_speciale, p.surface_terrain]));
}

export function decodeParcels(text: string): SaleParcel[] {
  return (JSON.parse(text) as StoredParcel[]).map(([id_parcelle, section_prefixe, nature_culture, nature_culture_speciale, surface_terrain]) => ({
    id_parcelle,
    section_prefixe,
    nature_culture,
    nature_culture_speciale,
    surface_terrain,
  }));
}
