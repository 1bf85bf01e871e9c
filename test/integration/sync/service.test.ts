// The synchronisation inside the service (SYNC=on): what it brings is searchable and reported by the robot, referentiel_sources says each source's freshness the same on REST and MCP, an alert on a failing or late source says so, and the administrators' page /compte/sources shows each connector's state.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { runRobotSlot } from '../../../src/domains/robot/run.js';
import { forgetSourcesFreshness } from '../../../src/domains/source-freshness.js';
import { addDays } from '../../../src/sync/days.js';
import { parisDay } from '../../../src/platform/paris-time.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { mcpClient } from '../../helpers/mcp.js';
import { FAST_TIMING } from '../../helpers/sync-harness.js';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { odsHandler, startReplayServer, type OdsDataset, type ReplayServer } from '../../helpers/replay-server.js';

const REAL = JSON.parse(readFileSync(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url), 'utf8')) as { results: Record<string, unknown>[] };

/** Three notices a day for 7 days up to today, cut from the real records; one about a roof. */
function notices(): Record<string, unknown>[] {
  const today = parisDay(new Date());
  const out: Record<string, unknown>[] = [];
  for (let d = 0; d < 7; d++)
    for (let i = 0; i < 3; i++) {
      const idweb = `26-5${d}${i}00`;
      const real = REAL.results[i % REAL.results.length] as Record<string, unknown>;
      out.push({ ...real, idweb, id: idweb.replace('-', '_'), dateparution: addDays(today, -d), objet: d === 0 && i === 0 ? 'Réfection de la couverture en ardoise du groupe scolaire' : String(real.objet) });
    }
  return out;
}

describe('sync: inside the service', function () {
  this.timeout(60_000);
  let replay: ReplayServer;
  let svc: TestService;
  const dataset: OdsDataset = { id: 'boamp', dateField: 'dateparution', processed: '2026-11-26T12:00:00+00:00', records: notices() };

  before(async () => {
    replay = await startReplayServer(odsHandler(() => [dataset]));
  });
  after(async () => replay.close());
  afterEach(async () => svc?.close());

  const start = () =>
    startTestService({ config: { sync: { enabled: true, sources: ['boamp'], settings: { BOAMP_API_URL: `${replay.url}/api/explore/v2.1` }, leaseMs: 120_000, timing: FAST_TIMING } } });
  const sourceOf = (items: { code: string }[], code: string) => items.find((s) => s.code === code) as unknown as { synchronisation: { etat: string; raison: string | null; derniere_synchronisation: string | null; connecteurs: { nom: string; etat: string }[] } };

  it('a scheduled run brings the notices; referentiel_sources says marche is up to date, the same on REST and MCP; the robot reports what it brought', async () => {
    svc = await start();
    const alert = await svc.rest('alertes.create', { name: 'Ardoise', query: 'ardoise', sources: ['marche'], frequency: 'realtime' });
    expect(alert.status).to.equal(200);
    await svc.sync?.runNow('boamp');
    const found = await svc.rest('marches.search', { query: 'ardoise' });
    expect(found.json.results, JSON.stringify(found.json).slice(0, 300)).to.have.length(1);
    forgetSourcesFreshness(svc.db);
    const sources = await svc.rest('referentiels.sources', {});
    const marche = sourceOf(sources.json.items, 'marche').synchronisation;
    expect(marche.etat).to.equal('à jour');
    expect(marche.raison).to.equal(null);
    expect(marche.derniere_synchronisation).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+0[12]:00$/);
    expect(marche.connecteurs.map((c) => c.nom)).to.deep.equal(['boamp']);
    expect(sourceOf(sources.json.items, 'mairie').synchronisation).to.deep.include({ etat: 'import manuel', connecteurs: [] });
    const client = await mcpClient(`${svc.url}/api/mcp`, svc.token);
    const viaMcp = await client.callTool({ name: 'referentiel_sources', arguments: {} });
    await client.close();
    expect((viaMcp.structuredContent as { items: unknown[] }).items).to.deep.equal(sources.json.items);
    // The robot, two hours later (past its one-hour margin), reports the synchronised notice.
    const outcome = await runRobotSlot({ db: svc.db, publicUrl: svc.url, now: () => new Date(Date.now() + 2 * 3600_000) });
    expect(outcome.ran).to.equal(true);
    const events = (await svc.db('alert_events').select('kind', 'record')) as { kind: string; record: string }[];
    expect(events.map((e) => e.kind)).to.include('nouveau_marche');
    expect(events.map((e) => JSON.parse(e.record).titre).join(' ')).to.match(/ardoise/);
  });

  it('a failing publisher: the source is « en échec » with the reason, and a new alert on it says so', async () => {
    replay.inject(() => true, { kind: 'status', status: 503 }, 1000);
    try {
      svc = await start();
      await svc.sync?.runNow('boamp');
      const created = await svc.rest('alertes.create', { name: 'Toitures', query: 'toiture', sources: ['marche', 'bodacc'] });
      expect(created.status).to.equal(200);
      const warning = (created.json.warnings as string[]).find((w) => w.startsWith('La source « marche »'));
      expect(warning).to.match(/en échec dans la synchronisation du service \(boamp : .*HTTP 503/);
      const sources = await svc.rest('referentiels.sources', {});
      expect(sourceOf(sources.json.items, 'marche').synchronisation.etat).to.equal('en échec');
    } finally {
      replay.clearFaults();
    }
  });

  it('the administrators\' page /compte/sources shows each connector with its state and its publisher\'s answer; a member is refused, a visitor sent to sign in', async () => {
    replay.inject(() => true, { kind: 'status', status: 502 }, 1000);
    try {
      svc = await start();
      await svc.sync?.runNow('boamp');
    } finally {
      replay.clearFaults();
    }
    const signIn = async (account: { email: string; password: string }) => {
      const jar = new CookieJar();
      const login = await follow(`${svc.url}/compte/connexion`, jar);
      const { action, fields } = formFields(await login.res.text());
      const form = new URLSearchParams({ ...fields, email: account.email, password: account.password });
      await follow(new URL(action, login.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
      return follow(`${svc.url}/compte/sources`, jar);
    };
    const admin = await signIn(svc.account);
    expect(admin.res.status).to.equal(200);
    const html = await admin.res.text();
    expect(html).to.contain('<strong>boamp</strong>').and.contain('<strong>en échec</strong>').and.contain('HTTP 502').and.contain('SYNC=on');
    expect(html).to.not.contain(replay.url.replace('http://', '') + '/api');
    const member = await svc.createAccount({ role: 'membre' });
    expect((await signIn(member)).res.status).to.equal(403);
    const visitor = await fetch(`${svc.url}/compte/sources`, { redirect: 'manual' });
    expect(visitor.status).to.equal(303);
  });
});
