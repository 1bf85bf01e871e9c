// alertes.preview / alertes_apercu: what an alert's criteria would have found over the last 7 days, per source, by the robot's own matching, the same on REST and MCP, writing nothing; free plans get the counts and a smaller sample.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Contract } from '../../../src/contract/runtime.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { addAward, addDce, addNotice, iso } from '../../domains/robot/fixtures.js';

const contract = Contract.load();
const DAY = 86_400_000;

/** The answer without the window's bounds, which follow the clock of each call. */
const steady = (body: Record<string, unknown>) => ({ ...body, depuis: typeof body.depuis, jusqu_a: typeof body.jusqu_a });

describe('alert preview (issue 16)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let mcp: Client;
  const ids: Record<string, string> = {};

  before(async () => {
    svc = await startTestService();
    mcp = await mcpClient(`${svc.url}/api/mcp`, svc.token);
    const now = Date.now();
    const db = svc.db;
    ids.recent = await addNotice(db, { objet: 'Réfection de la couverture du gymnase', departements: ['35'], at: iso(now - DAY) });
    // Entered 20 minutes ago: the robot's runs would wait an hour; the preview does not.
    ids.justIn = await addNotice(db, { objet: 'Couverture en ardoise de la mairie', departements: ['35'], at: iso(now - 20 * 60_000), dateLimite: iso(now + 3 * DAY) });
    ids.older = await addNotice(db, { objet: 'Couverture zinc école', departements: ['35'], at: iso(now - 3 * DAY) });
    ids.tooOld = await addNotice(db, { objet: 'Couverture du préau', departements: ['35'], at: iso(now - 9 * DAY) });
    ids.otherDept = await addNotice(db, { objet: 'Couverture de la halle', departements: ['29'], at: iso(now - DAY) });
    ids.otherWords = await addNotice(db, { objet: 'Menuiseries extérieures', departements: ['35'], at: iso(now - DAY) });
    ids.bigAward = await addAward(db, { objet: 'Travaux de couverture', departement: '35', montant: 80_000, at: iso(now - 2 * DAY) });
    ids.smallAward = await addAward(db, { objet: 'Couverture abri vélos', departement: '35', montant: 4_000, at: iso(now - 2 * DAY) });
    ids.dce = await addDce(db, { marcheId: ids.recent, pages: ['CCTP : dépose et repose de la couverture en tuiles.'], at: iso(now - DAY) });
  });
  after(async () => {
    await mcp?.close();
    await svc?.close();
  });

  const criteria = { query: 'couverture', sources: ['marche', 'attribution', 'dce'], departements: ['35'], montant_min: 10_000 };

  it('finds per source what entered in the last 7 days and passes the rules, the most recent first, the same on REST and MCP', async () => {
    const viaRest = await svc.rest('alertes.preview', criteria);
    expect(viaRest.status, JSON.stringify(viaRest.json)).to.equal(200);
    expect(contract.outputProblem('alertes.preview', viaRest.json)).to.equal(null);
    const body = viaRest.json;
    expect(body.action).to.equal('apercu');
    expect(body.sources_surveillees).to.deep.equal(['marche', 'dce', 'attribution']);
    const bySource = Object.fromEntries(body.par_source.map((p: any) => [p.source, p]));
    expect(bySource.marche.records.map((r: any) => r.id)).to.deep.equal([ids.justIn, ids.recent, ids.older]);
    expect(bySource.marche.total).to.equal(3);
    expect(bySource.attribution.records.map((r: any) => r.id)).to.deep.equal([ids.bigAward]);
    expect(bySource.attribution.total).to.equal(1);
    expect(bySource.dce.total).to.equal(1);
    expect(bySource.dce.records[0].id).to.equal(ids.dce);
    expect(body.total).to.equal(5);
    // The notice due in 3 days would get its D-7 reminder at once.
    expect(body.rappels_echeance).to.equal(1);
    for (const r of bySource.marche.records) expect(r).to.have.all.keys('id', 'titre', 'resume', 'fields');
    expect(new Date(body.jusqu_a).getTime() - new Date(body.depuis).getTime()).to.equal(7 * DAY);
    expect(body.warnings.some((w: string) => /montant_min/.test(w))).to.equal(true);

    const viaMcp = await mcp.callTool({ name: 'alertes_apercu', arguments: criteria });
    expect(viaMcp.isError, JSON.stringify(viaMcp.content)).to.not.equal(true);
    expect(steady(viaMcp.structuredContent as Record<string, unknown>)).to.deep.equal(steady(body));
  });

  it('applies montant_min to awards: the small award is counted only without it', async () => {
    const { json } = await svc.rest('alertes.preview', { query: 'couverture', sources: ['attribution'], departements: ['35'] });
    expect(json.par_source[0].total).to.equal(2);
  });

  it('creates nothing: no alert, no event, no robot progress', async () => {
    const before = { alerts: (await svc.db('alerts')).length, events: (await svc.db('alert_events')).length, runs: (await svc.db('robot_runs')).length };
    await svc.rest('alertes.preview', criteria);
    await mcp.callTool({ name: 'alertes_apercu', arguments: criteria });
    const after = { alerts: (await svc.db('alerts')).length, events: (await svc.db('alert_events')).length, runs: (await svc.db('robot_runs')).length };
    expect(after).to.deep.equal(before);
  });

  it('gives the warnings and refusals of alertes.create, in French, on both transports', async () => {
    const args = { query: 'couverture', sources: ['dvf'] };
    const viaRest = await svc.rest('alertes.preview', args);
    expect(viaRest.status).to.equal(400);
    expect(viaRest.json.error.code).to.equal('invalid_arguments');
    expect(viaRest.json.error.message).to.match(/départements suivis.*« departements »/);
    const viaMcp = await mcp.callTool({ name: 'alertes_apercu', arguments: args });
    expect(viaMcp.isError).to.equal(true);
    expect((viaMcp.content as { text: string }[])[0]?.text).to.equal(viaRest.json.error.message);
    const create = await svc.rest('alertes.create', { name: 'Aperçu dvf', ...args });
    expect(create.json.error.message).to.equal(viaRest.json.error.message);

    const short = await svc.rest('alertes.preview', { query: ' , ' });
    expect(short.status).to.equal(400);
    expect(short.json.error.message).to.match(/« query »/);
    const unknown = await svc.rest('alertes.preview', { query: 'couverture', name: 'inutile' });
    expect(unknown.status).to.equal(400);
    expect(unknown.json.error.message).to.match(/name/);
  });

  it('is open on the free plan, read scope only, with whole counts and at most 2 records per source', async () => {
    const free = await svc.createAccount({ organisation: null });
    const token = await svc.tokenFor(free, 'mcp:read');
    const { status, json } = await svc.rest('alertes.preview', { query: 'couverture', sources: ['marche'], departements: ['35'], limit: 10 }, { token });
    expect(status, JSON.stringify(json)).to.equal(200);
    expect(json.par_source[0].total).to.equal(3);
    expect(json.par_source[0].records).to.have.length(2);
    expect(json.warnings.some((w: string) => /Formule gratuite/.test(w))).to.equal(true);
    // Subscribed: the limit asked.
    const paid = await svc.rest('alertes.preview', { query: 'couverture', sources: ['marche'], departements: ['35'], limit: 1 });
    expect(paid.json.par_source[0].records).to.have.length(1);
    expect(paid.json.warnings.some((w: string) => /Formule gratuite/.test(w))).to.equal(false);
  });

  it('is served where service_alerte is: /api/mcp and the assistant, not the connectors', () => {
    const tool = contract.tools.find((t) => t.name === 'alertes_apercu');
    expect(tool?.profiles.sort()).to.deep.equal(['assistant', 'full']);
  });
});
