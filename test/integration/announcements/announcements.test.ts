// BODACC announcements over HTTP (REST and MCP alike): searches by words, family, department or region, publication window and SIREN, paged with cursors; one announcement by id, with no personal data of a natural person and no contact detail; a company's record listing its collective proceedings, newest first; idempotent re-import.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile, type ImportReport } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { UNREADABLE_NOTE } from '../../../src/domains/announcements/import-bodacc.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { bodaccRecord } from '../../helpers/company-sources.js';

const LEON = '732829320';
const ARMOR = '383474814';

const UNITS = `siren,dateCreationUniteLegale,trancheEffectifsUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,nomUniteLegale,prenom1UniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale,categorieEntreprise
${LEON},2015-03-02,11,2026-01-10,A,,,Charpentes du Léon,,5499,43.91B,00018,PME
${ARMOR},2019-05-06,02,2026-01-10,A,,,Électricité Armoricaine,,5710,43.21A,00021,PME
`;

const pm = (siren: string, denomination: string, activite: string) =>
  JSON.stringify({
    personne: {
      typePersonne: 'pm',
      numeroImmatriculation: { numeroIdentification: `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`, codeRCS: 'RCS', nomGreffeImmat: 'Brest' },
      denomination,
      formeJuridique: 'Société à responsabilité limitée',
      adresseSiegeSocial: { numeroVoie: '12', typeVoie: 'rue', nomVoie: 'de Brest', codePostal: '29800', ville: 'Landerneau' },
      administration: 'Gérant : KERDRAON, Yannick',
      activite,
    },
  });


const RECORDS = [
  bodaccRecord('A202600471001', {
    dateparution: '2026-03-10',
    familleavis: 'collective',
    familleavis_lib: 'Procédures collectives',
    commercant: 'Charpentes du Léon',
    registre: ['732 829 320', LEON],
    listepersonnes: pm(LEON, 'Charpentes du Léon', 'Charpente, couverture, zinguerie'),
    jugement: JSON.stringify({
      type: 'initial',
      famille: "Jugement d'ouverture",
      nature: "Jugement d'ouverture d'une procédure de redressement judiciaire",
      date: '2026-03-03',
      complementJugement: 'désignant mandataire judiciaire SELARL Athéna, 39 rue de Siam, 29200 Brest, créances sur https://www.creditors-services.com ou au 02 98 00 00 00',
    }),
  }),
  bodaccRecord('A202601261002', {
    dateparution: '2026-07-02',
    familleavis: 'collective',
    familleavis_lib: 'Procédures collectives',
    commercant: 'Charpentes du Léon',
    registre: [LEON, '732 829 320'],
    listepersonnes: pm(LEON, 'Charpentes du Léon', 'Charpente, couverture, zinguerie'),
    jugement: JSON.stringify({ type: 'initial', famille: 'Jugement prononçant', nature: 'Jugement de conversion en liquidation judiciaire', date: '24 juin 2026' }),
  }),
  bodaccRecord('A202600901003', {
    dateparution: '2026-05-05',
    familleavis: 'vente',
    familleavis_lib: 'Ventes et cessions',
    numerodepartement: '35',
    departement_nom_officiel: 'Ille-et-Vilaine',
    ville: 'Rennes',
    cp: '35000',
    tribunal: 'Greffe du Tribunal de Commerce de Rennes',
    commercant: 'Électricité Armoricaine',
    registre: [ARMOR, '383 474 814', '732 829 320', LEON],
    listepersonnes: pm(ARMOR, 'Électricité Armoricaine', 'Électricité générale'),
    listeetablissements: JSON.stringify({ etablissement: { origineFonds: 'Fonds acquis par achat au prix stipulé de 85000 EUR', activite: 'Électricité générale' } }),
    acte: JSON.stringify({ vente: { categorieVente: "Achat d'un fonds par une personne morale", dateEffet: '1er avril 2026' } }),
  }),
  bodaccRecord('A202600521004', {
    dateparution: '2026-03-17',
    familleavis: 'creation',
    familleavis_lib: 'Créations',
    commercant: 'PLOMBERIE DU PORT, LE GALL, Yannig',
    ville: 'Quimper',
    cp: '29000',
    registre: ['912 345 675', '912345675'],
    listepersonnes: JSON.stringify({
      personne: {
        typePersonne: 'pp',
        nom: 'LE GALL',
        prenom: 'Yannig',
        nomUsage: 'KERMARREC',
        nomCommercial: 'PLOMBERIE DU PORT',
        dateNaissance: '1978-04',
        nationalite: 'Française',
        adresseSiegeSocial: { numeroVoie: '7', typeVoie: 'impasse', nomVoie: 'des Goélands', codePostal: '29000', ville: 'Quimper' },
      },
    }),
    listeetablissements: JSON.stringify({ etablissement: { origineFonds: 'Création', activite: 'Plomberie, chauffage ; devis au 06 12 34 56 78 ou plomberie.port@exemple.fr' } }),
    acte: JSON.stringify({ creation: { categorieCreation: "Immatriculation d'une personne physique suite à création d'un établissement principal" }, dateCommencementActivite: '2026-03-01' }),
  }),
  bodaccRecord('C202601051005', {
    dateparution: '2026-06-01',
    familleavis: 'dpc',
    familleavis_lib: 'Dépôts des comptes',
    numerodepartement: '35',
    departement_nom_officiel: 'Ille-et-Vilaine',
    commercant: 'Électricité Armoricaine',
    registre: [ARMOR, '383 474 814'],
    depot: JSON.stringify({ dateCloture: '2025-12-31', typeDepot: 'Comptes annuels et rapports' }),
  }),
  bodaccRecord('A202502111006', {
    dateparution: '2025-11-04',
    familleavis: 'conciliation',
    familleavis_lib: 'Procédures de conciliation',
    numerodepartement: '35',
    departement_nom_officiel: 'Ille-et-Vilaine',
    commercant: 'Électricité Armoricaine',
    registre: ['383 474 814', ARMOR],
    jugement: JSON.stringify({ famille: 'Jugement prononçant', nature: "Jugement d'ouverture d'une procédure de conciliation", date: '2025-10-28' }),
  }),
  // The jugement string is cut: the announcement is kept without it, and noted.
  bodaccRecord('A202600611007', {
    dateparution: '2026-03-31',
    familleavis: 'collective',
    familleavis_lib: 'Procédures collectives',
    commercant: 'Couverture Le Goff',
    registre: ['419 223 004', '419223004'],
    jugement: '{"famille": "Jugement d\'ouverture", "nature": "Jugement d\'ouv',
  }),
  // No date of publication: skipped with its reason.
  bodaccRecord('A202600611008', { dateparution: null, familleavis: 'radiation', commercant: 'SANS DATE', registre: ['801234567'] }),
];

describe('legal announcements (BODACC)', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  let mcp: Client;
  let report: ImportReport;
  const silent = () => ({ update: () => undefined, stop: () => undefined });
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id);

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'bodacc-'));
    writeFileSync(join(dir, 'ul.csv'), UNITS);
    await importFile(svc.db, IMPORTERS['sirene-unites'] as never, join(dir, 'ul.csv'), { progress: silent });
    // As the Explore API v2.1 sends it: total_count before results.
    writeFileSync(join(dir, 'bodacc.json'), JSON.stringify({ total_count: RECORDS.length, results: RECORDS }, null, 2));
    report = await importFile(svc.db, IMPORTERS.bodacc as never, join(dir, 'bodacc.json'), { progress: silent });
    mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
  });
  after(async () => {
    await mcp.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the records, skips one without a date with its reason, keeps one with an unreadable detail and says so', () => {
    expect(report).to.include({ read: 8, inserted: 7, updated: 0, skipped: 1, stopped: null });
    expect(report.problems).to.deep.equal([{ position: 8, reason: 'date de parution (« dateparution ») absente ou illisible ()' }]);
    expect(report.notes).to.deep.equal({ [UNREADABLE_NOTE('jugement')]: 1, 'téléphone, courriel ou site web retiré d’un texte de l’annonce': 1 });
  });

  it('searches by words, family, department, region, publication window and SIREN, newest first without words', async () => {
    expect(ids((await svc.rest('bodacc.search', {})).json)).to.deep.equal(['A202601261002', 'C202601051005', 'A202600901003', 'A202600611007', 'A202600521004', 'A202600471001', 'A202502111006']);
    expect(ids((await svc.rest('bodacc.search', { query: 'liquidation' })).json)).to.deep.equal(['A202601261002']);
    expect(ids((await svc.rest('bodacc.search', { query: 'redressement judiciaire' })).json)).to.deep.equal(['A202600471001']);
    expect(ids((await svc.rest('bodacc.search', { query: 'charpentes leon' })).json)).to.have.members(['A202601261002', 'A202600471001']);
    expect(ids((await svc.rest('bodacc.search', { query: 'plomberie' })).json)).to.deep.equal(['A202600521004']);
    expect(ids((await svc.rest('bodacc.search', { familles: ['collective', 'conciliation'] })).json)).to.deep.equal(['A202601261002', 'A202600611007', 'A202600471001', 'A202502111006']);
    expect(ids((await svc.rest('bodacc.search', { departements: ['35'] })).json)).to.deep.equal(['C202601051005', 'A202600901003', 'A202502111006']);
    expect((await svc.rest('bodacc.search', { region: '53' })).json.results).to.have.length(7);
    expect(ids((await svc.rest('bodacc.search', { parue_depuis: '2026-03-17', parue_avant: '2026-05-05' })).json)).to.deep.equal(['A202600901003', 'A202600611007', 'A202600521004']);
    // A sale cites both the buyer and the seller.
    expect(ids((await svc.rest('bodacc.search', { siren: LEON })).json)).to.deep.equal(['A202601261002', 'A202600901003', 'A202600471001']);
    expect(ids((await svc.rest('bodacc.search', { siren: ARMOR, familles: ['dpc'] })).json)).to.deep.equal(['C202601051005']);
  });

  it('pages with a cursor bound to the arguments', async () => {
    const first = await svc.rest('bodacc.search', { region: '53', limit: 3 });
    expect(first.json.results).to.have.length(3);
    expect(first.json.total_estimated).to.equal(7);
    const second = await svc.rest('bodacc.search', { region: '53', limit: 3, cursor: first.json.next_cursor });
    expect(ids(second.json)).to.deep.equal(['A202600611007', 'A202600521004', 'A202600471001']);
    const third = await svc.rest('bodacc.search', { region: '53', limit: 3, cursor: second.json.next_cursor });
    expect(ids(third.json)).to.deep.equal(['A202502111006']);
    expect(third.json.next_cursor).to.equal(null);
    const other = await svc.rest('bodacc.search', { region: '11', limit: 3, cursor: first.json.next_cursor });
    expect(other.status).to.equal(400);
  });

  it('gives one announcement with its judgment, its SIRENs and the service’s permalink, without the judgment’s free text', async () => {
    const { json } = await svc.rest('bodacc.get', { id: 'A202601261002' });
    const f = json.results[0].fields;
    expect(f).to.include({ id_bodacc: 'A202601261002', bulletin: 'A', numero_parution: '20260126', numero_annonce: 1002, date_parution: '2026-07-02', famille: 'collective' });
    expect(f).to.include({ departement: '29', ville: 'Landerneau', tribunal: 'Greffe du Tribunal de Commerce de Brest', type_personne: 'personne_morale', denomination: 'Charpentes du Léon' });
    expect(f.jugement).to.deep.equal({ famille: 'Jugement prononçant', nature: 'Jugement de conversion en liquidation judiciaire', date: '2026-06-24' });
    expect(f.sirens).to.deep.equal([LEON]);
    expect(f.url).to.equal(`${svc.url}/bodacc/A202601261002`);
    const opening = JSON.stringify((await svc.rest('bodacc.get', { id: 'A202600471001' })).json);
    for (const hidden of ['creditors', 'Athéna', '02 98', 'KERDRAON', 'rue de Brest', 'bodacc.fr']) expect(opening).to.not.include(hidden);
    const sale = (await svc.rest('bodacc.get', { id: 'A202600901003' })).json.results[0].fields;
    expect(sale.sirens).to.deep.equal([ARMOR, LEON]);
    expect(sale.detail).to.equal("Achat d'un fonds par une personne morale ; date d'effet : 01/04/2026 ; Fonds acquis par achat au prix stipulé de 85000 EUR");
    expect((await svc.rest('bodacc.get', { id: 'A000000000000' })).json.results).to.deep.equal([]);
  });

  it('keeps of a natural person its trade name only: no civil name, birth, address, telephone or e-mail', async () => {
    const { json } = await svc.rest('bodacc.get', { id: 'A202600521004' });
    const f = json.results[0].fields;
    expect(f).to.include({ type_personne: 'personne_physique', denomination: 'PLOMBERIE DU PORT', forme_juridique: null, activite: 'Plomberie, chauffage ; devis au ou' });
    const text = JSON.stringify(json);
    for (const hidden of ['LE GALL', 'Yannig', 'KERMARREC', '1978', 'Goélands', '06 12', 'exemple.fr', 'Française']) expect(text).to.not.include(hidden);
    expect(json.results[0].titre).to.equal('PLOMBERIE DU PORT — Créations');
  });

  it('keeps an announcement whose detail field is unreadable, saying which', async () => {
    const f = (await svc.rest('bodacc.get', { id: 'A202600611007' })).json.results[0].fields;
    expect(f.details_illisibles).to.deep.equal(['jugement']);
    expect(f.jugement).to.equal(null);
    expect(f.denomination).to.equal('Couverture Le Goff');
  });

  it('answers the same on MCP as on REST', async () => {
    for (const [tool, operation, args] of [
      ['bodacc_rechercher', 'bodacc.search', { query: 'liquidation', familles: ['collective'], region: '53' }],
      ['bodacc_consulter', 'bodacc.get', { id: 'A202600901003' }],
    ] as const) {
      const viaMcp = await mcp.callTool({ name: tool, arguments: args });
      expect(viaMcp.isError).to.not.equal(true);
      expect(viaMcp.structuredContent).to.deep.equal((await svc.rest(operation, args)).json);
    }
  });

  it('lists a company’s collective proceedings on its record, newest first, not its other announcements', async () => {
    const leon = (await svc.rest('entreprises.get', { siren: LEON })).json.results[0];
    expect(leon.fields.procedures_collectives).to.deep.equal([
      { annonce_id: 'A202601261002', date_parution: '2026-07-02', famille: 'collective', nature: 'Jugement de conversion en liquidation judiciaire', date_jugement: '2026-06-24', tribunal: 'Greffe du Tribunal de Commerce de Brest', url: `${svc.url}/bodacc/A202601261002` },
      { annonce_id: 'A202600471001', date_parution: '2026-03-10', famille: 'collective', nature: "Jugement d'ouverture d'une procédure de redressement judiciaire", date_jugement: '2026-03-03', tribunal: 'Greffe du Tribunal de Commerce de Brest', url: `${svc.url}/bodacc/A202600471001` },
    ]);
    expect(leon.resume).to.include('procédure collective publiée le 02/07/2026 (Jugement de conversion en liquidation judiciaire)');
    const armor = (await svc.rest('entreprises.get', { siren: ARMOR })).json.results[0];
    expect(armor.fields.procedures_collectives.map((p: { annonce_id: string; famille: string }) => [p.annonce_id, p.famille])).to.deep.equal([['A202502111006', 'conciliation']]);
    const search = (await svc.rest('entreprises.search', { query: 'charpentes leon' })).json.results[0];
    expect(search.fields.procedures_collectives).to.have.length(2);
  });

  it('re-imports without duplicates, keeping when each announcement entered the service', async () => {
    const before = await svc.db('announcements').orderBy('id').select('id', 'ingested_at');
    const again = await importFile(svc.db, IMPORTERS.bodacc as never, join(dir, 'bodacc.json'), { progress: silent });
    expect(again).to.include({ read: 8, inserted: 0, updated: 7, skipped: 1 });
    expect(await svc.db('announcements').orderBy('id').select('id', 'ingested_at')).to.deep.equal(before);
    expect(Number((await svc.db('announcement_sirens').count('* as n'))[0]?.n)).to.equal(8);
  });

  it('serves the permalink page to a signed-in account only', async () => {
    const page = await fetch(`${svc.url}/bodacc/A202600471001`, { redirect: 'manual' });
    expect(page.status).to.equal(303);
    expect(page.headers.get('location')).to.equal('/compte/connexion?suite=%2Fbodacc%2FA202600471001');
  });
});
