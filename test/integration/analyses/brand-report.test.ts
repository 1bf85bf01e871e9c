// The market-brand report (marque.rapport / marque_rapport): the figures of a company's wins, the same on REST and MCP, open to the subscribed plan or a granted eligible access only, printable through its permalink.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { importAnalysesData, LEON, QUIMPER } from './fixtures.js';

describe('marque.rapport', function () {
  this.timeout(30000);
  let svc: TestService;
  let mcp: Client;

  before(async () => {
    svc = await startTestService();
    await importAnalysesData(svc.db);
    mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
  });
  after(async () => {
    await mcp.close();
    await svc.close();
  });

  it('reports wins by year, buyers, CPV groups, departments, streaks, market shares and RGE domains', async () => {
    const { status, json } = await svc.rest('marque.rapport', { siren: LEON });
    expect(status).to.equal(200);
    expect(json.results).to.have.length(1);
    const r = json.results[0];
    expect(r.id).to.equal(LEON);
    expect(r.titre).to.equal('Rapport de marque — Charpentes du Léon');
    const f = r.fields;
    expect(f).to.include({ siren: LEON, raison_sociale: 'Charpentes du Léon', marches_gagnes: 4, montant_total: 200000, tronque: false });
    expect(f.periode).to.deep.equal({ debut: '2021-04-01', fin: '2025-09-01' });
    expect(f.par_annee).to.deep.equal([
      { annee: 2021, nombre: 1, montant_total: 20000 },
      { annee: 2023, nombre: 1, montant_total: 100000 },
      { annee: 2024, nombre: 1, montant_total: 50000 },
      { annee: 2025, nombre: 1, montant_total: 30000 },
    ]);
    expect(f.series).to.deep.equal([
      { debut: 2021, fin: 2021, annees: 1 },
      { debut: 2023, fin: 2025, annees: 3 },
    ]);
    expect(f.acheteurs).to.deep.equal([
      { acheteur_id: QUIMPER, nom: 'Commune de Quimper', nombre: 3, montant_total: 170000 },
      { acheteur_id: '22290001700012', nom: 'Département du Finistère', nombre: 1, montant_total: 30000 },
    ]);
    expect(f.familles_cpv).to.deep.equal([
      { famille: '452', libelle: 'Travaux de construction complète ou partielle et travaux de génie civil', nombre: 3, montant_total: 170000 },
      { famille: '453', libelle: "Travaux d'équipement du bâtiment", nombre: 1, montant_total: 30000 },
    ]);
    expect(f.departements).to.deep.equal([
      { departement: '29', nombre: 3, montant_total: 170000 },
      { departement: '35', nombre: 1, montant_total: 30000 },
    ]);
    // 452 in 29: its 3 wins among the 5 awards of the group there (another winner's 2 included).
    expect(f.parts).to.deep.equal([
      { famille: '452', departement: '29', gagnes: 3, attributions: 5, part: 0.6 },
      { famille: '453', departement: '35', gagnes: 1, attributions: 1, part: 1 },
    ]);
    // The expired certification is left out.
    expect(f.rge_domaines).to.deep.equal(['Isolation des combles perdus']);
    expect(f.url).to.equal(`${svc.url}/rapports/marque/${LEON}`);
    // Neither register, accounts nor BODACC imported for it: the record's empty values.
    expect(f).to.deep.include({ capital_social_eur: null, dirigeants: [], evolution_ca: [], procedures_collectives: [] });
    expect(r.resume).to.match(/^4 marchés gagnés pour 200\s000 € entre le 2021-04-01 et le 2025-09-01, surtout en CPV 452 et dans le département 29 ; plus longue série : 3 années consécutives ; 1 domaine RGE en cours\.$/u);
  });

  it('restricts the report and the shares to the notification window', async () => {
    const { json } = await svc.rest('marque.rapport', { siren: LEON, notifie_depuis: '2024-01-01', notifie_avant: '2024-12-31' });
    const f = json.results[0].fields;
    expect(f.marches_gagnes).to.equal(1);
    expect(f.par_annee).to.deep.equal([{ annee: 2024, nombre: 1, montant_total: 50000 }]);
    expect(f.parts).to.deep.equal([{ famille: '452', departement: '29', gagnes: 1, attributions: 3, part: 0.3333 }]);
  });

  it('answers an empty list for a SIREN nobody knows, and refuses a malformed one in French', async () => {
    expect((await svc.rest('marque.rapport', { siren: '999999999' })).json.results).to.deep.equal([]);
    const bad = await svc.rest('marque.rapport', { siren: '12345' });
    expect(bad.status).to.equal(400);
    expect(bad.json.error.code).to.equal('invalid_arguments');
    expect(bad.json.error.message).to.match(/siren/);
  });

  it('gives the same answer through the MCP tool marque_rapport', async () => {
    const rest = await svc.rest('marque.rapport', { siren: LEON });
    const viaMcp = await mcp.callTool({ name: 'marque_rapport', arguments: { siren: LEON } });
    expect(viaMcp.isError).to.not.equal(true);
    expect(viaMcp.structuredContent).to.deep.equal(rest.json);
  });

  it('opens to the subscribed plan or a granted eligible access, and refuses the free plan naming both', async () => {
    const organisation = `Org rapport ${Date.now()}`;
    const account = await svc.createAccount({ organisation, plan: 'free' });
    await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 100_000, callsPerDay: 100_000 });
    const token = await svc.tokenFor(account, 'mcp:read');
    const refused = await svc.rest('marque.rapport', { siren: LEON }, { token });
    expect(refused.status).to.equal(403);
    expect(refused.json.error.code).to.equal('access_denied');
    expect(refused.json.error.message).to.match(/formule abonnée.*accès éligible/);
    const client = await mcpClient(`${svc.url}/api/mcp`, token);
    try {
      const viaMcp = await client.callTool({ name: 'marque_rapport', arguments: { siren: LEON } });
      expect(viaMcp.isError).to.equal(true);
      expect(JSON.stringify(viaMcp.content)).to.match(/accès éligible/);
      await setOrganisationPlan(svc.db, organisation, { eligibleAccess: true });
      const granted = await svc.rest('marque.rapport', { siren: LEON }, { token });
      expect(granted.status).to.equal(200);
      expect(granted.json.results[0].fields.marches_gagnes).to.equal(4);
    } finally {
      await client.close();
    }
  });

  it('prints the report on its permalink for a signed-in account, as a readable page', async () => {
    const jar = new CookieJar();
    const next = `/rapports/marque/${LEON}`;
    const login = await follow(`${svc.url}/compte/connexion?suite=${encodeURIComponent(next)}`, jar);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: svc.account.email, password: svc.account.password });
    const page = await follow(new URL(action, login.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(page.res.status).to.equal(200);
    const html = await page.res.text();
    expect(html).to.include('Rapport de marque — Charpentes du Léon');
    expect(html).to.match(/<strong>4 marchés gagnés<\/strong> notifiés entre le 01\/04\/2021 et le 01\/09\/2025, pour <strong>200\s000 €<\/strong>/u);
    expect(html).to.match(/<tr><td>2023<\/td><td class="nombre">1<\/td><td class="nombre">100\s000 €<\/td><\/tr>/u);
    expect(html).to.include(`<a href="/acheteurs/${QUIMPER}">Commune de Quimper</a>`);
    expect(html).to.include('<li>2023 à 2025 (3 années)</li>');
    expect(html).to.match(/<td>452<\/td><td>29<\/td><td class="nombre">3<\/td><td class="nombre">5<\/td><td class="nombre">60 %<\/td>/);
    expect(html).to.include('Isolation des combles perdus');
    expect(html).to.include('Aucun dirigeant connu').and.include('Aucun compte annuel publié connu').and.include(`href="/entreprises/${LEON}"`);
    // No field name shown as a label.
    expect(html).to.not.match(/marches_gagnes|montant_total|par_annee|rge_domaines/);
    expect(html).to.not.match(/02 98|@charpentes|toitures\.bzh/);
  });
});
