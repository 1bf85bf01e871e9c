// The SIRENE connector against a replay of the API Sirene 3.11: each day's changed units then establishments read whole by cursor (the cursor given back unchanged ends the paging), an empty day's 404 taken as empty, 429 waited, 30 requests a minute never exceeded, a missing key disables the source with its reason, every record exactly once whatever the faults and kills, one run per source across processes.
import { expect } from 'chai';
import { sireneConnector } from '../../../src/domains/companies/sync-sirene.js';
import type { Connector } from '../../../src/sync/connector.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';
import { sireneDayEstablishments, sireneDayUnits, sireneHandler, sirenOf, type SireneDataset, type SireneHandlerOptions } from '../../helpers/sirene-replay.js';

/** 2026-11-26 09:00 in Paris: yesterday is the 25th. */
const NOW = new Date('2026-11-26T08:00:00Z');
const KEY = 'cle-integration-de-test-0001';

describe('sync: SIRENE connector (replayed API Sirene)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let dataset: SireneDataset;
  let handlerOptions: SireneHandlerOptions;

  const start = async () => {
    replay = await startReplayServer(sireneHandler(() => dataset, handlerOptions));
  };

  beforeEach(async () => {
    database = await openMigratedDatabase();
    handlerOptions = {};
    dataset = {
      key: KEY,
      unites: [...sireneDayUnits('2026-11-23', 150), ...sireneDayUnits('2026-11-25', 1200)],
      etablissements: [...sireneDayEstablishments('2026-11-23', 150), ...sireneDayEstablishments('2026-11-25', 1200)],
    };
    await start();
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ SIRENE_API_URL: `${replay.url}/api-sirene/3.11`, INSEE_API_KEY: KEY });
  const companies = async () => (await database.db('companies').select('siren', 'denomination', 'source_updated', 'unit_known')) as { siren: string; denomination: string | null; source_updated: string | null; unit_known: unknown }[];
  const establishments = async () => (await database.db('establishments').select('siret', 'adresse', 'etat')) as { siret: string; adresse: string | null; etat: string }[];
  const sirens = (day: string, n: number) => Array.from({ length: n }, (_, i) => sirenOf(day, i));
  const pageRequests = () => replay.requests.filter((r) => r.path.endsWith('/siren') || r.path.endsWith('/siret'));

  it('a first run reads yesterday: its units then its establishments, 1,000 a page by cursor, each through the SIRENE importers', async () => {
    const outcome = await syncOnce(database.db, sireneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.read).to.equal(2400);
    expect(outcome.added).to.equal(2400);
    const rows = await companies();
    expect(rows.map((r) => r.siren).sort()).to.deep.equal(sirens('2026-11-25', 1200));
    // The current period's name, the processing instant in the stock's form, a known unit.
    const first = rows.find((r) => r.siren === sirenOf('2026-11-25', 0));
    expect(first?.denomination).to.equal('ETS J VIRLY S A');
    expect(first?.source_updated).to.equal('2026-11-25T00:00:00');
    expect(Boolean(first?.unit_known)).to.equal(true);
    const offices = await establishments();
    expect(offices).to.have.length(1200);
    expect(offices.find((e) => e.siret === `${sirenOf('2026-11-25', 0)}00012`)).to.include({ adresse: '1 RUE DE SIAM', etat: 'A' });
    const requests = pageRequests();
    expect(requests.map((r) => `${r.path.slice(-5)} ${r.query.get('curseur') === '*' ? '*' : 'suite'}`)).to.deep.equal(['siren *', 'siren suite', 'siren suite', 'siret *', 'siret suite', 'siret suite']);
    expect(requests[0]?.query.get('q')).to.equal('dateDernierTraitementUniteLegale:[2026-11-25T00:00:00 TO 2026-11-25T23:59:59]');
    expect(requests[3]?.query.get('q')).to.equal('dateDernierTraitementEtablissement:[2026-11-25T00:00:00 TO 2026-11-25T23:59:59]');
    expect(requests.every((r) => r.query.get('nombre') === '1000' && r.headers['x-insee-api-key-integration'] === KEY && !r.query.has('debut'))).to.equal(true);
    expect(String(requests[0]?.headers['user-agent'])).to.match(/^batidata-api-sync\//);
  });

  it('the next day reads the last day done again and the new one: a unit processed again is corrected, nothing duplicated', async () => {
    await syncOnce(database.db, sireneConnector, settings(), NOW);
    const moved = dataset.unites.find((u) => u.siren === sirenOf('2026-11-25', 7)) as Record<string, unknown>;
    // INSEE processes it again on the 26th under a new name: it leaves the 25th for the 26th.
    const periods = moved.periodesUniteLegale as Record<string, unknown>[];
    periods[0] = { ...periods[0], denominationUniteLegale: 'NOUVELLE DENOMINATION' };
    moved.dateDernierTraitementUniteLegale = '2026-11-26T03:00:00.000';
    dataset.unites.push(...sireneDayUnits('2026-11-26', 300));
    dataset.etablissements.push(...sireneDayEstablishments('2026-11-26', 300));
    const before = pageRequests().length;
    const next = await syncOnce(database.db, sireneConnector, settings(), new Date('2026-11-27T08:00:00Z'));
    expect(next.status, JSON.stringify(next)).to.equal('done');
    if (next.status !== 'done') return;
    expect(next.added).to.equal(600);
    const days = new Set(pageRequests().slice(before).map((r) => /\[(\d{4}-\d{2}-\d{2})/.exec(r.query.get('q') ?? '')?.[1]));
    expect([...days]).to.deep.equal(['2026-11-25', '2026-11-26']);
    const rows = await companies();
    expect(rows).to.have.length(1500);
    expect(new Set(rows.map((r) => r.siren)).size).to.equal(1500);
    expect(rows.find((r) => r.siren === sirenOf('2026-11-25', 7))).to.include({ denomination: 'NOUVELLE DENOMINATION', source_updated: '2026-11-26T03:00:00' });
  });

  it('--since reads the past days; a day without change answers 404 and is read as empty', async () => {
    const outcome = await syncOnce(database.db, sireneConnector, settings(), NOW, { since: '2026-11-23' });
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect((await companies()).length).to.equal(1350);
    const empty = pageRequests().filter((r) => (r.query.get('q') ?? '').includes('2026-11-24'));
    expect(empty).to.have.length(2);
    const state = (await database.db('sync_state').where('source', 'sirene').first()) as { cursor: string; last_failure_reason: string | null };
    expect(JSON.parse(state.cursor)).to.include({ done: '2026-11-25', next: null, day: null });
    expect(state.last_failure_reason).to.equal(null);
  });

  it('a page with records that gives its cursor back ends the paging: its records written, no request after it', async () => {
    await replay.close();
    handlerOptions = { lastPageRepeats: true };
    await start();
    const outcome = await syncOnce(database.db, sireneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect((await companies()).length).to.equal(1200);
    expect((await establishments()).length).to.equal(1200);
    expect(pageRequests().map((r) => r.path.slice(-5))).to.deep.equal(['siren', 'siren', 'siret', 'siret']);
  });

  it('429 waits as told (Retry-After) or with its backoff; 500, a body cut short and a stalled answer are tried again; every record once', async () => {
    const pages = (r: { path: string }) => r.path.endsWith('/siren') || r.path.endsWith('/siret');
    replay.inject(pages, { kind: 'status', status: 429, headers: { 'retry-after': '1' }, json: { header: { statut: 429, message: 'Too Many Requests' } } });
    replay.inject(pages, { kind: 'status', status: 429, json: { header: { statut: 429, message: 'Too Many Requests' } } });
    replay.inject(pages, { kind: 'status', status: 500 });
    replay.inject(pages, { kind: 'truncate', bytes: 300 });
    replay.inject(pages, { kind: 'stall' });
    const outcome = await syncOnce(database.db, sireneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    // The request after the 429 with « Retry-After: 1 » came a second later, not before.
    const at = replay.requests.map((r) => r.at);
    expect((at[1] as number) - (at[0] as number)).to.be.at.least(950);
    expect((await companies()).map((r) => r.siren).sort()).to.deep.equal(sirens('2026-11-25', 1200));
    expect((await establishments()).length).to.equal(1200);
  });

  it('never sends more than its budget in a window (30 a minute; here 3 in 600 ms), and declares the API’s 30 a minute', async () => {
    expect(sireneConnector.budget).to.deep.equal({ requests: 30, perMs: 60_000 });
    const tight: Connector = { ...sireneConnector, budget: { requests: 3, perMs: 600 } };
    // Mostly empty days (quick 404s): without the budget, 4 requests would follow within a few milliseconds.
    const outcome = await syncOnce(database.db, tight, settings(), NOW, { since: '2026-11-18', until: '2026-11-24' });
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const at = replay.requests.map((r) => r.at);
    // 7 days, units and establishments; the 23rd's 150 take a page and the empty one that ends it.
    expect(at.length).to.equal(16);
    // Any 4 requests in a row span the window (the replay shares the test's event loop: 100 ms of slack).
    for (let i = 0; i + 3 < at.length; i++) expect((at[i + 3] as number) - (at[i] as number)).to.be.at.least(500);
  });

  it('without INSEE_API_KEY the source is disabled with the reason and asks nothing; a refused key stops the run without showing it', async () => {
    const disabled = await syncOnce(database.db, sireneConnector, { SIRENE_API_URL: settings().SIRENE_API_URL }, NOW);
    expect(disabled).to.deep.equal({ status: 'disabled', source: 'sirene', reason: 'identifiants absents : INSEE_API_KEY' });
    expect(replay.requests).to.have.length(0);
    const refused = await syncOnce(database.db, sireneConnector, { ...settings(), INSEE_API_KEY: 'cle-perimee-secrete' }, NOW);
    expect(refused.status).to.equal('failed');
    if (refused.status !== 'failed') return;
    expect(refused.reason).to.contain('HTTP 401');
    expect(refused.reason).to.not.contain('cle-perimee-secrete');
    expect(replay.requests).to.have.length(1);
  });

  it('a 404 that is not the API’s « aucun élément » (a wrong address) stops the run instead of reading an empty day', async () => {
    const outcome = await syncOnce(database.db, sireneConnector, { ...settings(), SIRENE_API_URL: `${replay.url}/mauvaise-adresse` }, NOW);
    expect(outcome.status).to.equal('failed');
    expect(outcome.status === 'failed' && outcome.reason).to.contain('404');
  });

  it('killed 20 times at random points of its pages, then run again: every unit and establishment exactly once, the counts exact', async () => {
    // The last day done was the 23rd: the run reads it again, then the 24th (empty) and the 25th.
    await database.db('sync_state').insert({ source: 'sirene', cursor: JSON.stringify({ done: '2026-11-23', next: null, day: null, phase: null, curseur: null }) });
    const outcomes = await killAndResume(database.db, sireneConnector, settings(), NOW, { kills: 20, maxPage: 9, seed: 2411 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    expect((await companies()).map((r) => r.siren).sort()).to.deep.equal([...sirens('2026-11-23', 150), ...sirens('2026-11-25', 1200)].sort());
    expect((await establishments()).length).to.equal(1350);
    const state = (await database.db('sync_state').where('source', 'sirene').first()) as { total_added: number | string; cursor: string };
    expect(Number(state.total_added)).to.equal(2 * 1350);
    expect(JSON.parse(state.cursor)).to.include({ done: '2026-11-25' });
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const handler = sireneHandler(() => dataset);
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: sireneConnector, handler: () => handler, settings: (url) => ({ SIRENE_API_URL: `${url}/api-sirene/3.11`, INSEE_API_KEY: KEY }), now: NOW, delayMs: 30 });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await companies()).length).to.equal(1200);
  });
});
