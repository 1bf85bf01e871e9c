// The rows of the social-network posts' table as the importer writes them and the store reads them.

/** A post of a social network, table `publications`. */
export interface PublicationRow {
  id: string;
  reseau: string;
  auteur: string;
  /** As published: a day, or a date and time with its offset. */
  date_publication: string;
  /** The day written in `date_publication` (AAAA-MM-JJ), for the date filters and the order. */
  jour: string;
  texte: string;
  commune: string | null;
  commune_nom: string | null;
  departement: string | null;
  ingested_at: string;
  updated_at: string;
}
