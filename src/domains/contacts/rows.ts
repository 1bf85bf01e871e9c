// The rows of the directory contacts' table as the importer writes them and the store reads
// them. Name, role and organisation only: a contact detail has no column.

/** A contact of the directory, table `contacts`. */
export interface ContactRow {
  id: string;
  nom: string;
  role: string;
  organisation: string;
  organisation_siren: string | null;
  organisation_siret: string | null;
  commune: string | null;
  commune_nom: string | null;
  departement: string | null;
  /** ` ${folded words} `: the organisation's and the role's words, for the word filters (`like '% mot%'`). */
  organisation_mots: string;
  role_mots: string;
  ingested_at: string;
  updated_at: string;
}
