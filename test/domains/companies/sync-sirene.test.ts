// A record of the API Sirene becomes exactly the stock file's row the SIRENE importers map: the fields of its current period (never an older one), its address, the processing instant in the stock's form, nulls as empty cells, and a real stock row sent through the API's layout maps to the same row as imported from the file.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { establishmentToStockRow, STOCK_UNITE_LEGALE_COLUMNS, unitToStockRow } from '../../../src/domains/companies/sync-sirene.js';
import { sireneEtablissements, sireneUnites } from '../../../src/domains/companies/import-sirene.js';
import { apiEstablishment, apiUnit, REAL_ESTABLISHMENT_ROWS, REAL_UNIT_ROWS } from '../../helpers/sirene-replay.js';

const NOW = '2026-11-26T08:00:00.000Z';

/** A unit as the API's documentation shows one (`GET /siren?q=…`): two periods, the current one second here. */
const API_UNIT = {
  siren: '552032534',
  statutDiffusionUniteLegale: 'O',
  unitePurgeeUniteLegale: null,
  dateCreationUniteLegale: '1955-01-01',
  sigleUniteLegale: null,
  sexeUniteLegale: null,
  prenom1UniteLegale: null,
  prenom2UniteLegale: null,
  prenom3UniteLegale: null,
  prenom4UniteLegale: null,
  prenomUsuelUniteLegale: null,
  pseudonymeUniteLegale: null,
  identifiantAssociationUniteLegale: null,
  trancheEffectifsUniteLegale: '42',
  anneeEffectifsUniteLegale: '2022',
  dateDernierTraitementUniteLegale: '2026-11-25T04:12:09.000',
  nombrePeriodesUniteLegale: 2,
  categorieEntreprise: 'GE',
  anneeCategorieEntreprise: '2022',
  periodesUniteLegale: [
    { dateFin: '2019-12-31', dateDebut: '1955-01-01', etatAdministratifUniteLegale: 'A', changementEtatAdministratifUniteLegale: false, nomUniteLegale: null, denominationUniteLegale: 'GERVAIS DANONE', categorieJuridiqueUniteLegale: '5599', activitePrincipaleUniteLegale: '10.51A', nomenclatureActivitePrincipaleUniteLegale: 'NAFRev2', nicSiegeUniteLegale: '00011' },
    {
      dateFin: null,
      dateDebut: '2020-01-01',
      etatAdministratifUniteLegale: 'A',
      changementEtatAdministratifUniteLegale: false,
      nomUniteLegale: null,
      changementNomUniteLegale: false,
      nomUsageUniteLegale: null,
      changementNomUsageUniteLegale: false,
      denominationUniteLegale: 'DANONE',
      changementDenominationUniteLegale: true,
      denominationUsuelle1UniteLegale: null,
      denominationUsuelle2UniteLegale: null,
      denominationUsuelle3UniteLegale: null,
      changementDenominationUsuelleUniteLegale: false,
      categorieJuridiqueUniteLegale: '5599',
      changementCategorieJuridiqueUniteLegale: false,
      activitePrincipaleUniteLegale: '70.10Z',
      nomenclatureActivitePrincipaleUniteLegale: 'NAFRev2',
      changementActivitePrincipaleUniteLegale: true,
      nicSiegeUniteLegale: '00094',
      changementNicSiegeUniteLegale: true,
      economieSocialeSolidaireUniteLegale: 'N',
      changementEconomieSocialeSolidaireUniteLegale: false,
      societeMissionUniteLegale: 'N',
      changementSocieteMissionUniteLegale: false,
      caractereEmployeurUniteLegale: 'O',
      changementCaractereEmployeurUniteLegale: false,
    },
  ],
};

/** An establishment as the API shows one (`GET /siret?q=…`). */
const API_ESTABLISHMENT = {
  siren: '552032534',
  nic: '00094',
  siret: '55203253400094',
  statutDiffusionEtablissement: 'O',
  dateCreationEtablissement: '2020-01-01',
  trancheEffectifsEtablissement: '32',
  anneeEffectifsEtablissement: '2022',
  activitePrincipaleRegistreMetiersEtablissement: null,
  dateDernierTraitementEtablissement: '2026-11-25T04:12:09.000',
  etablissementSiege: true,
  nombrePeriodesEtablissement: 1,
  uniteLegale: { etatAdministratifUniteLegale: 'A', denominationUniteLegale: 'DANONE' },
  adresseEtablissement: {
    complementAdresseEtablissement: null,
    numeroVoieEtablissement: '17',
    indiceRepetitionEtablissement: null,
    typeVoieEtablissement: 'BD',
    libelleVoieEtablissement: 'HAUSSMANN',
    codePostalEtablissement: '75009',
    libelleCommuneEtablissement: 'PARIS',
    codeCommuneEtablissement: '75109',
    coordonneeLambertAbscisseEtablissement: '651177.5',
  },
  adresse2Etablissement: { numeroVoie2Etablissement: '1', libelleVoie2Etablissement: 'AUTRE ADRESSE' },
  periodesEtablissement: [
    { dateFin: null, dateDebut: '2020-01-01', etatAdministratifEtablissement: 'A', enseigne1Etablissement: null, denominationUsuelleEtablissement: null, activitePrincipaleEtablissement: '70.10Z', nomenclatureActivitePrincipaleEtablissement: 'NAFRev2', caractereEmployeurEtablissement: 'O' },
  ],
};

describe('SIRENE API records as stock rows', () => {
  it('a unit: its own fields and those of its current period, the processing instant without milliseconds, nulls empty', () => {
    const row = unitToStockRow(API_UNIT);
    expect(Object.keys(row)).to.deep.equal([...STOCK_UNITE_LEGALE_COLUMNS]);
    expect(row).to.include({ siren: '552032534', denominationUniteLegale: 'DANONE', dateDebut: '2020-01-01', nicSiegeUniteLegale: '00094', activitePrincipaleUniteLegale: '70.10Z', nombrePeriodesUniteLegale: '2' });
    expect(row).to.include({ dateDernierTraitementUniteLegale: '2026-11-25T04:12:09', sigleUniteLegale: '', unitePurgeeUniteLegale: '', activitePrincipaleNAF25UniteLegale: '' });
    const mapped = sireneUnites.map(row, NOW);
    expect('row' in mapped && mapped.row).to.include({ siren: '552032534', denomination: 'DANONE', etat: 'A', nic_siege: '00094', source_updated: '2026-11-25T04:12:09', categorie_entreprise: 'GE' });
  });

  it('the stock file header of the current layout is the one the converter writes', () => {
    const header = readFileSync(new URL('../../../../shared/real-samples/sirene/joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv', import.meta.url), 'utf8').split('\n')[0]?.trim().split(',');
    expect([...STOCK_UNITE_LEGALE_COLUMNS]).to.deep.equal(header);
  });

  it('an establishment: its fields, its address, its current period; the boolean head office as the stock writes it; the second address left out', () => {
    const row = establishmentToStockRow(API_ESTABLISHMENT);
    expect(row).to.include({ siret: '55203253400094', etablissementSiege: 'true', numeroVoieEtablissement: '17', typeVoieEtablissement: 'BD', libelleVoieEtablissement: 'HAUSSMANN', codeCommuneEtablissement: '75109', etatAdministratifEtablissement: 'A', dateDebut: '2020-01-01' });
    expect(row.dateDernierTraitementEtablissement).to.equal('2026-11-25T04:12:09');
    expect(Object.keys(row).filter((k) => /(Adresse|Voie|Postal|Commune|Cedex|Pays|Speciale|Repetition)2Etablissement$/.test(k))).to.deep.equal([]);
    expect(Object.values(row)).to.not.include('AUTRE ADRESSE');
    const mapped = sireneEtablissements.map(row, NOW);
    expect('row' in mapped && mapped.row).to.include({ siret: '55203253400094', siege: true, etat: 'A', adresse: '17 BD HAUSSMANN', code_postal: '75009', commune: 'PARIS', departement: '75' });
  });

  it('a unit of a natural person whose details are not diffusible ([ND]) keeps them out, as the stock import does', () => {
    const hidden = { ...API_UNIT, siren: '000325175', statutDiffusionUniteLegale: 'P', prenom1UniteLegale: '[ND]', prenomUsuelUniteLegale: '[ND]', periodesUniteLegale: [{ dateFin: null, dateDebut: '2018-02-07', etatAdministratifUniteLegale: 'A', nomUniteLegale: '[ND]', nomUsageUniteLegale: '[ND]', denominationUniteLegale: null, categorieJuridiqueUniteLegale: '1000' }] };
    const mapped = sireneUnites.map(unitToStockRow(hidden), NOW);
    expect('row' in mapped && mapped.row.nom_personne).to.equal(null);
  });

  it('an unreadable record is a row the importer skips with its reason, never an exception', () => {
    for (const bad of [null, 'texte', [], { siren: '12' }]) {
      expect(sireneUnites.map(unitToStockRow(bad), NOW)).to.have.property('skip');
      expect(sireneEtablissements.map(establishmentToStockRow(bad), NOW)).to.have.property('skip');
    }
  });

  it('every real stock row sent in the API layout maps to the row its stock file gives', () => {
    for (const stock of REAL_UNIT_ROWS) expect(sireneUnites.map(unitToStockRow(apiUnit(stock)), NOW)).to.deep.equal(sireneUnites.map(stock, NOW));
    for (const stock of REAL_ESTABLISHMENT_ROWS) expect(sireneEtablissements.map(establishmentToStockRow(apiEstablishment(stock)), NOW)).to.deep.equal(sireneEtablissements.map(stock, NOW));
    // The older period's name never wins.
    const renamed = REAL_UNIT_ROWS.find((r) => r.dateDebut && (r.dateCreationUniteLegale ?? '') < r.dateDebut && r.denominationUniteLegale);
    expect(unitToStockRow(apiUnit(renamed as Record<string, string>)).denominationUniteLegale).to.equal(renamed?.denominationUniteLegale);
  });
});
