// The BOAMP connector against a replay of the DILA portal: every notice of the window exactly once whatever the faults and kills, corrections and cancellations of past days applied, nothing read when the portal has not processed anything new, one run per source across processes.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { boampConnector } from '../../../src/domains/notices/sync-boamp.js';
import { addDays } from '../../../src/sync/days.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { odsHandler, startReplayServer, type OdsDataset, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

/** The real API answer (4 notices of 2015, Explore v2.1): the layout every replayed notice is cut from. */
const REAL = JSON.parse(readFileSync(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url), 'utf8')) as { results: Record<string, unknown>[] };

/** 2026-11-26 14:00 in Paris. */
const NOW = new Date('2026-11-26T13:00:00Z');
const TODAY = '2026-11-26';

/** `perDay` notices a day on each of the `days` days up to today, each a real record with its id, day and title changed. */
function notices(days: number, perDay: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let d = 0; d < days; d++) {
    const day = addDays(TODAY, -d);
    for (let i = 0; i < perDay; i++) {
      const real = REAL.results[(d + i) % REAL.results.length] as Record<string, unknown>;
      const idweb = `26-${String(d).padStart(2, '0')}${String(i).padStart(4, '0')}`;
      out.push({ ...real, idweb, id: idweb.replace('-', '_'), dateparution: day, objet: `${String(real.objet).slice(0, 60)} (${idweb})`, datelimitereponse: `${addDays(TODAY, 30)}T11:00:00+00:00` });
    }
  }
  return out;
}

describe('sync: BOAMP connector (replayed portal)', function () {
  this.timeout(120_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let dataset: OdsDataset;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    dataset = { id: 'boamp', dateField: 'dateparution', processed: '2026-11-26T12:40:00+00:00', records: notices(8, 250) };
    replay = await startReplayServer(odsHandler(() => [dataset]));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ BOAMP_API_URL: `${replay.url}/api/explore/v2.1` });
  const stored = async () => (await database.db('notices').select('annonce_id', 'etat', 'objet', 'date_limite')) as { annonce_id: string; etat: string | null; objet: string; date_limite: string | null }[];
  const windowIds = () => dataset.records.filter((r) => String(r.dateparution) >= addDays(TODAY, -6)).map((r) => String(r.idweb));

  it('a first run reads the last 7 days, page by page, each count checked, through the BOAMP importer', async () => {
    const outcome = await syncOnce(database.db, boampConnector, settings(), NOW);
    expect(outcome.status).to.equal('done');
    const rows = await stored();
    expect(rows.map((r) => r.annonce_id).sort()).to.deep.equal(windowIds().sort());
    if (outcome.status !== 'done') return;
    expect(outcome.read).to.equal(7 * 250);
    expect(outcome.added).to.equal(7 * 250);
    // A synchronised notice is exactly an imported one: no contact detail, the importer's fields.
    const one = rows.find((r) => r.annonce_id === '26-000000');
    expect(one?.date_limite).to.equal(`${addDays(TODAY, 30)}T11:00:00.000Z`);
    const pages = replay.requests.filter((r) => r.path.endsWith('/records'));
    expect(pages.every((r) => Number(r.query.get('limit')) === 100 && r.query.get('order_by') === 'idweb')).to.equal(true);
    expect(pages.every((r) => /^dateparution = date'\d{4}-\d{2}-\d{2}'$/.test(r.query.get('where') ?? ''))).to.equal(true);
    expect(String(replay.requests[0]?.headers['user-agent'])).to.match(/^batidata-api-sync\//);
  });

  it('reads nothing while data_processed is unchanged, then the sliding window once it changes: a cancellation and a new day applied, nothing duplicated', async () => {
    await syncOnce(database.db, boampConnector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, boampConnector, settings(), NOW);
    expect(idle.status === 'done' && idle.read).to.equal(0);
    expect(replay.requests.length - before).to.equal(1);
    // The publisher cancels a notice of 3 days ago and publishes the next day.
    const cancelled = dataset.records.find((r) => r.dateparution === addDays(TODAY, -3)) as Record<string, unknown>;
    cancelled.etat = 'ANNULATION';
    const tomorrow = addDays(TODAY, 1);
    dataset.records.push({ ...(REAL.results[0] as Record<string, unknown>), idweb: '26-990001', id: '26_990001', dateparution: tomorrow, objet: 'Réfection de toiture du gymnase' });
    dataset.processed = '2026-11-27T00:40:00+00:00';
    const next = await syncOnce(database.db, boampConnector, settings(), new Date('2026-11-27T01:30:00Z'));
    expect(next.status).to.equal('done');
    const rows = await stored();
    expect(rows.find((r) => r.annonce_id === cancelled.idweb)?.etat).to.equal('ANNULATION');
    expect(rows.some((r) => r.annonce_id === '26-990001')).to.equal(true);
    expect(new Set(rows.map((r) => r.annonce_id)).size).to.equal(rows.length);
    // The window starts 7 days before the last day done (today): 8 days read again, not more.
    const days = new Set(replay.requests.slice(before + 1).map((r) => r.query.get('where')).filter(Boolean));
    expect(days.size).to.equal(9);
  });

  it('survives the portal faults: 429 with Retry-After, 500 then success, a body cut short, a stalled answer, a page shorter than total_count', async () => {
    const records = (r: { path: string }) => r.path.endsWith('/records');
    replay.inject(records, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(records, { kind: 'status', status: 500 });
    replay.inject(records, { kind: 'truncate', bytes: 200 });
    replay.inject(records, { kind: 'stall' });
    replay.inject(records, { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: ((a.json as { results: unknown[] }).results ?? []).slice(1) } }) });
    const outcome = await syncOnce(database.db, boampConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect((await stored()).map((r) => r.annonce_id).sort()).to.deep.equal(windowIds().sort());
  });

  it('stops on a count that stays wrong, says why, and resumes at that page on the next run', async () => {
    const day3 = `dateparution = date'${addDays(TODAY, -3)}'`;
    replay.inject((r) => r.query.get('where') === day3 && r.query.get('offset') === '100', { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: [] } }) }, 3);
    const failed = await syncOnce(database.db, boampConnector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    if (failed.status !== 'failed') return;
    expect(failed.reason).to.contain('total_count');
    const state = (await database.db('sync_state').where('source', 'boamp').first()) as { cursor: string; last_failure_reason: string };
    expect(JSON.parse(state.cursor)).to.include({ day: addDays(TODAY, -3), offset: 100 });
    expect(state.last_failure_reason).to.contain('total_count');
    const before = replay.requests.length;
    const resumed = await syncOnce(database.db, boampConnector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    expect(replay.requests[before + 1]?.query.get('offset')).to.equal('100');
    expect((await stored()).map((r) => r.annonce_id).sort()).to.deep.equal(windowIds().sort());
  });

  it('killed 20 times at random points of its pages, then run again: every notice exactly once, the counts exact', async () => {
    const outcomes = await killAndResume(database.db, boampConnector, settings(), NOW, { kills: 20, maxPage: 3, seed: 24 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const rows = await stored();
    expect(rows.map((r) => r.annonce_id).sort()).to.deep.equal(windowIds().sort());
    const state = (await database.db('sync_state').where('source', 'boamp').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(7 * 250);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: boampConnector, handler: () => odsHandler(() => [dataset]), settings: (url) => ({ BOAMP_API_URL: `${url}/api/explore/v2.1` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await stored()).length).to.equal(7 * 250);
  });
});
