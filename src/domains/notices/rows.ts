// The rows of the notices' table as the BOAMP importer writes them (lists as arrays, stored
// as JSON text); the store reads the columns a notice's record needs.
import type { NoticeLot } from './donnees.js';

/** A published notice, table `notices`. */
export interface NoticeRow {
  marche_id: string;
  annonce_id: string;
  source: string;
  objet: string;
  acheteur_nom: string | null;
  acheteur_siret: string | null;
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
  valeur_estimee: number | null;
  lots: NoticeLot[];
  /** The earlier notices of the same procedure this one corrects or cancels (`annonce_lie`). */
  annonces_liees: string[];
  ingested_at: string;
  updated_at: string;
}

/** What a notice's record reads (the store decodes the lists). */
export type NoticeFields = Omit<NoticeRow, 'famille' | 'ingested_at' | 'updated_at'> & {
  /** When a later notice last changed this one (a moved deadline, a cancellation), which one, and what it said. */
  modifie_le: string | null;
  modifie_par: string | null;
  modification: string | null;
};
