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
  /** JSON lists of `SalePremises` and `SaleParcel`. */
  locaux: string;
  parcelles: string;
  ingested_at: string;
  updated_at: string;
}
