// The rows of the announcements' tables as the BODACC importer writes them; the store reads
// them back (`AnnouncementView`, in store.ts).

/** A BODACC announcement, table `announcements`; its SIRENs also go to `announcement_sirens`. */
export interface AnnouncementRow {
  id: string;
  bulletin: string | null;
  numero_parution: string | null;
  numero_annonce: number | null;
  date_parution: string;
  famille: string | null;
  famille_libelle: string | null;
  type_avis: string | null;
  type_avis_libelle: string | null;
  departement: string | null;
  departement_nom: string | null;
  ville: string | null;
  code_postal: string | null;
  tribunal: string | null;
  /** `pm` (personne morale), `pp` (personne physique) or null when the announcement does not say. */
  type_personne: string | null;
  /** A legal person's name; a natural person's trade name only (never the civil name). */
  denomination: string | null;
  forme_juridique: string | null;
  activite: string | null;
  /** The SIRENs of the registry, as JSON text (`["833981123"]`). */
  sirens: string;
  jugement_famille: string | null;
  jugement_nature: string | null;
  jugement_date: string | null;
  detail: string | null;
  /** The detail fields published unreadable, comma-separated (empty when none). */
  details_illisibles: string;
  ingested_at: string;
  updated_at: string;
}
