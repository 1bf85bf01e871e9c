// The rows of the awards' tables as the DECP importer writes them; the store reads them
// joined to their buyer and winners (`AwardView`, in store.ts).

/** An awarded contract (DECP), table `awards`, with its winners (table `award_winners`). */
export interface AwardRow {
  award_key: string;
  id: string;
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
  montant: number | null;
  date_notification: string | null;
  duree_mois: number | null;
  forme_prix: string | null;
  winners: { siret: string; denomination: string | null }[];
  ingested_at: string;
  updated_at: string;
}
