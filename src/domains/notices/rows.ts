// The rows of the notices' table as the BOAMP importer writes them (lists as arrays, stored
// as JSON text); the store reads the columns a notice's record needs.

/** A published notice, table `notices`. */
export interface NoticeRow {
  marche_id: string;
  annonce_id: string;
  source: string;
  objet: string;
  acheteur_nom: string | null;
  buyer_id: string | null;
  date_parution: string | null;
  date_limite: string | null;
  departements: string[];
  types_marche: string[];
  nature: string | null;
  nature_libelle: string | null;
  procedure_libelle: string | null;
  famille: string | null;
  etat: string | null;
  cpv: string | null;
  cpv_codes: string[];
  ingested_at: string;
  updated_at: string;
}

/** What a notice's record reads (the store decodes the lists). */
export type NoticeFields = Omit<NoticeRow, 'buyer_id' | 'famille' | 'etat' | 'ingested_at' | 'updated_at'>;
