// SIRENE stock files (StockUniteLegale_utf8.csv, StockEtablissement_utf8.csv): the real
// INSEE headers and value formats, one pass over the companies writing both files.
import { companyAt, type Company, type DemoContext, type Establishment } from './companies.js';
import { lambert93, registerText, sireneCommuneLabel } from './communes.js';
import { csvLine, FileWriter, isoDateTime, isoDay } from './util.js';

export const UNITE_LEGALE_HEADER = [
  'siren', 'statutDiffusionUniteLegale', 'unitePurgeeUniteLegale', 'dateCreationUniteLegale', 'sigleUniteLegale',
  'sexeUniteLegale', 'prenom1UniteLegale', 'prenom2UniteLegale', 'prenom3UniteLegale', 'prenom4UniteLegale',
  'prenomUsuelUniteLegale', 'pseudonymeUniteLegale', 'identifiantAssociationUniteLegale', 'trancheEffectifsUniteLegale',
  'anneeEffectifsUniteLegale', 'dateDernierTraitementUniteLegale', 'nombrePeriodesUniteLegale', 'categorieEntreprise',
  'anneeCategorieEntreprise', 'dateDebut', 'etatAdministratifUniteLegale', 'nomUniteLegale', 'nomUsageUniteLegale',
  'denominationUniteLegale', 'denominationUsuelle1UniteLegale', 'denominationUsuelle2UniteLegale',
  'denominationUsuelle3UniteLegale', 'categorieJuridiqueUniteLegale', 'activitePrincipaleUniteLegale',
  'nomenclatureActivitePrincipaleUniteLegale', 'nicSiegeUniteLegale', 'economieSocialeSolidaireUniteLegale',
  'societeMissionUniteLegale', 'caractereEmployeurUniteLegale',
] as const;

export const ETABLISSEMENT_HEADER = [
  'siren', 'nic', 'siret', 'statutDiffusionEtablissement', 'dateCreationEtablissement', 'trancheEffectifsEtablissement',
  'anneeEffectifsEtablissement', 'activitePrincipaleRegistreMetiersEtablissement', 'dateDernierTraitementEtablissement',
  'etablissementSiege', 'nombrePeriodesEtablissement', 'complementAdresseEtablissement', 'numeroVoieEtablissement',
  'indiceRepetitionEtablissement', 'dernierNumeroVoieEtablissement', 'indiceRepetitionDernierNumeroVoieEtablissement',
  'typeVoieEtablissement', 'libelleVoieEtablissement', 'codePostalEtablissement', 'libelleCommuneEtablissement',
  'libelleCommuneEtrangerEtablissement', 'distributionSpecialeEtablissement', 'codeCommuneEtablissement',
  'codeCedexEtablissement', 'libelleCedexEtablissement', 'codePaysEtrangerEtablissement', 'libellePaysEtrangerEtablissement',
  'identifiantAdresseEtablissement', 'coordonneeLambertAbscisseEtablissement', 'coordonneeLambertOrdonneeEtablissement',
  'complementAdresse2Etablissement', 'numeroVoie2Etablissement', 'indiceRepetition2Etablissement', 'typeVoie2Etablissement',
  'libelleVoie2Etablissement', 'codePostal2Etablissement', 'libelleCommune2Etablissement',
  'libelleCommuneEtranger2Etablissement', 'distributionSpeciale2Etablissement', 'codeCommune2Etablissement',
  'codeCedex2Etablissement', 'libelleCedex2Etablissement', 'codePaysEtranger2Etablissement',
  'libellePaysEtranger2Etablissement', 'dateDebut', 'etatAdministratifEtablissement', 'enseigne1Etablissement',
  'enseigne2Etablissement', 'enseigne3Etablissement', 'denominationUsuelleEtablissement', 'activitePrincipaleEtablissement',
  'nomenclatureActivitePrincipaleEtablissement', 'caractereEmployeurEtablissement',
] as const;

const employeur = (tranche: string): string => (tranche === 'NN' || tranche === '00' ? 'N' : 'O');

export function uniteLegaleRow(c: Company): string {
  return csvLine([
    c.siren,
    'O',
    '',
    isoDay(c.creation),
    c.sigle ? registerText(c.sigle) : '',
    c.sexe,
    c.individual ? registerText(c.prenoms[0] ?? '') : '',
    c.individual ? registerText(c.prenoms[1] ?? '') : '',
    '',
    '',
    c.individual ? registerText(c.prenoms[0] ?? '') : '',
    '',
    '',
    c.tranche,
    c.anneeEffectifs,
    isoDateTime(c.lastUpdate, c.lastUpdateSecond),
    String(c.periods),
    c.categorieEntreprise,
    c.anneeCategorie,
    isoDay(c.dateDebut),
    c.ceased ? 'C' : 'A',
    c.individual ? registerText(c.nom) : '',
    '',
    c.individual ? '' : registerText(c.denomination),
    '',
    '',
    '',
    c.categorie,
    c.naf,
    'NAFRev2',
    c.head.nic,
    c.ess,
    c.individual ? '' : 'N',
    c.ceased ? 'N' : employeur(c.tranche),
  ]);
}

function cedexOf(e: Establishment): [string, string] {
  if (!e.address.distribution.startsWith('CS')) return ['', ''];
  const prefix = e.commune.codePostal.slice(0, e.commune.codePostal.startsWith('97') ? 3 : 2);
  const code = (prefix + '9' + e.commune.codePostal.slice(prefix.length + 1)).slice(0, 5);
  return [code, `${sireneCommuneLabel(e.commune)} CEDEX`];
}

export function etablissementRow(c: Company, e: Establishment, annee: string): string {
  const a = e.address;
  let x = '';
  let y = '';
  if (!e.commune.departement.startsWith('97')) {
    const [lx, ly] = lambert93(e.commune.lat + e.jitterLat, e.commune.lon + e.jitterLon);
    x = lx.toFixed(1);
    y = ly.toFixed(1);
  }
  const [cedex, cedexLabel] = cedexOf(e);
  return csvLine([
    c.siren,
    e.nic,
    e.siret,
    'O',
    isoDay(e.creation),
    e.tranche,
    e.tranche === 'NN' ? '' : annee,
    e.registreMetiers,
    isoDateTime(e.lastUpdate, e.lastUpdateSecond),
    e.siege ? 'true' : 'false',
    String(e.periods),
    registerText(a.complement),
    a.numero,
    a.indice,
    '',
    '',
    a.typeVoie,
    registerText(a.libelleVoie),
    e.commune.codePostal,
    sireneCommuneLabel(e.commune),
    '',
    registerText(a.distribution),
    e.commune.code,
    cedex,
    cedexLabel,
    '',
    '',
    e.addressId,
    x,
    y,
    '', '', '', '', '', '', '', '', '', '', '', '', '', '',
    isoDay(e.dateDebut),
    e.open ? 'A' : 'F',
    registerText(e.enseigne),
    '',
    '',
    registerText(e.denominationUsuelle),
    e.naf,
    'NAFRev2',
    employeur(e.tranche),
  ]);
}

export interface SireneResult {
  unites: { path: string; rows: number; bytes: number };
  etablissements: { path: string; rows: number; bytes: number };
}

/** Writes both SIRENE stock files for companies 0 … count-1. */
export async function writeSirene(ctx: DemoContext, count: number, unitesPath: string, etabPath: string): Promise<SireneResult> {
  const unites = await FileWriter.open(unitesPath);
  const etabs = await FileWriter.open(etabPath);
  try {
    unites.push(csvLine(UNITE_LEGALE_HEADER));
    etabs.push(csvLine(ETABLISSEMENT_HEADER));
    let etabRows = 0;
    for (let i = 0; i < count; i++) {
      const c = companyAt(ctx, i);
      unites.push(uniteLegaleRow(c));
      for (const e of c.establishments) {
        etabs.push(etablissementRow(c, e, c.anneeEffectifs || String(Number(isoDay(ctx.today).slice(0, 4)) - 2)));
        etabRows++;
      }
      if (unites.full) await unites.flush();
      if (etabs.full) await etabs.flush();
    }
    const ub = await unites.close();
    const eb = await etabs.close();
    return {
      unites: { path: unitesPath, rows: count, bytes: ub },
      etablissements: { path: etabPath, rows: etabRows, bytes: eb },
    };
  } catch (err) {
    await unites.abort();
    await etabs.abort();
    throw err;
  }
}
