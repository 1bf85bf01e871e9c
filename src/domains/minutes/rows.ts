// The rows of the council minutes' table as the importer writes them and the store reads them.

/** A deliberation of a municipal council, table `deliberations`. */
export interface DeliberationRow {
  id: string;
  commune: string;
  commune_nom: string;
  departement: string | null;
  date_seance: string;
  numero: string | null;
  titre: string;
  texte: string;
  source: string | null;
  ingested_at: string;
  updated_at: string;
}
