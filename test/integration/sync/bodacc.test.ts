// The BODACC connector against a replay of the DILA portal: every announcement of the window exactly once whatever the faults and kills, a day above the /records cap read through /exports/json and an export cut short without error never taken as complete, corrections applied, nothing read while the portal has processed nothing new, one run per source across processes.
import { expect } from 'chai';
import { bodaccConnector } from '../../../src/domains/announcements/sync-bodacc.js';
import { addDays } from '../../../src/sync/days.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { odsHandler, startReplayServer, type OdsDataset, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';
import { bodaccProceeding, bodaccRecord } from '../../helpers/company-sources.js';

/** 2026-11-26 15:45 in Paris. */
const NOW = new Date('2026-11-26T14:45:00Z');
const TODAY = '2026-11-26';

/** An announcement id as the portal writes them: bulletin, year, parution number, announcement number. */
const announcementId = (d: number, i: number) => `${i % 3 === 0 ? 'B' : 'A'}2026${String(400 - d).padStart(4, '0')}${String(i + 1).padStart(5, '0')}`;

/** An announcement of day `day`, of one of the families the portal publishes (in the layout of its API answers). */
function announcement(id: string, day: string, i: number): Record<string, unknown> {
  const siren = String(800000000 + i * 7919).slice(0, 9);
  const spaced = `${siren.slice(0, 3)} ${siren.slice(3, 6)} ${siren.slice(6)}`;
  if (i % 3 === 1) return bodaccProceeding(id, { siren, denomination: `Charpentes ${i}`, dateparution: day, nature: 'Jugement d\'ouverture de liquidation judiciaire', date: addDays(day, -10) });
  return bodaccRecord(id, {
    dateparution: day,
    familleavis: i % 3 === 0 ? 'radiation' : 'creation',
    familleavis_lib: i % 3 === 0 ? 'Radiations' : 'Créations',
    commercant: `Couverture ${i}`,
    registre: [spaced, siren],
    listepersonnes: JSON.stringify({ personne: { typePersonne: 'pm', denomination: `Couverture ${i}`, formeJuridique: 'SARL', numeroImmatriculation: { numeroIdentification: spaced } } }),
    radiationaurcs: i % 3 === 0 ? JSON.stringify({ radiationPM: 'O' }) : null,
    acte: i % 3 === 0 ? null : JSON.stringify({ creation: { categorieCreation: 'Immatriculation d\'une personne morale' }, dateCommencementActivite: addDays(day, -20) }),
  });
}

function announcements(days: number, perDay: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let d = 0; d < days; d++) for (let i = 0; i < perDay; i++) out.push(announcement(announcementId(d, i), addDays(TODAY, -d), i));
  return out;
}

describe('sync: BODACC connector (replayed portal)', function () {
  this.timeout(300_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let dataset: OdsDataset;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    dataset = { id: 'annonces-commerciales', dateField: 'dateparution', processed: '2026-11-26T13:20:00+00:00', records: announcements(8, 150) };
    replay = await startReplayServer(odsHandler(() => [dataset]));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ BODACC_API_URL: `${replay.url}/api/explore/v2.1` });
  const storedIds = async () => ((await database.db('announcements').select('id')) as { id: string }[]).map((r) => r.id).sort();
  const windowIds = (since = addDays(TODAY, -6), until = TODAY) =>
    dataset.records
      .filter((r) => String(r.dateparution) >= since && String(r.dateparution) <= until)
      .map((r) => String(r.id))
      .sort();

  it('a first run reads the last 7 days, page by page, each count checked, through the BODACC importer', async () => {
    const outcome = await syncOnce(database.db, bodaccConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(await storedIds()).to.deep.equal(windowIds());
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(7 * 150);
    // A synchronised announcement is exactly an imported one: the importer's fields and SIRENs.
    const one = (await database.db('announcements').where('id', announcementId(0, 1)).first('famille', 'jugement_nature', 'departement')) as Record<string, string>;
    expect(one).to.deep.equal({ famille: 'collective', jugement_nature: 'Jugement d\'ouverture de liquidation judiciaire', departement: '29' });
    const links = (await database.db('announcement_sirens').where('announcement_id', announcementId(0, 1)).select('siren')) as { siren: string }[];
    expect(links).to.have.length(1);
    const pages = replay.requests.filter((r) => r.path.endsWith('/records'));
    expect(pages.every((r) => r.path.endsWith('/catalog/datasets/annonces-commerciales/records') && Number(r.query.get('limit')) === 100 && r.query.get('order_by') === 'id')).to.equal(true);
    expect(pages.every((r) => /^dateparution = date'\d{4}-\d{2}-\d{2}'$/.test(r.query.get('where') ?? ''))).to.equal(true);
  });

  it('reads nothing while data_processed is unchanged, then the sliding window once it changes: a corrected announcement and a new day applied, nothing duplicated', async () => {
    await syncOnce(database.db, bodaccConnector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, bodaccConnector, settings(), NOW);
    expect(idle.status === 'done' && idle.read).to.equal(0);
    expect(replay.requests.length - before).to.equal(1);
    // The portal corrects an announcement of 4 days ago (its judgment) and publishes the next day, with a rectification.
    const corrected = dataset.records.find((r) => r.id === announcementId(4, 1)) as Record<string, unknown>;
    corrected.jugement = JSON.stringify({ type: 'initial', famille: "Jugement d'ouverture", nature: 'Jugement d\'ouverture de redressement judiciaire', date: addDays(TODAY, -14) });
    const tomorrow = addDays(TODAY, 1);
    dataset.records.push({ ...announcement('A202639900001', tomorrow, 1), typeavis: 'rectificatif', typeavis_lib: 'Avis rectificatif' });
    dataset.processed = '2026-11-27T00:50:00+00:00';
    const next = await syncOnce(database.db, bodaccConnector, settings(), new Date('2026-11-27T00:45:00Z'));
    expect(next.status, JSON.stringify(next)).to.equal('done');
    const row = (await database.db('announcements').where('id', corrected.id as string).first('jugement_nature')) as { jugement_nature: string };
    expect(row.jugement_nature).to.equal('Jugement d\'ouverture de redressement judiciaire');
    const rect = (await database.db('announcements').where('id', 'A202639900001').first('type_avis')) as { type_avis: string };
    expect(rect.type_avis).to.equal('rectificatif');
    // The window starts 7 days before the last day done (today).
    expect(await storedIds()).to.deep.equal(windowIds(addDays(TODAY, -7), tomorrow));
  });

  it('survives the portal faults: 429 with Retry-After, 500 then success, a body cut short, a stalled answer, a page shorter than total_count', async () => {
    const records = (r: { path: string }) => r.path.endsWith('/records');
    replay.inject(records, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(records, { kind: 'status', status: 500 });
    replay.inject(records, { kind: 'truncate', bytes: 200 });
    replay.inject(records, { kind: 'stall' });
    replay.inject(records, { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: ((a.json as { results: unknown[] }).results ?? []).slice(1) } }) });
    const outcome = await syncOnce(database.db, bodaccConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(await storedIds()).to.deep.equal(windowIds());
  });

  it('reads a day above the /records cap through /exports/json; an export that ends early without error fails the run, and the next one resumes where the written pages end', async () => {
    const big = addDays(TODAY, -20);
    for (let i = 0; i < 10_030; i++) dataset.records.push(announcement(`C2026${'0300'}${String(i + 1).padStart(5, '0')}`, big, i));
    const exportPath = (r: { path: string }) => r.path.endsWith('/exports/json');
    // The export ends after 6,000 announcements, as a well-formed JSON array.
    replay.inject(exportPath, { kind: 'alter', alter: (a) => ({ ...a, json: (a.json as unknown[]).slice(0, 6000) }) });
    const cut = await syncOnce(database.db, bodaccConnector, settings(), NOW, { since: big, until: big });
    expect(cut.status).to.equal('failed');
    if (cut.status !== 'failed') return;
    expect(cut.reason).to.contain('incomplet');
    expect(cut.read).to.equal(6000);
    const state = (await database.db('sync_state').where('source', 'bodacc').first()) as { cursor: string; last_failure_reason: string };
    expect(JSON.parse(state.cursor)).to.include({ day: big, offset: 6000, total: 10_030 });
    expect(state.last_failure_reason).to.contain('incomplet');
    const resumed = await syncOnce(database.db, bodaccConnector, settings(), NOW, { since: big, until: big });
    expect(resumed.status, JSON.stringify(resumed)).to.equal('done');
    expect(resumed.status === 'done' && resumed.read).to.equal(10_030 - 6000);
    expect(await storedIds()).to.deep.equal(windowIds(big, big));
    const exports = replay.requests.filter(exportPath);
    expect(exports).to.have.length(2);
    expect(replay.requests.some((r) => r.path.endsWith('/records') && Number(r.query.get('offset')) + Number(r.query.get('limit')) > 10_000)).to.equal(false);
  });

  it('killed 20 times at random points of its pages, then run again: every announcement exactly once, the counts exact', async () => {
    const outcomes = await killAndResume(database.db, bodaccConnector, settings(), NOW, { kills: 20, maxPage: 3, seed: 24 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    expect(await storedIds()).to.deep.equal(windowIds());
    const state = (await database.db('sync_state').where('source', 'bodacc').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(7 * 150);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: bodaccConnector, handler: () => odsHandler(() => [dataset]), settings: (url) => ({ BODACC_API_URL: `${url}/api/explore/v2.1` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await storedIds()).length).to.equal(7 * 150);
  });
});
