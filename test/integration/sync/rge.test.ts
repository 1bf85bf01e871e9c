// The RGE connector against a replay of the ADEME data-fair API: the whole list read by following `next`, its count checked against `total`, and exactly the certifications the whole snapshot no longer holds ended, also when a run is killed mid-snapshot and resumed from its stored `next`.
import { expect } from 'chai';
import { rgeConnectorWith, RGE_API_FIELDS } from '../../../src/domains/companies/sync-rge.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayHandler, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

const DATASET = 'liste-des-entreprises-rge-2';
const PAGE = 100;
const connector = rgeConnectorWith(PAGE);

/** 2026-11-26 and 2026-11-27, 07:20 in Paris. */
const DAY1 = new Date('2026-11-26T06:20:00Z');
const DAY2 = new Date('2026-11-27T06:20:00Z');
/** What a certification gone from the list of DAY2 ends on: the day before. */
const ENDED_ON_DAY2 = '2026-11-26';

const DOMAINES = [
  ['Pompe à chaleur : chauffage', 'Travaux d\u2019efficacité énergétique', "qualit'enr", 'QualiPAC Chauffage et ECS'],
  ['Isolation des murs par l\u2019extérieur', 'Travaux d\u2019efficacité énergétique', 'qualibat', 'Isolation thermique par l\u2019extérieur (7131)'],
  ['Panneaux solaires photovoltaïques', 'Installations d\u2019énergies renouvelables', 'qualifelec', 'Photovoltaïque (module SPV)'],
  ['Audit énergétique Maison individuelle', 'Etudes énergétiques', 'opqibi', 'Audit énergétique des maisons individuelles (1905)'],
] as const;

/**
 * One line of the list in the dataset's published layout (its schema's fields, contact
 * columns included: the connector must never ask for them), with data-fair's `_i`.
 */
function line(i: number): Record<string, unknown> {
  const [domaine, meta, organisme, nom] = DOMAINES[i % DOMAINES.length] as readonly string[];
  const siret = `8${String(Math.floor(i / 2)).padStart(8, '0')}000${String(10 + (i % 2))}`;
  return {
    siret,
    nom_entreprise: `ENTREPRISE ${i}`,
    adresse: `${i} rue des Artisans`,
    code_postal: '29800',
    commune: 'Landerneau',
    latitude: 48.45,
    longitude: -4.25,
    telephone: '0298000000',
    email: `contact${i}@exemple.fr`,
    site_internet: `https://artisan${i}.fr`,
    code_qualification: String(5000 + (i % 7)),
    nom_qualification: nom,
    url_qualification: `https://www.qualibat.com/attestation/${i}`,
    nom_certificat: 'Certificat RGE',
    domaine,
    meta_domaine: meta,
    organisme,
    particulier: i % 3 === 0,
    lien_date_debut: '2024-03-01',
    lien_date_fin: i % 5 === 0 ? '2027-02-28' : '2026-12-31',
    _i: i,
    _rand: (i * 7919) % 100003,
  };
}

interface DataFairDataset {
  rows: Record<string, unknown>[];
  finalizedAt: string;
}

/**
 * Answers as data-fair does: `GET …/lines?size=…` sorted by `_i`, `{"total", "next", "results"}`,
 * `next` given only after a full answer, built from the request's parameters plus `after` (the
 * last hit's sort values); `select` keeps the named fields (and `_score`); size above 10,000 refused.
 */
function dataFairHandler(base: () => string, dataset: () => DataFairDataset): ReplayHandler {
  return (req) => {
    const prefix = `/data-fair/api/v1/datasets/${DATASET}`;
    const ds = dataset();
    if (req.path === prefix) return { json: { id: DATASET, slug: DATASET, title: 'Liste des entreprises RGE', count: ds.rows.length, finalizedAt: ds.finalizedAt } };
    if (req.path !== `${prefix}/lines`) return { status: 404, body: 'Dataset not found', headers: { 'content-type': 'text/plain; charset=utf-8' } };
    const size = Number(req.query.get('size') ?? 12);
    if (size > 10_000) return { status: 400, body: '"size" cannot be more than 10000', headers: { 'content-type': 'text/plain; charset=utf-8' } };
    const after = req.query.get('after');
    const sorted = [...ds.rows].sort((a, b) => (a._i as number) - (b._i as number));
    const hits = sorted.filter((r) => after === null || (r._i as number) > Number(after)).slice(0, size);
    const select = req.query.get('select')?.split(',');
    const results = hits.map((r) => (select ? { ...Object.fromEntries(select.filter((k) => k in r).map((k) => [k, r[k]])), _score: null } : { ...r, _id: `id${String(r._i)}`, _score: null }));
    const answer: Record<string, unknown> = { total: ds.rows.length };
    if (size && hits.length === size) {
      const next = new URL(`${base()}/data-fair/api/v1/datasets/${DATASET}/lines`);
      for (const [key, value] of req.query) if (key !== 'page') next.searchParams.set(key, value);
      next.searchParams.set('after', JSON.stringify([hits.at(-1)?._i]).slice(1, -1));
      answer.next = next.href;
    }
    answer.results = results;
    return { json: answer, gzip: true };
  };
}

type Stored = { siret: string; domaine: string; organisme: string; date_debut: string | null; date_fin: string | null; code_qualification: string | null; updated_at: string };
const keyOf = (row: object) => {
  const r = row as Record<string, unknown>;
  return `${String(r.siret)}|${String(r.domaine)}|${String(r.organisme)}`;
};

describe('sync: RGE connector (replayed ADEME data-fair API)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let dataset: DataFairDataset;
  /** Called before each answer (a publisher changing the list while it is read). */
  let beforeAnswer: (req: { query: URLSearchParams; path: string }) => void;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    dataset = { rows: Array.from({ length: 430 }, (_, i) => line(i)), finalizedAt: '2026-11-26T02:10:00.000Z' };
    beforeAnswer = () => undefined;
    const handler = dataFairHandler(() => replay.url, () => dataset);
    replay = await startReplayServer((req) => {
      beforeAnswer(req);
      return handler(req);
    });
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ RGE_API_URL: `${replay.url}/data-fair/api/v1/datasets/${DATASET}` });
  const stored = async () => (await database.db('rge_certifications').select('*')) as Stored[];
  const byKey = async () => new Map((await stored()).map((r) => [keyOf(r), r]));
  const lines = () => replay.requests.filter((r) => r.path.endsWith('/lines'));
  /** Day 2: the publisher drops 31 certifications (spread over every page), adds 20, and moves a date. */
  const publishDay2 = () => {
    const removed = dataset.rows.filter((r) => (r._i as number) % 14 === 3);
    dataset.rows = dataset.rows.filter((r) => !removed.includes(r));
    for (let i = 1000; i < 1020; i++) dataset.rows.push(line(i));
    const moved = dataset.rows.find((r) => r._i === 10) as Record<string, unknown>;
    moved.lien_date_fin = '2028-06-30';
    dataset.finalizedAt = '2026-11-27T02:10:00.000Z';
    return new Set(removed.map(keyOf));
  };
  /** The `after` of the answer following the first `n` rows of the list as published now. */
  const afterRow = (n: number) => String([...dataset.rows].sort((a, b) => (a._i as number) - (b._i as number))[n - 1]?._i);
  const endedKeys = async () => new Set((await stored()).filter((r) => r.date_fin === ENDED_ON_DAY2).map(keyOf));

  it('a first run reads the whole list by following `next`, each answer counted, through the RGE importer, never asking for contact details', async () => {
    const outcome = await syncOnce(database.db, connector, settings(), DAY1);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.read).to.equal(430);
    expect(outcome.added).to.equal(430);
    const rows = await byKey();
    expect(rows.size).to.equal(430);
    const first = rows.get(keyOf(dataset.rows[0] as Record<string, unknown>));
    expect(first).to.include({ date_debut: '2024-03-01', date_fin: '2027-02-28', code_qualification: '5000' });
    // 5 answers: 4 full ones with `next`, the last one without; each after the previous' last row.
    const asked = lines();
    expect(asked.length).to.equal(5);
    expect(asked[0]?.query.get('after')).to.equal(null);
    expect(asked.slice(1).map((r) => r.query.get('after'))).to.deep.equal(['99', '199', '299', '399']);
    for (const r of asked) {
      expect(r.query.get('size')).to.equal(String(PAGE));
      expect(r.query.get('select')?.split(',')).to.have.members([...RGE_API_FIELDS]);
      expect(r.query.get('select')).not.to.match(/telephone|email|site_internet/);
    }
    expect(String(asked[0]?.headers['user-agent'])).to.match(/^batidata-api-sync\//);
    const state = (await database.db('sync_state').where('source', 'rge').first()) as { cursor: string };
    expect(JSON.parse(state.cursor)).to.include({ snapshot: null, next: null, done: DAY1.toISOString() });
  });

  it('the next day: what the list no longer holds ends the day before, new certifications enter, a changed date is applied, nothing else moves', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    const removed = publishDay2();
    const outcome = await syncOnce(database.db, connector, settings(), DAY2);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(20);
    const rows = await byKey();
    expect(rows.size).to.equal(450);
    expect(await endedKeys()).to.deep.equal(removed);
    expect(rows.get(keyOf(line(10)))?.date_fin).to.equal('2028-06-30');
    for (const r of dataset.rows) expect(rows.get(keyOf(r))?.date_fin).to.equal(r.lien_date_fin);
    // Listed again later: its published dates come back.
    const back = line(3);
    dataset.rows.push(back);
    const day3 = await syncOnce(database.db, connector, settings(), new Date('2026-11-28T06:20:00Z'));
    expect(day3.status).to.equal('done');
    expect((await byKey()).get(keyOf(back))?.date_fin).to.equal('2026-12-31');
    // A certification ended already keeps the day it ended.
    expect((await byKey()).get(keyOf(line(17)))?.date_fin).to.equal(ENDED_ON_DAY2);
  });

  it('a record the importer cannot read keeps its stored certification as it is, not ended', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    const unreadable = dataset.rows.find((r) => r._i === 42) as Record<string, unknown>;
    unreadable.lien_date_fin = '2027-02-30';
    const outcome = await syncOnce(database.db, connector, settings(), DAY2);
    expect(outcome.status).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.skipped).to.equal(1);
    expect(outcome.problems[0]?.reason).to.contain('date illisible');
    expect((await byKey()).get(keyOf(line(42)))?.date_fin).to.equal('2026-12-31');
    expect((await endedKeys()).size).to.equal(0);
  });

  it('killed mid-snapshot, resumed later by another run: it follows the stored `next`, keeps the snapshot start, and ends exactly what the whole snapshot no longer holds', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    const removed = publishDay2();
    const killed = await syncOnce(database.db, connector, settings(), DAY2, {}, {
      faultPoint: (at, page) => {
        if (at === 'after-commit' && page === 1) throw new Error('arrêt simulé');
      },
    });
    expect(killed.status).to.equal('failed');
    const cursor = JSON.parse(((await database.db('sync_state').where('source', 'rge').first()) as { cursor: string }).cursor) as { snapshot: string; next: string; received: number };
    expect(cursor).to.include({ snapshot: DAY2.toISOString(), received: 200 });
    expect(new URL(cursor.next).searchParams.get('after')).to.equal(afterRow(200));
    const before = lines().length;
    // Two hours later: the rows written before the kill are older than this run, yet seen by its snapshot.
    const resumed = await syncOnce(database.db, connector, settings(), new Date(DAY2.getTime() + 2 * 3600_000));
    expect(resumed.status, JSON.stringify(resumed)).to.equal('done');
    expect(lines()[before]?.query.get('after')).to.equal(afterRow(200));
    expect(lines().length - before).to.equal(3);
    expect(await endedKeys()).to.deep.equal(removed);
    expect((await stored()).length).to.equal(450);
  });

  it('killed 20 times at random points of its pages, then run again: every certification exactly once, exactly the gone ones ended', async () => {
    const first = await killAndResume(database.db, connector, settings(), DAY1, { kills: 20, maxPage: 5, seed: 24 });
    expect(first.at(-1)?.status).to.equal('done');
    expect(first.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const state = (await database.db('sync_state').where('source', 'rge').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(430);
    const removed = publishDay2();
    const second = await killAndResume(database.db, connector, settings(), DAY2, { kills: 20, maxPage: 5, seed: 25 });
    expect(second.at(-1)?.status).to.equal('done');
    const after = (await database.db('sync_state').where('source', 'rge').first()) as { total_added: number | string };
    expect(Number(after.total_added)).to.equal(450);
    expect((await stored()).length).to.equal(450);
    expect(await endedKeys()).to.deep.equal(removed);
  });

  it('survives the API faults: 429 with Retry-After, 500 then success, a body cut short, a stalled answer, an answer one row short', async () => {
    const page = (r: { path: string }) => r.path.endsWith('/lines');
    replay.inject(page, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(page, { kind: 'status', status: 500 });
    replay.inject(page, { kind: 'truncate', bytes: 300 });
    replay.inject(page, { kind: 'stall' });
    replay.inject(page, { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: (a.json as { results: unknown[] }).results.slice(1) } }) });
    const outcome = await syncOnce(database.db, connector, settings(), DAY1);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect((await stored()).length).to.equal(430);
  });

  it('a last answer that stays short of `total`: nothing ended, the run fails saying why, and the next run reads the whole list again', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    const removed = publishDay2();
    const lastAfter = afterRow(400);
    const last = (r: { path: string; query: URLSearchParams }) => r.path.endsWith('/lines') && r.query.get('after') === lastAfter;
    replay.inject(last, { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: (a.json as { results: unknown[] }).results.slice(2) } }) }, 6);
    const failed = await syncOnce(database.db, connector, settings(), DAY2);
    expect(failed.status).to.equal('failed');
    if (failed.status !== 'failed') return;
    expect(failed.reason).to.contain('incomplète');
    expect((await endedKeys()).size).to.equal(0);
    const cursor = JSON.parse(((await database.db('sync_state').where('source', 'rge').first()) as { cursor: string }).cursor) as Record<string, unknown>;
    expect(cursor).to.include({ snapshot: null, next: null });
    const before = lines().length;
    const next = await syncOnce(database.db, connector, settings(), new Date(DAY2.getTime() + 3600_000));
    expect(next.status).to.equal('done');
    expect(lines()[before]?.query.get('after')).to.equal(null);
    expect(await endedKeys()).to.deep.equal(removed);
  });

  it('the list republished while it is read (its total changes): the snapshot starts again and ends what the new list no longer holds', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    const before = lines().length;
    let republished = false;
    beforeAnswer = (req) => {
      if (!republished && req.query.get('after') === '299') {
        republished = true;
        dataset.rows = dataset.rows.filter((r) => r._i !== 5);
      }
    };
    // A clock that moves (the abandoned pass' rows are older than the new snapshot, as on a real clock).
    let tick = 0;
    const outcome = await syncOnce(database.db, connector, settings(), DAY2, {}, { now: () => new Date(DAY2.getTime() + tick++) });
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(lines().slice(before).filter((r) => r.query.get('after') === null).length).to.equal(2);
    expect(await endedKeys()).to.deep.equal(new Set([keyOf(line(5))]));
  });

  it('an empty list ends nothing', async () => {
    await syncOnce(database.db, connector, settings(), DAY1);
    dataset.rows = [];
    const outcome = await syncOnce(database.db, connector, settings(), DAY2);
    expect(outcome.status).to.equal('failed');
    if (outcome.status === 'failed') expect(outcome.reason).to.contain('vide');
    expect((await endedKeys()).size).to.equal(0);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: connector, handler: (url) => dataFairHandler(url, () => dataset), settings: (url) => ({ RGE_API_URL: `${url}/data-fair/api/v1/datasets/${DATASET}` }), now: DAY1, delayMs: 30 });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await stored()).length).to.equal(430);
  });
});
