// Demo DECP awards keep both real shapes (2019 {"marches": [...]}, 2024 {"marches": {"marche": [...]}}), valid CPV and SIRETs of demo firms and buyers.
import { expect } from 'chai';
import { CPV_DIVISION_45, isValidCpv, isValidDepartementCode } from '../../../src/domains/reference/lists.js';
import { luhnValid } from '../../../scripts/demo/luhn.js';
import { readTable } from './csv.js';
import { departementOfCommune, isRealDay, readDemo, TODAY } from './fixture.js';

interface Lieu {
  code: string;
  typeCode: string;
  nom?: string;
}

interface Common {
  id: string;
  acheteur: { id: string; nom?: string };
  nature: string;
  objet: string;
  codeCPV: string;
  procedure: string;
  lieuExecution: Lieu;
  dureeMois: number;
  dateNotification: string;
  datePublicationDonnees: string;
  montant: number;
  formePrix: string;
  modifications: unknown[];
}

interface M2019 extends Common {
  uid: string;
  titulaires: { typeIdentifiant: string; id: string; denominationSociale: string }[];
  _type: string;
}

interface M2024 extends Common {
  titulaires: { titulaire: { typeIdentifiant: string; id: string } }[];
}

const CPV45 = new Set(CPV_DIVISION_45.map((c) => c.code));
const TYPE_CODES = ['Code postal', 'Code département', 'Code commune'];

function checkCommon(m: Common, etabs: Set<string>, winners: string[]): void {
  expect(m.id).to.be.a('string').and.not.equal('');
  expect(m.acheteur.id).to.match(/^\d{14}$/);
  expect(luhnValid(m.acheteur.id), m.acheteur.id).to.equal(true);
  expect(m.acheteur.id.startsWith('21') || m.acheteur.id.startsWith('22') || m.acheteur.id.startsWith('200')).to.equal(true);
  expect(m.objet.length).to.be.greaterThan(10);
  expect(isValidCpv(m.codeCPV), m.codeCPV).to.equal(true);
  expect(CPV45.has(m.codeCPV), m.codeCPV).to.equal(true);
  expect(TYPE_CODES).to.include(m.lieuExecution.typeCode);
  if (m.lieuExecution.typeCode === 'Code département') expect(isValidDepartementCode(m.lieuExecution.code)).to.equal(true);
  else if (m.lieuExecution.typeCode === 'Code postal') expect(m.lieuExecution.code).to.match(/^\d{5}$/);
  else expect(isValidDepartementCode(departementOfCommune(m.lieuExecution.code)), m.lieuExecution.code).to.equal(true);
  expect(m.dureeMois).to.be.a('number').and.at.least(1);
  expect(isRealDay(m.dateNotification) && isRealDay(m.datePublicationDonnees)).to.equal(true);
  expect(m.dateNotification <= m.datePublicationDonnees && m.datePublicationDonnees <= TODAY).to.equal(true);
  expect(m.montant).to.be.a('number').and.greaterThan(0);
  expect(Math.round(m.montant * 100) / 100).to.equal(m.montant);
  expect(m.modifications).to.deep.equal([]);
  expect(winners).to.not.be.empty;
  for (const w of winners) {
    expect(luhnValid(w), w).to.equal(true);
    expect(etabs.has(w), `titulaire ${w} absent des établissements`).to.equal(true);
  }
}

describe('demo data: DECP awards', () => {
  let etabs: Set<string>;
  let m2019: M2019[];
  let m2024: M2024[];

  before(async () => {
    etabs = new Set(readTable(await readDemo('sirene/StockEtablissement_utf8.csv')).rows.map((r) => r.siret!));
    const d2019 = JSON.parse(await readDemo('decp/decp-2019.json')) as Record<string, unknown>;
    expect(Object.keys(d2019)).to.deep.equal(['marches']);
    expect(d2019.marches).to.be.an('array');
    m2019 = d2019.marches as M2019[];
    const d2024 = JSON.parse(await readDemo('decp/decp-2024.json')) as { marches: Record<string, unknown> };
    expect(Object.keys(d2024)).to.deep.equal(['marches']);
    expect(Object.keys(d2024.marches)).to.deep.equal(['marche']);
    m2024 = d2024.marches.marche as M2024[];
  });

  it('writes 1,500 awards in the 2019 shape, with uid, buyer name, winners named by SIRET', () => {
    expect(m2019).to.have.length(1500);
    const uids = new Set<string>();
    for (const m of m2019) {
      expect(m).to.include.all.keys('id', 'uid', 'acheteur', 'nature', 'objet', 'codeCPV', 'procedure', 'lieuExecution', 'dureeMois', 'dateNotification', 'datePublicationDonnees', 'montant', 'formePrix', 'titulaires', 'modifications', '_type');
      expect(m._type).to.equal('Marché');
      expect(m.uid).to.equal(m.acheteur.id + m.id);
      expect(uids.has(m.uid)).to.equal(false);
      uids.add(m.uid);
      expect(m.acheteur.nom).to.match(/^(Ville|Commune|Département|Collectivité) /);
      expect(m.lieuExecution.nom).to.be.a('string').and.not.equal('');
      expect(['Marché', 'Accord-cadre']).to.include(m.nature);
      expect(['Ferme', 'Ferme et actualisable', 'Révisable']).to.include(m.formePrix);
      for (const t of m.titulaires) {
        expect(t.typeIdentifiant).to.equal('SIRET');
        expect(t.denominationSociale).to.not.equal('');
      }
      checkCommon(m, etabs, m.titulaires.map((t) => t.id));
    }
  });

  it('writes 1,500 awards in the 2024 shape, with nested titulaire objects', () => {
    expect(m2024).to.have.length(1500);
    const keys = new Set<string>();
    for (const m of m2024) {
      expect(m).to.include.all.keys('id', 'acheteur', 'nature', 'objet', 'codeCPV', 'procedure', 'lieuExecution', 'dureeMois', 'dateNotification', 'datePublicationDonnees', 'montant', 'formePrix', 'titulaires', 'modifications');
      expect(m).to.not.have.any.keys('uid', '_type');
      expect(Object.keys(m.acheteur)).to.deep.equal(['id']);
      expect(Object.keys(m.lieuExecution)).to.deep.equal(['code', 'typeCode']);
      expect(m.id.length).to.be.at.most(16);
      const key = `${m.acheteur.id}|${m.id}`;
      expect(keys.has(key)).to.equal(false);
      keys.add(key);
      expect(['Unitaire', 'Forfaitaire', 'Mixte']).to.include(m.formePrix);
      for (const t of m.titulaires) {
        expect(Object.keys(t)).to.deep.equal(['titulaire']);
        expect(t.titulaire.typeIdentifiant).to.equal('SIRET');
      }
      checkCommon(m, etabs, m.titulaires.map((t) => t.titulaire.id));
    }
  });

  it('spreads awards over buyers that are communes and departments, and over many winners', () => {
    const buyers = new Set(m2019.map((m) => m.acheteur.nom));
    expect([...buyers].filter((b) => b!.startsWith('Département')).length).to.be.greaterThan(10);
    expect([...buyers].filter((b) => /^(Ville|Commune) /.test(b!)).length).to.be.greaterThan(50);
    const winners = new Set(m2019.flatMap((m) => m.titulaires.map((t) => t.id)));
    expect(winners.size).to.be.greaterThan(400);
  });
});
