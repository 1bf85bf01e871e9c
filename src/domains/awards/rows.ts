// The rows of the awards' tables as the importers write them (DECP, and the results of BOAMP
// award notices); the store reads them joined to their buyer and winners (`AwardView`, in store.ts).

/** A holder whose identifier is not a valid SIRET: kept as published. */
export interface OtherHolder {
  identifiant: string | null;
  type_identifiant: string | null;
  denomination: string | null;
}

/** An amendment of the contract (DECP `modifications`), as applied. */
export interface AwardAmendment {
  id: string | null;
  date: string | null;
  objet: string | null;
  montant: number | null;
  duree_mois: number | null;
  /** The holders it names (they replace the former ones), or null when it names none. */
  titulaires: { identifiant: string | null; denomination: string | null }[] | null;
}

/** An awarded contract, table `awards`, with its winners (table `award_winners`). */
export interface AwardRow {
  award_key: string;
  id: string;
  /** `decp` or `boamp` (an award notice's results). */
  source: string;
  acheteur_siret: string | null;
  acheteur_nom: string | null;
  buyer_id: string | null;
  objet: string | null;
  cpv: string | null;
  procedure: string | null;
  nature: string | null;
  lieu_code: string | null;
  lieu_type: string | null;
  departement: string | null;
  /** The amount in force (after the amendments), and the one first notified. */
  montant: number | null;
  montant_initial: number | null;
  date_notification: string | null;
  duree_mois: number | null;
  duree_mois_initiale: number | null;
  forme_prix: string | null;
  winners: { siret: string; denomination: string | null }[];
  titulaires_autres: OtherHolder[];
  modifications: AwardAmendment[];
  ingested_at: string;
  updated_at: string;
}
