// Competitors (concurrents.search) and reference prices (prix.stats): who wins a market and the distribution of its awarded amounts, ranked and bounded, the same on REST and MCP and on both databases.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { ARMOR, FINISTERE, importAnalysesData, LEON } from './fixtures.js';

describe('concurrents.search and prix.stats', function () {
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

  it('ranks the winners of CPV prefixes and departments, with their share and typical amounts', async () => {
    const { status, json } = await svc.rest('concurrents.search', { cpv: ['452'], departements: ['29'] });
    expect(status).to.equal(200);
    expect(json).to.include({ attributions_total: 5, titulaires_total: 2, tronque: false });
    expect(json.concurrents).to.deep.equal([
      {
        siren: LEON,
        denomination: 'CHARPENTES DU LEON',
        marches_gagnes: 3,
        part: 0.6,
        montant_total: 170000,
        montants: { nombre: 3, minimum: 20000, q1: 35000, mediane: 50000, q3: 75000, maximum: 100000, moyenne: 56666.67 },
        derniere_attribution: '2024-02-15',
        url: `${svc.url}/entreprises/${LEON}`,
      },
      {
        siren: ARMOR,
        denomination: 'ELECTRICITE ARMORICAINE',
        marches_gagnes: 2,
        part: 0.4,
        montant_total: 80000,
        montants: { nombre: 2, minimum: 10000, q1: 25000, mediane: 40000, q3: 55000, maximum: 70000, moyenne: 40000 },
        derniere_attribution: '2024-05-01',
        url: `${svc.url}/entreprises/${ARMOR}`,
      },
    ]);
    const capped = await svc.rest('concurrents.search', { cpv: ['452'], departements: ['29'], limit: 1 });
    expect(capped.json.concurrents.map((c: { siren: string }) => c.siren)).to.deep.equal([LEON]);
    expect(capped.json.titulaires_total).to.equal(2);
  });

  it('analyses a buyer alone, a co-won contract counting for each winner, and a notification window', async () => {
    const { json } = await svc.rest('concurrents.search', { acheteur_siret: FINISTERE });
    expect(json.attributions_total).to.equal(2);
    expect(json.concurrents.map((c: { siren: string; marches_gagnes: number }) => [c.siren, c.marches_gagnes])).to.deep.equal([
      [ARMOR, 2],
      [LEON, 1],
    ]);
    const window = await svc.rest('concurrents.search', { cpv: ['452'], region: '53', notifie_depuis: '2024-01-01', notifie_avant: '2024-12-31' });
    expect(window.json.concurrents.map((c: { siren: string; marches_gagnes: number }) => [c.siren, c.marches_gagnes])).to.deep.equal([
      [ARMOR, 2],
      [LEON, 1],
    ]);
  });

  it('refuses a competitors analysis without CPV nor buyer, in French', async () => {
    const { status, json } = await svc.rest('concurrents.search', { departements: ['29'] });
    expect(status).to.equal(400);
    expect(json.error.code).to.equal('invalid_arguments');
    expect(json.error.message).to.match(/« cpv ».*« acheteur_siret »/);
    const viaMcp = await mcp.callTool({ name: 'concurrents_analyser', arguments: { departements: ['29'] } });
    expect(viaMcp.isError).to.equal(true);
    expect(JSON.stringify(viaMcp.content)).to.include(json.error.message.slice(0, 40));
  });

  it('gives the distribution of awarded amounts, in total and by year', async () => {
    const { status, json } = await svc.rest('prix.stats', { cpv: ['4545'] });
    expect(status).to.equal(200);
    expect(json.distribution).to.deep.equal({ nombre: 3, minimum: 5000, q1: 25000, mediane: 45000, q3: 147500, maximum: 250000, moyenne: 100000 });
    expect(json.par_annee.map((y: { annee: number; distribution: { mediane: number } }) => [y.annee, y.distribution.mediane])).to.deep.equal([
      [2022, 45000],
      [2025, 250000],
      [2026, 5000],
    ]);
    expect(json).to.include({ attributions_total: 3, tronque: false });
    expect(json._meta.methode_quantiles).to.match(/Hyndman et Fan/);
    const region = await svc.rest('prix.stats', { cpv: ['452', '4531'], region: '53' });
    expect(region.json.distribution).to.deep.equal({ nombre: 6, minimum: 10000, q1: 22500, mediane: 40000, q3: 65000, maximum: 100000, moyenne: 46666.67 });
    const none = await svc.rest('prix.stats', { cpv: ['99'] });
    expect(none.json.distribution).to.deep.equal({ nombre: 0, minimum: null, q1: null, mediane: null, q3: null, maximum: null, moyenne: null });
    expect(none.json.par_annee).to.deep.equal([]);
  });

  it('refuses reference prices without CPV, naming the argument', async () => {
    const { status, json } = await svc.rest('prix.stats', { departements: ['29'] });
    expect(status).to.equal(400);
    expect(json.error.message).to.match(/cpv/);
  });

  it('answers the same through concurrents_analyser and prix_reference', async () => {
    for (const [tool, operation, args] of [
      ['concurrents_analyser', 'concurrents.search', { cpv: ['45'], limit: 5 }],
      ['prix_reference', 'prix.stats', { cpv: ['45'], departements: ['29', '56'] }],
    ] as const) {
      const viaMcp = await mcp.callTool({ name: tool, arguments: args });
      expect(viaMcp.isError).to.not.equal(true);
      expect(viaMcp.structuredContent).to.deep.equal((await svc.rest(operation, args)).json);
    }
  });
});
