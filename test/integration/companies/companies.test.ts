// The company directory over HTTP: the spec's record with exactly its fields, no contact details, the service's own permalink; searches by words and filters, ranked and paged with cursors that cannot be forged or reused with other arguments.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SPEC_FIELDS = [
  'adresse', 'categorie', 'code_naf', 'code_naf_2025', 'code_postal', 'date_creation', 'departement', 'effectif', 'etat', 'forme_juridique', 'libelle_naf', 'nomenclature_naf', 'nom_commercial',
  'raison_sociale', 'rge_date_fin', 'siren', 'siret', 'url', 'ville', 'capital_social_eur', 'nombre_certifications_actives', 'est_rge', 'raison_sociale_connue',
  'rge_domaines', 'dirigeants', 'evolution_ca',
  // Not in the spec's table: the company's collective proceedings (BODACC), issue 13.
  'procedures_collectives',
  // Where the identity comes from (SIRENE, its establishments, or the RNE register alone).
  'source_identite',
].sort();

const UNITS = `siren,dateCreationUniteLegale,trancheEffectifsUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,nomUniteLegale,prenom1UniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale,categorieEntreprise
732829320,2015-03-02,11,2026-01-10,A,,,Charpentes du Léon,Toitures du Léon,5499,43.91B,00018,PME
383474814,2019-05-06,02,2026-01-10,A,,,Électricité Armoricaine,,5710,43.21A,00021,PME
419223004,2001-09-17,12,2026-01-10,C,,,Couverture Le Goff,,5499,43.91B,00012,PME
552032534,2022-02-14,01,2026-01-10,A,MORVAN,Yann,,,1000,43.99C,00016,
801234567,2010-06-30,21,2026-01-10,A,,,Bâtiment de l'Ouest,,5710,41.20B,00011,ETI
`;
const ESTABLISHMENTS = `siren,nic,siret,etablissementSiege,etatAdministratifEtablissement,dateCreationEtablissement,activitePrincipaleEtablissement,numeroVoieEtablissement,typeVoieEtablissement,libelleVoieEtablissement,codePostalEtablissement,libelleCommuneEtablissement,codeCommuneEtablissement,dateDernierTraitementEtablissement,enseigne1Etablissement
732829320,00018,73282932000018,true,A,2015-03-02,43.91B,12,RUE,DE BREST,29800,LANDERNEAU,29103,2026-01-10,
732829320,00026,73282932000026,false,A,2020-01-01,43.91B,3,RUE,DU PORT,29200,BREST,29019,2026-01-10,Toitures Brestoises
383474814,00021,38347481400021,true,A,2019-05-06,43.21A,5,AV,JEAN JAURES,35000,RENNES,35238,2026-01-10,
419223004,00012,41922300400012,true,F,2001-09-17,43.91B,1,PL,DE LA MAIRIE,29000,QUIMPER,29232,2026-01-10,
552032534,00016,55203253400016,true,A,2022-02-14,43.99C,8,CHE,DES LANDES,56000,VANNES,56260,2026-01-10,
801234567,00011,80123456700011,true,A,2010-06-30,41.20B,40,BD,DE LA LIBERTE,29200,BREST,29019,2026-01-10,
`;
const RGE = `nom_entreprise,siret,adresse,code_postal,commune,latitude,longitude,telephone,email,site_internet,organisme,domaine,meta_domaine,code_qualification,nom_qualification,lien_date_debut,lien_date_fin,particulier
TOITURES BRESTOISES,73282932000026,3 rue du Port,29200,Brest,,,02 98 00 00 01,contact@toitures.bzh,https://www.toitures.bzh,Qualibat,Isolation des combles perdus,Isolation,1,Q,2024-01-01,2099-12-31,Oui
CHARPENTES DU LEON,73282932000018,12 rue de Brest,29800,Landerneau,,,02 98 00 00 02,leon@charpentes.bzh,https://charpentes.bzh,Qualibat,Couverture et zinguerie,Enveloppe,2,Q,2020-01-01,2021-12-31,Oui
ELECTRICITE ARMORICAINE,38347481400021,5 av Jean Jaures,35000,Rennes,,,02 99 00 00 03,elec@armor.bzh,https://armor.bzh,Qualifelec,Pompe à chaleur : chauffage,Chauffage,3,Q,2023-01-01,2099-06-30,Oui
`;

describe('company directory', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  let connectors: Client;

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'companies-'));
    const silent = () => ({ update: () => undefined, stop: () => undefined });
    for (const [source, name, content] of [
      ['sirene-unites', 'ul.csv', UNITS],
      ['sirene-etablissements', 'etab.csv', ESTABLISHMENTS],
      ['rge', 'rge.csv', RGE],
    ] as const) {
      writeFileSync(join(dir, name), content);
      await importFile(svc.db, IMPORTERS[source] as never, join(dir, name), { progress: silent });
    }
    connectors = await mcpClient(`${svc.url}/api/mcp/connectors`, svc.token);
  });
  after(async () => {
    await connectors.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives a company by SIREN: the head office, exactly the spec’s fields, RGE in force only, own permalink', async () => {
    const { status, json } = await svc.rest('entreprises.get', { siren: '732829320' });
    expect(status).to.equal(200);
    expect(json.total_estimated).to.equal(1);
    expect(json.next_cursor).to.equal(null);
    const record = json.results[0];
    expect(Object.keys(record).sort()).to.deep.equal(['fields', 'id', 'resume', 'titre']);
    expect(Object.keys(record.fields).sort()).to.deep.equal(SPEC_FIELDS);
    expect(record.id).to.equal('732829320');
    expect(record.titre).to.equal('Charpentes du Léon');
    expect(record.fields).to.include({
      siren: '732829320',
      siret: '73282932000018',
      raison_sociale: 'Charpentes du Léon',
      nom_commercial: 'Toitures du Léon',
      code_naf: '43.91B',
      libelle_naf: 'Travaux de couverture par éléments',
      ville: 'LANDERNEAU',
      code_postal: '29800',
      departement: '29',
      etat: 'active',
      effectif: '10 à 19 salariés',
      forme_juridique: 'Société à responsabilité limitée (sans autre indication)',
      categorie: 'PME',
      est_rge: true,
      nombre_certifications_actives: 1,
      rge_date_fin: '2099-12-31',
      raison_sociale_connue: true,
      capital_social_eur: null,
      url: `${svc.url}/entreprises/732829320`,
    });
    // The expired certification of the head office does not count.
    expect(record.fields.rge_domaines).to.deep.equal(['Isolation des combles perdus']);
    expect(record.fields.dirigeants).to.deep.equal([]);
    expect(record.resume).to.match(/Travaux de couverture par éléments — LANDERNEAU \(29\) — active, créée le 02\/03\/2015 — RGE/);
    const text = JSON.stringify(json);
    for (const contact of ['02 98', '@', 'toitures.bzh', 'charpentes.bzh', 'https://www']) expect(text).to.not.include(contact);
  });

  it('gives an establishment by SIRET, with its own RGE and permalink', async () => {
    const { json } = await svc.rest('entreprises.get', { siret: '73282932000026' });
    const record = json.results[0];
    expect(record.id).to.equal('73282932000026');
    expect(record.fields).to.include({ siret: '73282932000026', ville: 'BREST', nom_commercial: 'Toitures du Léon', url: `${svc.url}/etablissements/73282932000026` });
    expect(record.fields.rge_domaines).to.deep.equal(['Isolation des combles perdus']);
  });

  it('names an individual entrepreneur, and says a ceased company is ceased', async () => {
    expect((await svc.rest('entreprises.get', { siren: '552032534' })).json.results[0].fields).to.include({ raison_sociale: 'Yann MORVAN', forme_juridique: 'Entrepreneur individuel' });
    expect((await svc.rest('entreprises.get', { siren: '419223004' })).json.results[0].fields.etat).to.equal('cessee');
  });

  it('answers an unknown company with empty results, and refuses bad arguments naming them', async () => {
    expect((await svc.rest('entreprises.get', { siren: '999999999' })).json).to.include({ total_estimated: 0 }).and.have.property('results').that.deep.equals([]);
    const none = await svc.rest('entreprises.get', {});
    expect(none.status).to.equal(400);
    expect(none.json.error.message).to.match(/« siren » ou « siret »/);
    // A SIRET of another company: no establishment of this one, as for an unknown company.
    const mismatch = await svc.rest('entreprises.get', { siren: '732829320', siret: '38347481400021' });
    expect(mismatch.json).to.include({ total_estimated: 0 }).and.have.property('results').that.deep.equals([]);
    const pattern = await svc.rest('entreprises.get', { siren: '12345' });
    expect(pattern.json.error).to.include({ code: 'invalid_arguments' });
    expect(pattern.json.error.message).to.include('« siren »');
  });

  it('serves the same record through annuaire_entreprises on the connectors address', async () => {
    const rest = await svc.rest('entreprises.get', { siren: '383474814' });
    const mcp = await connectors.callTool({ name: 'annuaire_entreprises', arguments: { siren: '383474814' } });
    expect(mcp.structuredContent).to.deep.equal(rest.json);
    const error = await connectors.callTool({ name: 'annuaire_entreprises', arguments: {} });
    expect(error.isError).to.equal(true);
    expect((error._meta as Record<string, { code: string; message: string }>)['service/error']).to.include({ code: 'invalid_arguments' });
  });

  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id);

  it('searches by words with accents and case folded, in names, activities and towns', async () => {
    expect(ids((await svc.rest('entreprises.search', { query: 'electricite' })).json)).to.deep.equal(['383474814']);
    expect(ids((await svc.rest('entreprises.search', { query: 'BREST' })).json).sort()).to.deep.equal(['732829320', '801234567']);
    expect(ids((await svc.rest('entreprises.search', { query: 'couverture landerneau' })).json)).to.deep.equal(['732829320']);
    expect(ids((await svc.rest('entreprises.search', { query: 'couverture, electricite' })).json).sort()).to.deep.equal(['383474814', '732829320']);
  });

  it('filters by NAF code or prefix, department, RGE, RGE domain, size band; active companies unless told otherwise', async () => {
    expect(ids((await svc.rest('entreprises.search', { naf: ['43.91B'] })).json)).to.deep.equal(['732829320']);
    expect(ids((await svc.rest('entreprises.search', { naf: ['43.91B'], actives: false })).json).sort()).to.deep.equal(['419223004', '732829320']);
    expect(ids((await svc.rest('entreprises.search', { naf: ['43'] })).json).sort()).to.deep.equal(['383474814', '552032534', '732829320']);
    expect(ids((await svc.rest('entreprises.search', { localisation: { dept: '29' } })).json).sort()).to.deep.equal(['732829320', '801234567']);
    expect(ids((await svc.rest('entreprises.search', { rge: true })).json).sort()).to.deep.equal(['383474814', '732829320']);
    expect(ids((await svc.rest('entreprises.search', { domaine_rge: 'pompe a chaleur' })).json)).to.deep.equal(['383474814']);
    expect(ids((await svc.rest('entreprises.search', { domaine_rge: 'zinguerie' })).json)).to.deep.equal([]);
    expect(ids((await svc.rest('entreprises.search', { effectif: ['21'] })).json)).to.deep.equal(['801234567']);
    expect(ids((await svc.rest('entreprises.search', { query: 'brest', localisation: { dept: '29' }, naf: ['41'] })).json)).to.deep.equal(['801234567']);
  });

  it('pages with cursors that give the whole list, and refuses forged or reused cursors', async () => {
    const all = await svc.rest('entreprises.search', { naf: ['41', '43'], actives: false, limit: 50 });
    expect(all.json.total_estimated).to.equal(5);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { results: { id: string }[]; next_cursor: string | null } } = await svc.rest('entreprises.search', { naf: ['41', '43'], actives: false, limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...ids(page.json));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).to.deep.equal(ids(all.json));
    const first = await svc.rest('entreprises.search', { naf: ['41', '43'], actives: false, limit: 2 });
    const reused = await svc.rest('entreprises.search', { naf: ['43'], actives: false, limit: 2, cursor: first.json.next_cursor });
    expect(reused.status).to.equal(400);
    expect(reused.json.error.code).to.equal('invalid_cursor');
    const forged = await svc.rest('entreprises.search', { naf: ['41', '43'], actives: false, limit: 2, cursor: 'eyJvZmZzZXQiOjJ9.abc' });
    expect(forged.json.error.code).to.equal('invalid_cursor');
  });
});
