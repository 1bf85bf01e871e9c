// The RGE list reads as the data-fair API answers it and as its CSV export, one certification per SIRET, domain and body (rows of each qualification grouped); a file of neither layout says the layouts understood; a company known only by its RNE entry is shown from the register's identity (never an individual's address), found by the searches as a SIRENE one until its unit comes, and counted in the import's notes.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { importFailure, importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { RGE_LAYOUTS } from '../../../src/domains/companies/import-rge.js';
import { RNE_ONLY_NOTE } from '../../../src/domains/companies/import-rne.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { mcpClient } from '../../helpers/mcp.js';
import { Contract } from '../../../src/contract/runtime.js';

const contract = Contract.load();

const silent = () => ({ update: () => undefined, stop: () => undefined });
const SIRET = '38347481400021';
// Rows of the data-fair answer (dataset liste-des-entreprises-rge-2): one per SIRET and qualification, contact columns included.
const row = (code: string, nom: string, domaine: string, debut: string, fin: string) => ({
  siret: SIRET,
  nom_entreprise: 'ELECTRICITE ARMORICAINE',
  adresse: '12 rue de Siam',
  code_postal: '29200',
  commune: 'Brest',
  latitude: 48.39,
  longitude: -4.49,
  telephone: '0298000000',
  email: 'contact@exemple.fr',
  site_internet: 'https://exemple.fr',
  code_qualification: code,
  nom_qualification: nom,
  url_qualification: null,
  nom_certificat: nom,
  domaine,
  meta_domaine: 'Travaux d’efficacité énergétique',
  organisme: 'qualifelec',
  particulier: true,
  lien_date_debut: debut,
  lien_date_fin: fin,
  _id: `${SIRET}-${code}`,
  _score: null,
});
const API_ANSWER = {
  total: 3,
  next: 'https://data.ademe.fr/data-fair/api/v1/datasets/liste-des-entreprises-rge-2/lines?size=3&after=1',
  results: [
    row('8611', 'QUALIFELEC RGE Photovoltaïque', 'Panneaux photovoltaïques', '2025-01-10', '2029-01-09'),
    row('8612', 'QUALIFELEC RGE Photovoltaïque Pro', 'Panneaux photovoltaïques', '2024-06-01', '2028-05-31'),
    row('8620', 'QUALIFELEC RGE Borne', 'Borne de recharge', '2025-03-01', '2026-02-28'),
  ],
};

describe('RGE in its API and CSV layouts, companies known by the RNE alone', function () {
  this.timeout(60000);
  let svc: TestService;
  let dir: string;
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const certifications = () => svc.db('rge_certifications').where({ siret: SIRET }).orderBy('domaine').select('domaine', 'code_qualification', 'date_debut', 'date_fin');

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'company-formats-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the data-fair answer: one certification per domain and body, the qualifications grouped, nothing of the contacts', async () => {
    const report = await importFile(svc.db, IMPORTERS.rge as never, file('rge.json', JSON.stringify(API_ANSWER)), { progress: silent });
    expect(report).to.include({ read: 3, skipped: 0 });
    expect(await certifications()).to.deep.equal([
      { domaine: 'Borne de recharge', code_qualification: '8620', date_debut: '2025-03-01', date_fin: '2026-02-28' },
      { domaine: 'Panneaux photovoltaïques', code_qualification: '8611 ; 8612', date_debut: '2024-06-01', date_fin: '2029-01-09' },
    ]);
    expect(JSON.stringify(await svc.db('rge_certifications').select('*'))).to.not.match(/0298000000|contact@exemple|exemple\.fr/);
  });

  it('groups one SIRET’s rows arriving in separate batches of one import', async () => {
    await svc.db('rge_certifications').delete();
    await importFile(svc.db, IMPORTERS.rge as never, file('rge-batches.json', JSON.stringify(API_ANSWER)), { progress: silent, batchSize: 1 });
    expect((await certifications()).map((c) => c.code_qualification)).to.deep.equal(['8620', '8611 ; 8612']);
  });

  it('reads the CSV export the same way, with either separator', async () => {
    await svc.db('rge_certifications').delete();
    const header = Object.keys(API_ANSWER.results[0] as object);
    const csv = (sep: string) => [header.join(sep), ...API_ANSWER.results.map((r) => header.map((h) => String((r as Record<string, unknown>)[h] ?? '')).join(sep))].join('\n');
    const report = await importFile(svc.db, IMPORTERS.rge as never, file('rge.csv', csv(',')), { progress: silent });
    expect(report).to.include({ read: 3, skipped: 0 });
    expect((await certifications()).map((c) => c.code_qualification)).to.deep.equal(['8620', '8611 ; 8612']);
    await svc.db('rge_certifications').delete();
    await importFile(svc.db, IMPORTERS.rge as never, file('rge-semicolon.csv', csv(';')), { progress: silent });
    expect(await certifications()).to.have.length(2);
  });

  it('says the layouts understood when nothing can be read', async () => {
    const report = await importFile(svc.db, IMPORTERS.rge as never, file('autre.json', JSON.stringify({ data: [{ a: 1 }] })), { progress: silent });
    expect(importFailure(report, IMPORTERS.rge?.input.layouts ?? null)).to.include(RGE_LAYOUTS).and.include('data-fair');
  });

  it('shows a company known only by its RNE entry from the register’s identity, and counts it', async () => {
    const company = {
      id: 'a1b2',
      siren: '912345678',
      updatedAt: '2026-10-02T08:00:00+02:00',
      formality: {
        siren: '912345678',
        diffusionCommerciale: true,
        content: {
          personneMorale: {
            identite: { entreprise: { siren: '912345678', denomination: 'TOITURES DE L’ODET', formeJuridique: '5499', codeApe: '4391B' }, description: { montantCapital: 10000, deviseCapital: 'EUR' } },
            adresseEntreprise: { adresse: { pays: 'FRANCE', codePostal: '29000', commune: 'QUIMPER', voie: 'DE LA GARE', numVoie: '4' } },
            composition: { pouvoirs: [{ typeDePersonne: 'INDIVIDU', roleEntreprise: '30', individu: { descriptionPersonne: { nom: 'LE GALL', prenoms: ['Yann'], dateDeNaissance: '1980-05' }, adresseDomicile: { codePostal: '29500', commune: 'ERGUE-GABERIC' } } }] },
          },
        },
      },
    };
    const individual = {
      siren: '923456789',
      formality: {
        siren: '923456789',
        diffusionCommerciale: true,
        content: {
          personnePhysique: {
            identite: { entreprise: { siren: '923456789', formeJuridique: '1000', codeApe: '4332A' }, entrepreneur: { descriptionPersonne: { nom: 'MORVAN', prenoms: ['Anne'] } } },
            adresseEntreprise: { adresse: { codePostal: '29120', commune: 'PONT-L’ABBE', voie: 'DES LILAS' } },
          },
        },
      },
    };
    const report = await importFile(svc.db, IMPORTERS.rne as never, file('rne.json', JSON.stringify([company, individual])), { progress: silent });
    expect(report).to.include({ read: 2, inserted: 2 });
    expect(report.notes[RNE_ONLY_NOTE]).to.equal(2);
    const { json } = await svc.rest('entreprises.get', { siren: '912345678' });
    expect(json.results).to.have.length(1);
    const f = json.results[0].fields;
    expect(f).to.include({ raison_sociale: 'TOITURES DE L’ODET', raison_sociale_connue: true, source_identite: 'rne', code_naf: '43.91B', code_postal: '29000', ville: 'QUIMPER', departement: '29', capital_social_eur: 10000 });
    expect(f.forme_juridique).to.be.a('string').and.not.equal(null);
    expect(json.results[0].resume).to.include('registre national des entreprises');
    expect(JSON.stringify(json)).to.not.match(/GARE|ERGUE|1980-05/);
    // An individual entrepreneur: named as the register names the business, never located by its address.
    const person = (await svc.rest('entreprises.get', { siren: '923456789' })).json.results[0].fields;
    expect(person).to.include({ raison_sociale: 'MORVAN Anne', source_identite: 'rne', code_postal: null, ville: null, adresse: null });
  });

  it('finds a company known only by its RNE entry as a SIRENE one (name, activity, office’s town, filters), never by an individual’s address; REST = MCP', async () => {
    const sirens = async (args: Record<string, unknown>) => ((await svc.rest('entreprises.search', args)).json.results as { fields: { siren: string } }[]).map((r) => r.fields.siren).sort();
    expect(await sirens({ query: 'toitures odet' })).to.deep.equal(['912345678']);
    expect(await sirens({ query: 'quimper' })).to.deep.equal(['912345678']);
    expect(await sirens({ query: 'travaux couverture' })).to.include('912345678');
    expect(await sirens({ query: 'morvan anne' })).to.deep.equal(['923456789']);
    expect(await sirens({ naf: ['43.91B'] })).to.include('912345678');
    expect(await sirens({ query: 'odet', dirigeants_connus: true })).to.deep.equal(['912345678']);
    // The individual entrepreneur's address (Pont-l’Abbé 29120) and the officer's home are nowhere in the index.
    for (const query of ['pont abbe', '29120', 'lilas', 'ergue gaberic', 'gare']) expect(await sirens({ query }), query).to.deep.equal([]);
    const rest = (await svc.rest('entreprises.search', { query: 'toitures odet' })).json;
    expect(rest.results[0].fields).to.include({ raison_sociale: 'TOITURES DE L’ODET', source_identite: 'rne', ville: 'QUIMPER', capital_social_eur: 10000 });
    expect(rest.results[0].fields.dirigeants).to.have.length(1);
    expect(rest.results[0]).to.deep.equal((await svc.rest('entreprises.get', { siren: '912345678' })).json.results[0]);
    // Followed like any company, under the register's name.
    const followed = await svc.rest('suivis.create', { cible: { type: 'entreprise', id: '912345678' } });
    expect(followed.json.suivi?.cible).to.deep.equal({ type: 'entreprise', id: '912345678', libelle: 'TOITURES DE L’ODET' });
    const mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
    try {
      const answer: any = await mcp.callTool({ name: contract.operation('entreprises.search')?.mcpTool as string, arguments: { query: 'toitures odet' } });
      expect(answer.structuredContent.results).to.deep.equal(rest.results);
    } finally {
      await mcp.close();
    }
  });

  it('an RNE file read again still counts its companies absent from SIRENE; the SIRENE unit, once imported, takes their place', async () => {
    const before = Number((await svc.db('companies').count('* as n').first())?.n);
    const again = await importFile(svc.db, IMPORTERS.rne as never, file('rne-again.json', JSON.stringify([{ siren: '912345678', formality: { siren: '912345678', content: { personneMorale: { identite: { entreprise: { siren: '912345678', denomination: 'TOITURES DE L’ODET', codeApe: '4391B' } } } } } }])), { progress: silent });
    expect(again.notes[RNE_ONLY_NOTE]).to.equal(1);
    expect(Number((await svc.db('companies').count('* as n').first())?.n)).to.equal(before);
    const units = ['siren,denominationUniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,dateCreationUniteLegale,etatAdministratifUniteLegale,dateDernierTraitementUniteLegale', '912345678,CHARPENTES DE CORNOUAILLE,5499,43.91B,2021-05-03,A,2026-10-01T00:00:00'].join('\n');
    const report = await importFile(svc.db, IMPORTERS['sirene-unites'] as never, file('unites.csv', units), { progress: silent });
    expect(report).to.include({ inserted: 1, updated: 0 });
    const found = (await svc.rest('entreprises.search', { query: 'cornouaille' })).json.results;
    expect(found.map((r: any) => [r.fields.siren, r.fields.source_identite, r.fields.raison_sociale])).to.deep.equal([['912345678', 'sirene', 'CHARPENTES DE CORNOUAILLE']]);
    expect((await svc.rest('entreprises.search', { query: 'toitures odet' })).json.results).to.deep.equal([]);
  });
});
