// The company record in full (issue 18): officers and capital from RNE files, accounts from the real ratios BCE/INPI samples; bad rows reported, idempotent, a newer filing wins, confidential accounts and anything beyond an officer's year of birth never shown, the same on REST and MCP.
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import yazl from 'yazl';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { importFile, type ImportReport } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { rneCompany, rneCompanyOfficer as company, rnePerson as person } from '../../helpers/company-sources.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SAMPLES = join(import.meta.dirname, '../../../../shared/real-samples/ratios');

const UNITS = `siren,dateCreationUniteLegale,trancheEffectifsUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,nomUniteLegale,prenom1UniteLegale,denominationUniteLegale,denominationUsuelle1UniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale,categorieEntreprise
552032534,1955-01-01,53,2026-01-10,A,,,DANONE,,5599,43.99C,00016,GE
328847397,1984-01-01,01,2026-01-10,A,,,JPL LACOSTE,,5499,43.91B,00018,PME
511278533,2009-01-01,21,2026-01-10,A,,,3MEDIA,,5710,43.21A,00011,PME
732829320,2015-03-02,11,2026-01-10,A,,,Charpentes du Léon,,5499,43.91B,00018,PME
`;

describe('company record: officers, capital, accounts', function () {
  this.timeout(60000);
  let svc: TestService;
  let dir: string;
  let mcp: Client;
  const silent = () => ({ update: () => undefined, stop: () => undefined });
  const run = (source: string, path: string): Promise<ImportReport> => importFile(svc.db, IMPORTERS[source] as never, path, { progress: silent });
  const get = async (siren: string) => (await svc.rest('entreprises.get', { siren })).json.results[0];

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'company-records-'));
    writeFileSync(join(dir, 'ul.csv'), UNITS);
    await run('sirene-unites', join(dir, 'ul.csv'));
    mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
  });
  after(async () => {
    await mcp.close();
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports the real ratios samples (Opendatasoft v1) as published, and an empty answer imports nothing', async () => {
    for (const name of ['ratios_inpi_bce-v1-search-552032534-danone.json', 'ratios_inpi_bce-v1-search-328847397-cut-by-repo.json', 'ratios_inpi_bce-v1-search-511278533-cut-by-repo.json']) {
      const report = await run('ratios', join(SAMPLES, name));
      expect(report.skipped, name).to.equal(0);
      expect(report.inserted, name).to.equal(report.read);
    }
    expect((await run('ratios', join(SAMPLES, 'ratios_inpi_bce-v1-search-empty-889297453.json'))).read).to.equal(0);
    const danone = await get('552032534');
    const years = danone.fields.evolution_ca as Record<string, unknown>[];
    // 13 records over 2017-2022 closing dates: one element per closing date, newest first, the company's own (C) accounts.
    expect(years.map((y) => y.exercice)).to.deep.equal([...years.map((y) => y.exercice as string)].sort().reverse());
    expect(new Set(years.map((y) => y.exercice)).size).to.equal(years.length);
    expect(years[0]).to.deep.include({ exercice: '2022-12-31', type_bilan: 'C', chiffre_affaires: 635000000, resultat_net: 3674000000, comptes_confidentiels: false, duree_mois: 12, variation_ca_pct: 0 });
    // 3MEDIA 2020: a turnover 100 times its gross margin, shown as published.
    const media = (await get('511278533')).fields.evolution_ca as Record<string, unknown>[];
    expect(media).to.deep.equal([
      { exercice: '2021-12-31', duree_mois: 12, type_bilan: 'C', comptes_confidentiels: false, chiffre_affaires: 15711568, resultat_net: -1147009, marge_brute: 15711568, ebe: -1438048, variation_ca_pct: -99.1 },
      { exercice: '2020-12-31', duree_mois: null, type_bilan: 'C', comptes_confidentiels: false, chiffre_affaires: 1718850200, resultat_net: 760061, marge_brute: 17188502, ebe: 1549389, variation_ca_pct: null },
    ]);
  });

  it('reads the CSV export (BOM, `;`, gzipped) and the v2.1 shape; reports bad rows; hides confidential accounts; is idempotent', async () => {
    const header = 'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality';
    const row = (siren: string, date: string, ca: string, rn: string, conf: string) => `${siren};${date};${ca};;;;${rn};;;;;;;;;;;;;;;S;${conf}`;
    const csv = `\uFEFF${header}\n${[
      row('732829320', '2023-12-31', '1200000', '80000', 'Public'),
      row('732829320', '2024-12-31', '1500000', '95000', 'Public'),
      row('732829320', '2025-12-31', '999999', '1', 'Confidentiel'),
      row('73282932', '2024-12-31', '1', '1', 'Public'),
      row('732829320', '31/13/2024', '1', '1', 'Public'),
      row('732829320', '2022-12-31', 'beaucoup', '1', 'Public'),
    ].join('\n')}\n`;
    writeFileSync(join(dir, 'ratios.csv.gz'), gzipSync(Buffer.from(csv)));
    const first = await run('ratios', join(dir, 'ratios.csv.gz'));
    expect(first).to.include({ read: 6, inserted: 3, skipped: 3 });
    expect(first.problems.map((p) => p.reason)).to.deep.equal([
      'SIREN absent ou invalide (73282932)',
      'date de clôture absente ou illisible (31/13/2024)',
      'valeur illisible dans « chiffre_d_affaires »',
    ]);
    const again = await run('ratios', join(dir, 'ratios.csv.gz'));
    expect(again).to.include({ inserted: 0, updated: 3, skipped: 3 });
    expect(await svc.db('company_accounts').where({ siren: '732829320' }).count({ n: '*' }).first()).to.satisfy((r: { n: unknown }) => Number(r.n) === 3);
    // The confidential year keeps no figure, in the database nor on the record.
    const stored = await svc.db('company_accounts').where({ siren: '732829320', date_cloture: '2025-12-31' }).first();
    expect(stored.chiffre_affaires).to.equal(null);
    const years = (await get('732829320')).fields.evolution_ca as Record<string, unknown>[];
    expect(years[0]).to.deep.equal({ exercice: '2025-12-31', duree_mois: 12, type_bilan: 'S', comptes_confidentiels: true, chiffre_affaires: null, resultat_net: null, marge_brute: null, ebe: null, variation_ca_pct: null });
    expect(years[1]).to.include({ exercice: '2024-12-31', chiffre_affaires: 1500000, variation_ca_pct: 25 });
    expect(JSON.stringify(await get('732829320'))).to.not.include('999999');

    writeFileSync(join(dir, 'v21.json'), JSON.stringify({ total_count: 1, results: [{ siren: '328847397', date_cloture_exercice: '2023-12-31', chiffre_d_affaires: 30000, resultat_net: 5000, type_bilan: 'S', confidentiality: 'Public' }] }));
    expect(await run('ratios', join(dir, 'v21.json'))).to.include({ read: 1, inserted: 1 });
    expect(((await get('328847397')).fields.evolution_ca as Record<string, unknown>[])[0]).to.include({ exercice: '2023-12-31', chiffre_affaires: 30000, marge_brute: null, variation_ca_pct: 25.7 });
  });

  it('imports RNE companies (array, JSON lines, zip of JSON files): officers and capital, bad records reported, a newer filing wins, idempotent', async () => {
    const older = rneCompany('552032534', '2023-01-10T09:00:00Z', [person('ANCIEN', ['Paul'], '73', '1950-01-02')], {}, 1000);
    const current = rneCompany('552032534', '2024-06-01T09:00:00Z', [person('DUPONT', ['Jeanne', 'Marie'], '73', '1970-04-17'), company('328847397', 'JPL LACOSTE', '71'), { ...person('PARTI', ['Luc'], '30', '1960-02'), actif: false }], {}, 2500000.5);
    writeFileSync(join(dir, 'rne.json'), JSON.stringify([current, { formality: { siren: '12' } }, 'texte']));
    const first = await run('rne', join(dir, 'rne.json'));
    expect(first).to.include({ read: 3, inserted: 1, skipped: 2 });
    expect(first.problems.map((p) => p.reason)).to.deep.equal(['pas de formalité (« formality.content ») dans l’enregistrement', 'élément de la liste qui n’est pas un objet']);
    // An older filing read later never replaces the newer one; the same filing again changes nothing.
    writeFileSync(join(dir, 'rne.jsonl'), `${JSON.stringify(older)}\n${JSON.stringify(current)}\n`);
    expect(await run('rne', join(dir, 'rne.jsonl'))).to.include({ read: 2, inserted: 0, kept: 1, updated: 1 });
    const record = await get('552032534');
    expect(record.fields.capital_social_eur).to.equal(2500000.5);
    expect(record.fields.dirigeants).to.deep.equal([
      { type: 'personne_physique', nom: 'DUPONT', prenoms: 'Jeanne Marie', qualite: 'Président', annee_naissance: 1970, siren: null, denomination: null, url: null },
      { type: 'personne_morale', nom: 'JPL LACOSTE', prenoms: null, qualite: 'Commissaire aux comptes titulaire', annee_naissance: null, siren: '328847397', denomination: 'JPL LACOSTE', url: `${svc.url}/entreprises/328847397` },
    ]);
    // The stock: a zip of JSON files (arrays), read one after the other; a non-diffusible company keeps its company officers only.
    const zipPath = join(dir, 'stock.zip');
    await new Promise<void>((resolve) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from('notice'), 'LISEZMOI.txt');
      zip.addBuffer(Buffer.from(JSON.stringify([older])), 'stock_000001.json');
      zip.addBuffer(
        Buffer.from(JSON.stringify([rneCompany('511278533', '2024-02-02', [person('SECRET', ['Anne'], '30', '1980-05-05'), company('552032534', 'DANONE', '65')], { diffusionCommerciale: false })])),
        'stock_000002.json',
      );
      zip.end();
      zip.outputStream.pipe(createWriteStream(zipPath)).on('close', () => resolve());
    });
    const stock = await run('rne', zipPath);
    expect(stock).to.include({ read: 2, inserted: 1, kept: 1 });
    expect(stock.notes).to.deep.equal({ 'dirigeant personne physique non diffusé (diffusion commerciale refusée)': 1 });
    expect((await get('552032534')).fields.dirigeants[0].nom).to.equal('DUPONT');
    expect((await get('511278533')).fields.dirigeants.map((o: { nom: string }) => o.nom)).to.deep.equal(['DANONE']);
  });

  it('never shows more than the year of birth nor any address, on every tool returning a company, the same on REST and MCP', async () => {
    const calls: [string, string, Record<string, unknown>][] = [
      ['entreprises.get', 'annuaire_entreprises', { siren: '552032534' }],
      ['entreprises.search', 'annuaire_entreprises_rechercher', { query: 'danone' }],
      ['entreprises.search', 'annuaire_entreprises_rechercher', { dirigeants_connus: true, limit: 50 }],
      ['marque.rapport', 'marque_rapport', { siren: '552032534' }],
    ];
    for (const [operation, tool, args] of calls) {
      const rest = await svc.rest(operation, args);
      expect(rest.status, operation).to.equal(200);
      const viaMcp = await mcp.callTool({ name: tool, arguments: args });
      expect(viaMcp.structuredContent, tool).to.deep.equal(rest.json);
      const text = JSON.stringify(viaMcp);
      for (const secret of ['1970-04', '04/1970', 'MOUETTES', 'PLOUGONVELIN', '29217', 'SECRET', 'ANCIEN', 'PARTI', 'dateDeNaissance', 'adresseDomicile']) expect(text, `${tool} ${secret}`).to.not.include(secret);
    }
  });

  it('shows in the brand report exactly the officers, capital, accounts and proceedings of the record', async () => {
    const record = (await get('552032534')).fields;
    expect(record.dirigeants).to.not.be.empty;
    expect(record.evolution_ca).to.not.be.empty;
    const report = (await svc.rest('marque.rapport', { siren: '552032534' })).json.results[0];
    for (const key of ['capital_social_eur', 'dirigeants', 'evolution_ca', 'procedures_collectives']) expect(report.fields[key], key).to.deep.equal(record[key]);
    const latest = record.evolution_ca[0];
    const turnover = latest.comptes_confidentiels ? `comptes ${latest.exercice.slice(0, 4)} confidentiels` : `chiffre d’affaires ${latest.exercice.slice(0, 4)} :`;
    expect(report.resume).to.include(turnover).and.include(`${record.dirigeants.length} dirigeant`);
  });

  it('filters searches by the latest turnover band and by known officers', async () => {
    const sirens = async (args: Record<string, unknown>) => ((await svc.rest('entreprises.search', args)).json.results as { id: string }[]).map((r) => r.id).sort();
    expect(await sirens({ chiffre_affaires_min: 1_000_000 })).to.deep.equal(['511278533', '552032534']);
    expect(await sirens({ chiffre_affaires_min: 10_000, chiffre_affaires_max: 100_000 })).to.deep.equal(['328847397']);
    // The latest year of 732829320 is confidential: no band matches it.
    expect(await sirens({ chiffre_affaires_min: 0 })).to.not.include('732829320');
    expect(await sirens({ dirigeants_connus: true })).to.deep.equal(['511278533', '552032534']);
    expect(await sirens({ dirigeants_connus: false })).to.deep.equal(['328847397', '732829320']);
  });

  it('keeps the real samples untouched (read from ../shared, never copied)', () => {
    expect(readFileSync(join(SAMPLES, 'ratios_inpi_bce-v1-search-552032534-danone.json'), 'utf8')).to.match(/^\{"nhits":13,/);
  });
});
