// The BODACC importer reads every layout of the Opendatasoft portal (v2.1 answer whatever its key order, v1 answer with its records' "fields", export array, JSON lines) and every shape of a record seen in code that reads the live API, keeping of a natural person its trade name only.
// No real file of the dataset could be found (SOURCES.md): the records below reproduce the
// shapes documented in import-bodacc.ts (annuaire-entreprises-data-gouv-fr/site's BODACC
// client, a client checked against live answers, and test fixtures of API records).
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { bodacc, frenchDate, mapAnnouncement, registrySirens, withoutContacts } from '../../../src/domains/announcements/import-bodacc.js';
import type { AnnouncementRow } from '../../../src/domains/announcements/rows.js';

const NOW = '2026-11-24T10:00:00.000Z';

// As the annuaire-entreprises client documents a record (v1 keeps `registre` as one text).
const COLLECTIVE = {
  tribunal: 'TRIBUNAL DE COMMERCE DE BORDEAUX',
  cp: '33150',
  region_code: 75,
  region_nom_officiel: 'Nouvelle-Aquitaine',
  numerodepartement: '33',
  departement_nom_officiel: 'Gironde',
  id: 'A202002333642',
  publicationavis_facette: 'Bodacc A',
  registre: '833 310 592,833310592',
  ville: 'Cenon',
  commercant: 'DJ BATIMENT',
  dateparution: '2020-11-30',
  parution: '20200233',
  typeavis: 'annonce',
  typeavis_lib: 'Avis initial',
  familleavis: 'collective',
  familleavis_lib: 'Procédures collectives',
  publicationavis: 'A',
  listepersonnes:
    '{"personne": {"typePersonne": "pm", "activite": "travaux de bâtiment et de rénovation intérieur et extérieur, peinture, ravalement, maçonnerie, plomberie, électricité.", "denomination": "DJ BATIMENT", "formeJuridique": "Société par actions simplifiée à associé unique", "numeroImmatriculation": {"codeRCS": "RCS", "numeroIdentification": "833 310 592", "nomGreffeImmat": "Bordeaux"}, "adresseSiegeSocial": {"ville": "Cenon", "pays": "france", "typeVoie": "rue", "codePostal": "33150", "numeroVoie": "16", "nomVoie": "du 8 Mai 1945"}}}',
  jugement:
    '{"date": "2020-11-19", "complementJugement": "Jugement prononçant la clôture de la procédure de liquidation judiciaire pour insuffisance d\'actif.", "type": "initial", "famille": "Jugement de clôture", "nature": "Jugement de clôture pour insuffisance d\'actif"}',
  numeroannonce: 993,
};

async function readAll(text: string): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const r of bodacc.read(Readable.from([Buffer.from(text)]))) {
    if ('error' in r) throw new Error(r.error);
    out.push(r.value);
  }
  return out;
}

function row(raw: Record<string, unknown>): AnnouncementRow {
  const mapped = mapAnnouncement(raw, NOW);
  if ('skip' in mapped) throw new Error(mapped.skip);
  return mapped.row;
}

describe('BODACC importer', () => {
  it('reads an Explore v2.1 answer (total_count first), a v1 answer (records’ fields), an export array and JSON lines alike', async () => {
    const v21 = await readAll(JSON.stringify({ total_count: 1669132, results: [COLLECTIVE] }));
    const v1 = await readAll(
      JSON.stringify({
        nhits: 2,
        parameters: { dataset: 'annonces-commerciales', rows: 10, format: 'json' },
        records: [{ datasetid: 'annonces-commerciales', recordid: 'f1e2d3', fields: COLLECTIVE, record_timestamp: '2020-12-01T02:14:00Z' }],
      }),
    );
    const array = await readAll(JSON.stringify([COLLECTIVE]));
    const lines = await readAll(`${JSON.stringify(COLLECTIVE)}\n${JSON.stringify({ ...COLLECTIVE, id: 'A202002333643' })}\n`);
    for (const records of [v21, v1, array]) expect(records).to.deep.equal([COLLECTIVE]);
    expect(lines).to.have.length(2);
  });

  it('maps a collective proceeding: family, judgment, department, SIREN from `registre` in any form', () => {
    const r = row(COLLECTIVE);
    expect(r).to.include({
      id: 'A202002333642',
      bulletin: 'A',
      numero_parution: '20200233',
      numero_annonce: 993,
      date_parution: '2020-11-30',
      famille: 'collective',
      famille_libelle: 'Procédures collectives',
      departement: '33',
      ville: 'Cenon',
      type_personne: 'pm',
      denomination: 'DJ BATIMENT',
      forme_juridique: 'Société par actions simplifiée à associé unique',
      jugement_famille: 'Jugement de clôture',
      jugement_nature: "Jugement de clôture pour insuffisance d'actif",
      jugement_date: '2020-11-19',
      details_illisibles: '',
    });
    expect(JSON.parse(r.sirens)).to.deep.equal(['833310592']);
    // Neither the free text of the judgment nor the seat's address.
    expect(JSON.stringify(r)).to.not.match(/complement|8 Mai 1945|insuffisance d'actif\./);
    expect(registrySirens(['482 309 382', '482309382'])).to.deep.equal(['482309382']);
    expect(registrySirens(['107129215', '107 129 215', '803445667', '803 445 667'])).to.deep.equal(['107129215', '803445667']);
    expect(registrySirens('833 310 592,833310592')).to.deep.equal(['833310592']);
    expect(registrySirens(null)).to.deep.equal([]);
  });

  it('reads judgment dates written in words, and a list of persons', () => {
    expect(frenchDate('10 décembre 2009')).to.equal('2009-12-10');
    expect(frenchDate('1er mars 2010')).to.equal('2010-03-01');
    expect(frenchDate('31 février 2010')).to.equal(null);
    expect(frenchDate('bientôt')).to.equal(null);
    const r = row({
      ...COLLECTIVE,
      registre: ['482 309 382', '482309382'],
      jugement: { famille: 'Jugement prononçant', nature: 'Jugement de conversion en liquidation judiciaire', date: '10 décembre 2009', type: 'initial' },
      listepersonnes: JSON.stringify({ personne: [{ typePersonne: 'pm', denomination: 'LE SAGITTAIRE', numeroImmatriculation: { numeroIdentification: '482 309 382' } }, { typePersonne: 'pm', denomination: 'AUTRE', numeroImmatriculation: { numeroIdentification: '510 784 887' } }] }),
    });
    expect(r).to.include({ jugement_date: '2009-12-10', denomination: 'LE SAGITTAIRE' });
    expect(JSON.parse(r.sirens)).to.deep.equal(['482309382', '510784887']);
  });

  it('keeps of a natural person its trade name only, and never a civil name published as « NOM, Prénom »', () => {
    const pp = row({
      ...COLLECTIVE,
      commercant: 'Cresson, Sandrine, Corbeaux',
      listepersonnes: '{"personne": {"typePersonne": "pp", "nom": "Cresson", "prenom": "Sandrine", "nomUsage": "Corbeaux", "nomCommercial": "SANDY CHEZ VOUS", "dateNaissance": "1981-02", "adresseSiegeSocial": {"ville": "Melun"}}}',
    });
    expect(pp).to.include({ type_personne: 'pp', denomination: 'SANDY CHEZ VOUS', forme_juridique: null });
    expect(JSON.stringify(pp)).to.not.match(/Cresson|Sandrine|Corbeaux|1981|Melun/);
    const withoutTradeName = row({ ...COLLECTIVE, commercant: 'BAILLEUL, Sandrine', listepersonnes: '{"personne": {"typePersonne": "pp", "nom": "BAILLEUL", "prenom": "Sandrine"}}' });
    expect(withoutTradeName.denomination).to.equal(null);
    // The person's nature unknown: `commercant` only when it does not read as a civil name.
    expect(row({ ...COLLECTIVE, listepersonnes: null, commercant: 'LUNEL, Jean' }).denomination).to.equal(null);
    expect(row({ ...COLLECTIVE, listepersonnes: null, commercant: 'ATELIER DU LITTORAL' }).denomination).to.equal('ATELIER DU LITTORAL');
  });

  it('tells what the act, a modification, a striking-off or a filing of accounts says', () => {
    const detail = (o: Record<string, unknown>) => row({ ...COLLECTIVE, jugement: null, ...o }).detail;
    expect(detail({ familleavis: 'creation', acte: '{"creation": {"categorieCreation": "Immatriculation d\'une personne physique suite à création d\'un établissement principal"}, "dateCommencementActivite": "2017-10-01"}' })).to.equal(
      "Immatriculation d'une personne physique suite à création d'un établissement principal ; début d'activité le 01/10/2017",
    );
    expect(detail({ depot: '{"dateCloture": "2018-12-31", "typeDepot": "Comptes consolidés et rapports"}' })).to.equal('Comptes consolidés et rapports, exercice clos le 31/12/2018');
    expect(detail({ radiationaurcs: '{"radiationPM": "O"}' })).to.equal('Radiation de la personne morale');
    expect(detail({ radiationaurcs: '{"radiationPP": {"dateCessationActivitePP": "2021-03-31"}}' })).to.equal("cessation d'activité le 31/03/2021");
    expect(detail({ modificationsgenerales: '{"descriptif": "Modification survenue sur le capital."}' })).to.equal('Modification survenue sur le capital');
    expect(detail({ listeetablissements: '{"etablissement": [{"origineFonds": "Achat au prix stipulé de 40.000,00 EUR"}, {"origineFonds": "Création"}]}' })).to.equal('Achat au prix stipulé de 40.000,00 EUR');
  });

  it('keeps a record whose detail field is unreadable, naming the field and noting it', () => {
    const mapped = mapAnnouncement({ ...COLLECTIVE, jugement: '{"date": "2020-11-19", "nature": "Jugement de cl', depot: 42 }, NOW);
    expect('row' in mapped).to.equal(true);
    if (!('row' in mapped)) return;
    expect(mapped.row.details_illisibles).to.equal('jugement,depot');
    expect(mapped.row.jugement_nature).to.equal(null);
    expect(mapped.notes).to.have.length(2);
  });

  it('skips a record without id or date, saying why; reads the family from its label, the department from the postal code', () => {
    expect(mapAnnouncement({ ...COLLECTIVE, id: '' }, NOW)).to.deep.equal({ skip: 'identifiant de l’annonce (« id ») absent' });
    expect(mapAnnouncement({ ...COLLECTIVE, dateparution: '30/13/2020' }, NOW)).to.have.property('skip').that.matches(/date de parution/);
    expect(mapAnnouncement([] as never, NOW)).to.deep.equal({ skip: 'enregistrement qui n’est pas un objet' });
    const r = row({ ...COLLECTIVE, familleavis: null, familleavis_lib: 'Procédures de rétablissement professionnel', numerodepartement: null, cp: '20167' });
    expect(r).to.include({ famille: 'retablissement_professionnel', departement: '2A', departement_nom: 'Gironde' });
    expect(row({ ...COLLECTIVE, numerodepartement: '1', departement_nom_officiel: null }).departement).to.equal('01');
  });

  it('removes telephone numbers, e-mail and web addresses from the texts it keeps', () => {
    expect(withoutContacts('Maçonnerie, contact 02 98 12 34 56, info@exemple.fr, www.exemple.fr.')).to.deep.equal({ text: 'Maçonnerie, contact', removed: true });
    expect(withoutContacts('Couverture, zinguerie')).to.deep.equal({ text: 'Couverture, zinguerie', removed: false });
  });
});
