// The rows of the permits' table as the Sitadel importer writes them; the store reads them
// back as `PermitRow` too. Only what the published lists give: no name of a private
// applicant (the lists give the denomination and SIREN of a legal person only).

export type PermitType = 'PC' | 'DP' | 'PA' | 'PD';
export type PermitState = '2' | '4' | '5' | '6';

/** An authorisation of one of the Sitadel lists, table `permits`. */
export interface PermitRow {
  /** The kind followed by the registration number: `PC03155512A0079`. */
  id: string;
  numero: string;
  type: PermitType;
  etat: PermitState;
  date_autorisation: string | null;
  date_ouverture_chantier: string | null;
  date_achevement: string | null;
  annee_depot: number | null;
  commune: string;
  departement: string | null;
  localite: string | null;
  code_postal: string | null;
  adresse: string | null;
  nature_projet: string | null;
  /**
   * Columns a list may lack (the housing count is only in the housing list): a row read from
   * a file without the column does not carry the key, so that a permit listed in two lists
   * keeps what the other one gave.
   */
  logements?: number | null;
  surface_habitation_creee?: number | null;
  surface_locaux_creee?: number | null;
  surface_creee?: number | null;
  superficie_terrain: number | null;
  demandeur: string | null;
  siren_demandeur: string | null;
  siret_demandeur: string | null;
  categorie_juridique_demandeur: string | null;
  activite_demandeur: string | null;
  /** DPC_DERN, `YYYY-MM`: an older version of a permit never replaces a newer one. */
  source_updated: string | null;
  ingested_at: string;
  updated_at: string;
}

export const TYPE_LABELS: Readonly<Record<PermitType, string>> = {
  PC: 'Permis de construire',
  DP: 'Déclaration préalable',
  PA: "Permis d'aménager",
  PD: 'Permis de démolir',
};

/** The states of the published lists (Sitadel's documentation of `ETAT_*`). */
export const STATE_LABELS: Readonly<Record<PermitState, 'autorisé' | 'annulé' | 'commencé' | 'achevé'>> = {
  '2': 'autorisé',
  '4': 'annulé',
  '5': 'commencé',
  '6': 'achevé',
};
