// The rows of the companies' tables as the importers write them (SIRENE units and
// establishments, the RGE list); the store reads the columns it needs (`…Fields` types).

/** A legal unit (SIRENE StockUniteLegale), table `companies`. */
export interface CompanyRow {
  siren: string;
  denomination: string | null;
  sigle: string | null;
  nom_personne: string | null;
  denomination_usuelle: string | null;
  categorie_juridique: string | null;
  activite_principale: string | null;
  /** The nomenclature of `activite_principale` (NAFRev2, or a legacy one: NAFRev1, NAF1993, NAP). */
  nomenclature_activite: string | null;
  /** The NAF 2025 code, in the stock files that have it. */
  activite_principale_naf25: string | null;
  tranche_effectifs: string | null;
  categorie_entreprise: string | null;
  date_creation: string | null;
  etat: string;
  nic_siege: string | null;
  /**
   * False for a provisional row made from the establishments of a SIREN whose legal unit is
   * not imported (yet), or from its register entry (RNE) when neither is: only its activity,
   * state and head office's NIC are filled, for the searches; the record reads the
   * establishments (else the register) instead. The unit's import replaces it.
   */
  unit_known: boolean;
  source_updated: string | null;
  ingested_at: string;
  updated_at: string;
}

/** An establishment (SIRENE StockEtablissement), table `establishments`. */
export interface EstablishmentRow {
  siret: string;
  siren: string;
  nic: string;
  siege: boolean;
  etat: string;
  date_creation: string | null;
  activite_principale: string | null;
  nomenclature_activite: string | null;
  activite_principale_naf25: string | null;
  enseigne: string | null;
  adresse: string | null;
  code_postal: string | null;
  commune: string | null;
  code_commune: string | null;
  departement: string | null;
  source_updated: string | null;
  ingested_at: string;
  updated_at: string;
}

/** An RGE certification of an establishment (ADEME list), table `rge_certifications`. */
export interface RgeRow {
  siret: string;
  domaine: string;
  organisme: string;
  meta_domaine: string | null;
  code_qualification: string | null;
  nom_qualification: string | null;
  date_debut: string | null;
  date_fin: string | null;
  ingested_at: string;
  updated_at: string;
}

/** What a company's record reads of its unit. */
export type CompanyFields = Omit<CompanyRow, 'unit_known' | 'source_updated' | 'ingested_at' | 'updated_at'>;

/** What a company's record reads of an establishment. */
export type EstablishmentFields = Omit<EstablishmentRow, 'nic' | 'code_commune' | 'source_updated' | 'ingested_at' | 'updated_at'>;

/** What a company's record reads of a certification. */
export type RgeFields = Pick<RgeRow, 'siret' | 'domaine' | 'date_debut' | 'date_fin'>;
