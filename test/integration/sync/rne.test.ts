// The RNE connector against a replay of the INPI's API: signed in once, each day's changed companies read 100 at a time after the last SIREN until an empty page, each through the RNE importer (officers: year of birth at most, no address), an expired token signs in again once then the run stops, 429 waited, missing credentials disable the source with the reason, every company exactly once whatever the kills, one run per source across processes.
import { expect } from 'chai';
import { rneConnector } from '../../../src/domains/companies/sync-rne.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayHandler, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';
import { rneReplay, type RneDataset, type RneReplay } from '../../helpers/rne-replay.js';
import { rneCompany, rneCompanyOfficer, rnePerson } from '../../helpers/company-sources.js';

/** 2026-11-26 09:00 in Paris: yesterday is the 25th. */
const NOW = new Date('2026-11-26T08:00:00Z');
const USER = 'compte-technique@example.fr';
const PASSWORD = 'mot-de-passe-secret-inpi';

const sirenOf = (day: string, i: number) => `${day.slice(8, 10)}${String(i).padStart(7, '0')}`;

/** `n` companies changed on `day`, each with an individual officer (full birth date, home address) and a company officer. */
function companies(day: string, n: number, capital = 15000): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) =>
    rneCompany(sirenOf(day, i), `${day}T1${i % 10}:00:00+01:00`, [rnePerson('KERDRAON', ['Yannick'], '30', '1970-04-17'), rneCompanyOfficer('552032534', 'DANONE', '71')], {}, capital),
  );
}

describe('sync: RNE connector (replayed INPI API)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let inpi: RneReplay;
  let dataset: RneDataset;
  /** Wraps the INPI's handler (a token that expires in the middle of a run). */
  let around: (req: Parameters<ReplayHandler>[0], next: ReplayHandler) => ReturnType<ReplayHandler>;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    dataset = { username: USER, password: PASSWORD, companies: [...companies('2026-11-24', 120), ...companies('2026-11-25', 250)] };
    inpi = rneReplay(() => dataset);
    around = (req, next) => next(req);
    replay = await startReplayServer((req) => around(req, inpi.handler));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ RNE_API_URL: `${replay.url}/api`, INPI_USERNAME: USER, INPI_PASSWORD: PASSWORD });
  const registers = async () => (await database.db('company_registers').select('siren', 'officers', 'capital_social_eur', 'source_updated')) as { siren: string; officers: string; capital_social_eur: number | string | null; source_updated: string }[];
  const diffs = () => replay.requests.filter((r) => r.path.endsWith('/companies/diff'));
  const sirens = (day: string, n: number) => Array.from({ length: n }, (_, i) => sirenOf(day, i));

  it('a first run signs in, reads yesterday 100 at a time after the last SIREN until an empty page, through the RNE importer', async () => {
    const outcome = await syncOnce(database.db, rneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(250);
    const rows = await registers();
    expect(rows.map((r) => r.siren).sort()).to.deep.equal(sirens('2026-11-25', 250));
    // What an import keeps: the officer's year of birth, never the month, day or home address.
    const officers = JSON.parse((rows[0] as { officers: string }).officers) as { nom: string; annee_naissance: number | null }[];
    expect(officers.map((o) => [o.nom, o.annee_naissance])).to.deep.equal([
      ['KERDRAON', 1970],
      ['DANONE', null],
    ]);
    expect(rows.some((r) => /PLOUGONVELIN|MOUETTES|1970-04/.test(r.officers))).to.equal(false);
    expect(inpi.logins()).to.equal(1);
    const login = replay.requests[0];
    expect(login?.method).to.equal('POST');
    expect(JSON.parse(String(login?.body))).to.deep.equal({ username: USER, password: PASSWORD });
    const pages = diffs();
    expect(pages.map((r) => r.query.get('searchAfter'))).to.deep.equal([null, sirenOf('2026-11-25', 99), sirenOf('2026-11-25', 199), sirenOf('2026-11-25', 249)]);
    expect(pages.every((r) => r.query.get('from') === '2026-11-24' && r.query.get('to') === '2026-11-25' && r.query.get('pageSize') === '100')).to.equal(true);
    expect(pages.every((r) => String(r.headers.authorization).startsWith('Bearer eyJ'))).to.equal(true);
  });

  it('the next day reads only the new day: a company changed again is replaced by its newer record, nothing duplicated; --since reads past days', async () => {
    await syncOnce(database.db, rneConnector, settings(), NOW);
    const changed = companies('2026-11-26', 1, 90000)[0] as Record<string, unknown>;
    dataset.companies.push({ ...changed, siren: sirenOf('2026-11-25', 3), formality: { ...(changed.formality as object), siren: sirenOf('2026-11-25', 3) } }, ...companies('2026-11-26', 40));
    const before = diffs().length;
    const next = await syncOnce(database.db, rneConnector, settings(), new Date('2026-11-27T08:00:00Z'));
    expect(next.status, JSON.stringify(next)).to.equal('done');
    expect(new Set(diffs().slice(before).map((r) => r.query.get('to')))).to.deep.equal(new Set(['2026-11-26']));
    let rows = await registers();
    expect(rows).to.have.length(290);
    expect(Number(rows.find((r) => r.siren === sirenOf('2026-11-25', 3))?.capital_social_eur)).to.equal(90000);
    const past = await syncOnce(database.db, rneConnector, settings(), new Date('2026-11-27T08:00:00Z'), { since: '2026-11-24', until: '2026-11-24' });
    expect(past.status).to.equal('done');
    rows = await registers();
    expect(rows).to.have.length(410);
    expect(new Set(rows.map((r) => r.siren)).size).to.equal(410);
  });

  it('an expired token (401) signs in again once and the run goes on', async () => {
    let served = 0;
    around = (req, next) => {
      if (req.path.endsWith('/companies/diff') && ++served === 2) inpi.expireTokens();
      return next(req);
    };
    const outcome = await syncOnce(database.db, rneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(inpi.logins()).to.equal(2);
    expect((await registers()).length).to.equal(250);
  });

  it('a token refused again after signing in again stops the run with the reason, without a loop; the credentials are never shown', async () => {
    around = (req, next) => (req.path.endsWith('/companies/diff') ? { status: 401, json: { code: 401, message: 'Expired JWT Token' } } : next(req));
    const outcome = await syncOnce(database.db, rneConnector, settings(), NOW);
    expect(outcome.status).to.equal('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.reason).to.contain('401');
    expect(inpi.logins()).to.equal(2);
    expect(diffs()).to.have.length(2);
    const refused = await syncOnce(database.db, rneConnector, { ...settings(), INPI_PASSWORD: 'mauvais-mot-de-passe' }, NOW);
    expect(refused.status === 'failed' && refused.reason).to.contain('INPI_USERNAME et INPI_PASSWORD');
    const state = (await database.db('sync_state').where('source', 'rne').first()) as { last_failure_reason: string };
    for (const text of [JSON.stringify(outcome), JSON.stringify(refused), state.last_failure_reason]) {
      expect(text).to.not.contain(PASSWORD);
      expect(text).to.not.contain('mauvais-mot-de-passe');
      expect(text).to.not.contain('eyJ');
    }
  });

  it('the account quota (429) is waited as told, and a 500 tried again: every company once', async () => {
    replay.inject((r) => r.path.endsWith('/companies/diff'), { kind: 'status', status: 429, headers: { 'retry-after': '1' }, json: { code: 429, message: 'Quota dépassé' } });
    replay.inject((r) => r.path.endsWith('/companies/diff'), { kind: 'status', status: 500 });
    const outcome = await syncOnce(database.db, rneConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const throttled = replay.requests.findIndex((r) => r.path.endsWith('/companies/diff'));
    expect((replay.requests[throttled + 1]?.at as number) - (replay.requests[throttled]?.at as number)).to.be.at.least(950);
    expect((await registers()).map((r) => r.siren).sort()).to.deep.equal(sirens('2026-11-25', 250));
  });

  it('without its credentials the source is disabled with the reason and asks nothing', async () => {
    const outcome = await syncOnce(database.db, rneConnector, { RNE_API_URL: settings().RNE_API_URL, INPI_USERNAME: USER }, NOW);
    expect(outcome).to.deep.equal({ status: 'disabled', source: 'rne', reason: 'identifiants absents : INPI_PASSWORD' });
    expect(replay.requests).to.have.length(0);
  });

  it('killed 20 times at random points of its pages, then run again: every company exactly once, the counts exact', async () => {
    // Two days of 5 and 7 pages: each run is stopped within its first 4 pages.
    dataset.companies = [...companies('2026-11-24', 420), ...companies('2026-11-25', 650)];
    await database.db('sync_state').insert({ source: 'rne', cursor: JSON.stringify({ done: '2026-11-23', next: null, day: null, searchAfter: null }) });
    const outcomes = await killAndResume(database.db, rneConnector, settings(), NOW, { kills: 20, maxPage: 4, seed: 2412 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.at.least(8);
    expect((await registers()).map((r) => r.siren).sort()).to.deep.equal([...sirens('2026-11-24', 420), ...sirens('2026-11-25', 650)].sort());
    const state = (await database.db('sync_state').where('source', 'rne').first()) as { total_added: number | string; cursor: string };
    expect(Number(state.total_added)).to.equal(1070);
    expect(JSON.parse(state.cursor)).to.include({ done: '2026-11-25' });
  });

  it('a run stopped in the middle of a day resumes after the last SIREN written, signing in again', async () => {
    const stopped = await syncOnce(database.db, rneConnector, settings(), NOW, {}, {
      faultPoint: (at, page) => {
        if (at === 'before-write' && page === 2) throw new Error('arrêt simulé');
      },
    });
    expect(stopped.status).to.equal('failed');
    const state = (await database.db('sync_state').where('source', 'rne').first()) as { cursor: string };
    expect(JSON.parse(state.cursor)).to.include({ day: '2026-11-25', searchAfter: sirenOf('2026-11-25', 199) });
    const before = diffs().length;
    const resumed = await syncOnce(database.db, rneConnector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    expect(diffs()[before]?.query.get('searchAfter')).to.equal(sirenOf('2026-11-25', 199));
    expect(inpi.logins()).to.equal(2);
    expect((await registers()).length).to.equal(250);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: rneConnector, handler: () => inpi.handler, settings: (url) => ({ ...settings(), RNE_API_URL: `${url}/api` }), now: NOW, delayMs: 30 });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await registers()).length).to.equal(250);
  });
});
