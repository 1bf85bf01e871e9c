// Demo SIRENE stock files keep the real INSEE headers and formats: valid SIREN/SIRET, one head office per company, real communes.
import { expect } from 'chai';
import { DEPARTEMENTS, NAF_SECTION_F } from '../../../src/domains/reference/lists.js';
import { COMMUNES } from '../../../scripts/demo/communes.js';
import { luhnValid } from '../../../scripts/demo/luhn.js';
import { readTable } from './csv.js';
import { departementOfCommune, isRealDay, postalCodeMatches, readDemo, smallDemo, TODAY } from './fixture.js';

const UNITE_LEGALE = [
  'siren', 'statutDiffusionUniteLegale', 'unitePurgeeUniteLegale', 'dateCreationUniteLegale', 'sigleUniteLegale',
  'sexeUniteLegale', 'prenom1UniteLegale', 'prenom2UniteLegale', 'prenom3UniteLegale', 'prenom4UniteLegale',
  'prenomUsuelUniteLegale', 'pseudonymeUniteLegale', 'identifiantAssociationUniteLegale', 'trancheEffectifsUniteLegale',
  'anneeEffectifsUniteLegale', 'dateDernierTraitementUniteLegale', 'nombrePeriodesUniteLegale', 'categorieEntreprise',
  'anneeCategorieEntreprise', 'dateDebut', 'etatAdministratifUniteLegale', 'nomUniteLegale', 'nomUsageUniteLegale',
  'denominationUniteLegale', 'denominationUsuelle1UniteLegale', 'denominationUsuelle2UniteLegale',
  'denominationUsuelle3UniteLegale', 'categorieJuridiqueUniteLegale', 'activitePrincipaleUniteLegale',
  'nomenclatureActivitePrincipaleUniteLegale', 'nicSiegeUniteLegale', 'economieSocialeSolidaireUniteLegale',
  'societeMissionUniteLegale', 'caractereEmployeurUniteLegale',
];

const ETABLISSEMENT = [
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
];

const NAF = new Set(NAF_SECTION_F.map((n) => n.code));
const DEPTS = new Set(DEPARTEMENTS.map((d) => d.code));
const TRANCHES = new Set(['NN', '00', '01', '02', '03', '11', '12', '21', '22', '31', '32', '41', '42', '51', '52', '53']);
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/;

describe('demo data: SIRENE stock files', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  let unites: ReturnType<typeof readTable>;
  let etabs: ReturnType<typeof readTable>;
  let unitesText: string;
  let etabsText: string;

  before(async () => {
    unitesText = await readDemo('sirene/StockUniteLegale_utf8.csv');
    etabsText = await readDemo('sirene/StockEtablissement_utf8.csv');
    unites = readTable(unitesText);
    etabs = readTable(etabsText);
  });

  it('has exactly the real headers, in order, and about the announced counts', async () => {
    expect(unites.header).to.deep.equal(UNITE_LEGALE);
    expect(etabs.header).to.deep.equal(ETABLISSEMENT);
    const r = await smallDemo();
    expect(unites.rows).to.have.length(r.counts.entreprises).and.to.have.length(2000);
    expect(etabs.rows).to.have.length(r.counts.etablissements);
    expect(etabs.rows.length).to.be.within(2700, 3600);
  });

  it('quotes only the fields that need it, and such fields exist (commas, double quotes)', () => {
    const withComma = unites.rows.filter((r) => r.denominationUniteLegale!.includes(','));
    expect(withComma.length).to.be.greaterThan(0);
    expect(unitesText).to.include(`"${withComma[0]!.denominationUniteLegale}"`);
    expect(etabs.rows.some((r) => r.complementAdresseEtablissement!.includes(','))).to.equal(true);
    expect(etabs.rows.some((r) => r.enseigne1Etablissement!.includes('"'))).to.equal(true);
    expect(etabsText).to.include('""');
    // No quoting without need: every quoted field holds a comma, a quote or a line break.
    for (const m of (unitesText + etabsText).matchAll(/(?<=^|,)"((?:[^"]|"")*)"(?=,|\n)/gm)) {
      expect(m[1]).to.match(/[,"\n]/);
    }
  });

  it('gives every company a 9-digit SIREN with a valid Luhn key, unique', () => {
    const seen = new Set<string>();
    for (const u of unites.rows) {
      expect(u.siren).to.match(/^\d{9}$/);
      expect(luhnValid(u.siren!), u.siren).to.equal(true);
      expect(seen.has(u.siren!)).to.equal(false);
      seen.add(u.siren!);
    }
  });

  it('fills legal units like INSEE: NAF F codes, legal categories, individuals named, bands, dates around today', () => {
    const cats = new Set<string>();
    let ceased = 0;
    for (const u of unites.rows) {
      expect(NAF.has(u.activitePrincipaleUniteLegale!), u.activitePrincipaleUniteLegale).to.equal(true);
      expect(u.nomenclatureActivitePrincipaleUniteLegale).to.equal('NAFRev2');
      expect(u.statutDiffusionUniteLegale).to.equal('O');
      expect(TRANCHES.has(u.trancheEffectifsUniteLegale!)).to.equal(true);
      expect(u.anneeEffectifsUniteLegale === '').to.equal(u.trancheEffectifsUniteLegale === 'NN');
      expect(['A', 'C']).to.include(u.etatAdministratifUniteLegale);
      if (u.etatAdministratifUniteLegale === 'C') ceased++;
      cats.add(u.categorieJuridiqueUniteLegale!);
      if (u.categorieJuridiqueUniteLegale === '1000') {
        expect(u.nomUniteLegale).to.not.equal('');
        expect(u.prenom1UniteLegale).to.not.equal('');
        expect(['M', 'F']).to.include(u.sexeUniteLegale);
        expect(u.denominationUniteLegale).to.equal('');
      } else {
        expect(u.denominationUniteLegale).to.not.equal('');
        expect(u.nomUniteLegale).to.equal('');
        expect(u.sexeUniteLegale).to.equal('');
      }
      expect(isRealDay(u.dateCreationUniteLegale!)).to.equal(true);
      expect(isRealDay(u.dateDebut!)).to.equal(true);
      expect(u.dateCreationUniteLegale! <= TODAY).to.equal(true);
      expect(u.dateDebut! >= u.dateCreationUniteLegale! && u.dateDebut! <= TODAY).to.equal(true);
      expect(u.dateDernierTraitementUniteLegale).to.match(DATE_TIME);
      expect(isRealDay(u.dateDernierTraitementUniteLegale!.slice(0, 10))).to.equal(true);
      expect(u.nicSiegeUniteLegale).to.match(/^\d{5}$/);
      expect(Number(u.nombrePeriodesUniteLegale)).to.be.within(1, 10);
    }
    expect([...cats]).to.include.members(['1000', '5499', '5710', '5720']);
    expect(ceased).to.be.within(40, 400);
  });

  it('gives every establishment a valid SIRET (SIREN + NIC, Luhn) of a known company, one head office each', () => {
    const bySiren = new Map(unites.rows.map((u) => [u.siren!, u]));
    const heads = new Map<string, number>();
    const sirets = new Set<string>();
    for (const e of etabs.rows) {
      expect(e.nic).to.match(/^\d{5}$/);
      expect(e.siret).to.equal(e.siren! + e.nic!);
      expect(luhnValid(e.siret!), e.siret).to.equal(true);
      expect(sirets.has(e.siret!)).to.equal(false);
      sirets.add(e.siret!);
      const u = bySiren.get(e.siren!);
      expect(u, `SIREN ${e.siren} absent des unités légales`).to.not.equal(undefined);
      expect(['true', 'false']).to.include(e.etablissementSiege);
      if (e.etablissementSiege === 'true') {
        heads.set(e.siren!, (heads.get(e.siren!) ?? 0) + 1);
        expect(e.nic).to.equal(u!.nicSiegeUniteLegale);
        if (u!.etatAdministratifUniteLegale === 'A') expect(e.etatAdministratifEtablissement).to.equal('A');
      }
      if (u!.etatAdministratifUniteLegale === 'C') expect(e.etatAdministratifEtablissement).to.equal('F');
      expect(['A', 'F']).to.include(e.etatAdministratifEtablissement);
      expect(NAF.has(e.activitePrincipaleEtablissement!)).to.equal(true);
      expect(isRealDay(e.dateCreationEtablissement!)).to.equal(true);
      expect(isRealDay(e.dateDebut!)).to.equal(true);
      expect(e.dateDernierTraitementEtablissement).to.match(DATE_TIME);
    }
    for (const u of unites.rows) expect(heads.get(u.siren!), u.siren).to.equal(1);
    expect(etabs.rows.some((e) => e.etablissementSiege === 'false')).to.equal(true);
  });

  it('places establishments in real communes: commune code, postal code and department agree', () => {
    const table = new Map(COMMUNES.map((c) => [c.code, c]));
    const used = new Set<string>();
    for (const e of etabs.rows) {
      const code = e.codeCommuneEtablissement!;
      const dep = departementOfCommune(code);
      expect(DEPTS.has(dep), code).to.equal(true);
      expect(postalCodeMatches(e.codePostalEtablissement!, dep), `${code} ${e.codePostalEtablissement}`).to.equal(true);
      const c = table.get(code);
      expect(c, code).to.not.equal(undefined);
      expect(e.codePostalEtablissement).to.equal(c!.codePostal);
      expect(e.libelleCommuneEtablissement).to.match(/^[A-Z0-9' -]+$/);
      used.add(code);
      if (!dep.startsWith('97')) {
        const x = Number(e.coordonneeLambertAbscisseEtablissement);
        const y = Number(e.coordonneeLambertOrdonneeEtablissement);
        expect(x).to.be.within(60_000, 1_250_000);
        expect(y).to.be.within(6_030_000, 7_120_000);
      }
    }
    expect(used.size).to.be.greaterThan(150);
    const deps = new Set([...used].map(departementOfCommune));
    expect([...deps]).to.include.members(['29', '2A', '2B', '971', '972', '973', '974']);
  });

  it('relies on a table of at least 150 real communes over many departments', () => {
    expect(COMMUNES.length).to.be.at.least(150);
    const deps = new Set(COMMUNES.map((c) => c.departement));
    expect(deps.size).to.be.at.least(80);
    for (const c of COMMUNES) {
      expect(c.code).to.match(/^(\d{5}|2[AB]\d{3})$/);
      expect(c.departement).to.equal(departementOfCommune(c.code));
      expect(postalCodeMatches(c.codePostal, c.departement), c.nom).to.equal(true);
    }
    const quimper = COMMUNES.find((c) => c.code === '29232');
    expect(quimper).to.include({ nom: 'Quimper', codePostal: '29000', departement: '29' });
  });
});
