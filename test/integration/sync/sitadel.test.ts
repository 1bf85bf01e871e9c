// The Sitadel connector against a replay of the SDES's DiDo API: each list's latest diffused millesime read once through the Sitadel importer (its two header lines), a new millesime applying its changes, an embargoed one left alone, every permit exactly once whatever the faults, kills and short bodies.
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { latestDiffused, makeSitadelConnector, sitadelConnector, SITADEL_LISTS } from '../../../src/domains/permits/sync-sitadel.js';
import { sitadel } from '../../../src/domains/permits/import-sitadel.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayAnswer, type ReplayRequest, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

const sample = (name: string) => readFileSync(new URL(`../../../../shared/real-samples/sitadel/${name}`, import.meta.url), 'utf8');
/** The real lists of the 2026-01 release (two header lines, then 200 rows each). */
const DEMOLIR = sample('Liste-des-permis-de-demolir.2026-01.head200.csv');
const AMENAGER = sample('Liste-des-permis-damenager.2026-01.head200.csv');

/**
 * No real sample of the housing and premises lists (too large, see SOURCES.md): they are the
 * démolir and aménager rows with those lists' number, state and kind columns (`NUM_DAU`,
 * `ETAT_DAU`, `TYPE_DAU`), in the same two-header layout.
 */
function asDauList(text: string, from: 'PD' | 'PA', kind: 'PC' | 'DP'): string {
  const [labels, codes, ...rows] = text.replace(/\r?\n$/, '').split(/\r?\n/) as [string, string, ...string[]];
  return [
    `${labels};"Type d'autorisation d'urbanisme"`,
    `${codes.replace(`"NUM_${from}"`, '"NUM_DAU"').replace(`"ETAT_${from}"`, '"ETAT_DAU"')};"TYPE_DAU"`,
    ...rows.map((r) => `${r};"${kind}"`),
  ].join('\n');
}

const NOW = new Date('2026-11-26T05:40:00Z');
const DATASET = '6513f0189d7d312c80ec5b5b';
const BASE = '/dido/api/v1';
const PAGE = 50;

interface Millesime {
  millesime: string;
  date_diffusion: string;
  text: string;
}

/** The DiDo API as it answers: a datafile names its dataset, the dataset lists its datafiles' millesimes, `/csv` serves one. */
class Dido {
  lists = new Map<string, Millesime[]>();
  constructor() {
    const texts: Record<string, string> = { logements: asDauList(DEMOLIR, 'PD', 'PC'), locaux: asDauList(AMENAGER, 'PA', 'DP'), demolir: DEMOLIR, amenager: AMENAGER };
    for (const list of SITADEL_LISTS) {
      const text = texts[list.key] as string;
      this.lists.set(list.rid, [
        // An older release (fewer rows) and the current one; the next is announced for later.
        { millesime: '2025-12', date_diffusion: '2025-12-20T10:00:00.000Z', text: text.split('\n').slice(0, -20).join('\n') },
        { millesime: '2026-01', date_diffusion: '2026-01-28T10:00:00.000Z', text },
        { millesime: '2026-12', date_diffusion: '2026-12-20T10:00:00.000Z', text },
      ]);
    }
  }

  rows(m: Millesime): number {
    return m.text.split('\n').filter((l) => l.trim()).length - 2;
  }

  current(rid: string, now: Date): Millesime {
    return (this.lists.get(rid) as Millesime[]).filter((m) => Date.parse(m.date_diffusion) <= now.getTime()).at(-1) as Millesime;
  }

  handler(now: () => Date) {
    return (req: ReplayRequest): ReplayAnswer => {
      const file = new RegExp(`^${BASE}/datafiles/([0-9a-f-]{36})(/csv)?$`).exec(req.path);
      if (file) {
        const millesimes = this.lists.get(file[1] as string);
        if (!millesimes) return { status: 404, json: { code: 404, message: `Pas de fichier de données avec le rid ${file[1]}` } };
        if (!file[2]) {
          const m = this.current(file[1] as string, now());
          return { json: { rid: file[1], title: 'Liste Sitadel', description: '…', millesime: m.millesime, rows: this.rows(m), weburl: `https://data.statistiques.developpement-durable.gouv.fr/dido/api/v1/datafiles/${file[1]}?millesime=${m.millesime}`, dataset: { id: DATASET, title: 'Liste des permis de construire et autres autorisations d’urbanisme', organization: { id: '5a8aa4d3', title: 'SDES', acronym: 'SDES' } } }, gzip: true };
        }
        const m = millesimes.find((x) => x.millesime === req.query.get('millesime'));
        if (!m) return { status: 404, json: { code: 404, message: `Le millésime ${req.query.get('millesime')} n'existe pas pour le fichier de données avec le rid ${file[1]}` } };
        const lines = m.text.split('\n');
        // Labels only with withColumnDescription, codes only with withColumnName.
        const body = [req.query.get('withColumnDescription') === 'true' ? lines[0] : null, req.query.get('withColumnName') === 'true' ? lines[1] : null, ...lines.slice(2)].filter((l) => l !== null).join('\n');
        return { headers: { 'content-type': 'text/csv; charset=utf-8' }, body, gzip: true };
      }
      if (req.path === `${BASE}/datasets/${DATASET}`)
        return {
          json: {
            id: DATASET,
            title: 'Liste des permis de construire et autres autorisations d’urbanisme',
            frequency: 'monthly',
            datafiles: SITADEL_LISTS.map((l) => ({ rid: l.rid, title: l.label, millesimes: (this.lists.get(l.rid) as Millesime[]).map((m) => ({ millesime: m.millesime, date_diffusion: m.date_diffusion, rows: this.rows(m), columns: [] })) })),
          },
          gzip: true,
        };
      return { status: 404, json: { code: 404, message: 'not found' } };
    };
  }
}

/** What the importer makes of each list's current millesime: the oracle. */
async function expectedPermits(dido: Dido, now: Date): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const list of SITADEL_LISTS) {
    for await (const r of sitadel.read(Readable.from([Buffer.from(dido.current(list.rid, now).text)]))) {
      if (!('value' in r)) continue;
      const mapped = sitadel.map(r.value, now.toISOString());
      if ('row' in mapped) out.set(mapped.row.id, mapped.row.etat);
    }
  }
  return out;
}

describe('sync: Sitadel connector (replayed DiDo API)', function () {
  this.timeout(120_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let dido: Dido;
  let clock = NOW;
  const connector = makeSitadelConnector({ pageSize: PAGE });

  beforeEach(async () => {
    database = await openMigratedDatabase();
    dido = new Dido();
    clock = NOW;
    replay = await startReplayServer(dido.handler(() => clock));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ SITADEL_API_URL: `${replay.url}${BASE}` });
  const stored = async () => new Map(((await database.db('permits').select('id', 'etat')) as { id: string; etat: string }[]).map((r) => [r.id, r.etat]));
  const csvRequests = (from = 0) => replay.requests.slice(from).filter((r) => r.path.endsWith('/csv'));

  it('takes the latest millesime already diffused, the publisher’s address being the DiDo API', () => {
    expect(sitadelConnector.baseUrl.default).to.equal('https://data.statistiques.developpement-durable.gouv.fr/dido/api/v1');
    const m = [
      { millesime: '2026-01', date_diffusion: '2026-01-28T10:00:00Z', rows: 5 },
      { millesime: '2026-03', date_diffusion: '2027-01-01T00:00:00Z', rows: 7 },
      { millesime: '2026-02', date_diffusion: '2026-02-27T10:00:00Z', rows: 6 },
      { millesime: 'bad', rows: 1 },
    ];
    expect(latestDiffused(m, NOW)).to.deep.equal({ millesime: '2026-02', rows: 6 });
    expect(latestDiffused([], NOW)).to.equal(null);
  });

  it('a first run reads each list’s latest diffused millesime (not the older, not the embargoed), through the Sitadel importer', async () => {
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const expected = await expectedPermits(dido, NOW);
    expect(await stored()).to.deep.equal(expected);
    const csv = csvRequests();
    expect(csv.map((r) => r.query.get('millesime'))).to.deep.equal(['2026-01', '2026-01', '2026-01', '2026-01']);
    expect(csv.every((r) => r.query.get('withColumnName') === 'true' && r.query.get('withColumnDescription') === 'true')).to.equal(true);
    if (outcome.status !== 'done') return;
    expect(outcome.read).to.equal(4 * 200);
    expect(outcome.added).to.equal(expected.size);
    // A synchronised permit is exactly an imported one: a legal person's name kept, nothing else of the applicant.
    const cnes = (await database.db('permits').where('id', 'PD03155512A0079').first()) as { demandeur: string; siren_demandeur: string; date_autorisation: string };
    expect(cnes).to.include({ demandeur: "CENTRE NATIONAL D'ETUDES SPATIALES", siren_demandeur: '775665912', date_autorisation: '2013-01-07' });
  });

  it('reads nothing while no millesime is new, then only the list with a new one: a changed state and a new permit applied', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    let before = replay.requests.length;
    const idle = await syncOnce(database.db, connector, settings(), NOW);
    expect(idle.status === 'done' && idle.read).to.equal(0);
    expect(csvRequests(before)).to.have.length(0);
    // The demolition list's next release: one permit cancelled (state 4), one new.
    const demolir = SITADEL_LISTS.find((l) => l.key === 'demolir')?.rid as string;
    const current = dido.current(demolir, NOW).text;
    const lines = current.replace(/\n$/, '').split('\n');
    const changed = (lines[2] as string).replace(';2;', ';4;').replace('"2013-01";"2013-01";', '"2013-01";"2026-02";');
    const added = (lines[3] as string).replace('"03155512A0085"', '"03155526A0001"');
    dido.lists.get(demolir)?.splice(2, 0, { millesime: '2026-02', date_diffusion: '2026-02-26T10:00:00.000Z', text: [lines[0], lines[1], changed, ...lines.slice(3), added].join('\n') });
    before = replay.requests.length;
    const next = await syncOnce(database.db, connector, settings(), NOW);
    expect(next.status, JSON.stringify(next)).to.equal('done');
    expect(csvRequests(before).map((r) => r.query.get('millesime'))).to.deep.equal(['2026-02']);
    const rows = await stored();
    expect(rows.get('PD03155512A0079')).to.equal('4');
    expect(rows.has('PD03155526A0001')).to.equal(true);
    expect(rows).to.deep.equal(await expectedPermits(dido, NOW));
    // Once the embargoed millesime is diffused, every list has a new one.
    clock = new Date('2026-12-21T05:40:00Z');
    before = replay.requests.length;
    const december = await syncOnce(database.db, connector, settings(), clock);
    expect(december.status).to.equal('done');
    expect(csvRequests(before).map((r) => r.query.get('millesime'))).to.deep.equal(['2026-12', '2026-12', '2026-12', '2026-12']);
  });

  it('survives the API’s faults: 429 with Retry-After, 500 then success, a body cut short, a stalled answer', async () => {
    const csv = (r: ReplayRequest) => r.path.endsWith('/csv');
    replay.inject(csv, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(csv, { kind: 'status', status: 500 });
    replay.inject(csv, { kind: 'truncate', bytes: 5000 });
    replay.inject(csv, { kind: 'stall' });
    replay.inject((r) => r.path.includes('/datasets/'), { kind: 'status', status: 502 });
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(await stored()).to.deep.equal(await expectedPermits(dido, NOW));
  });

  it('a list shorter than its millesime announces stops the run with the reason, and the next run resumes inside that list', async () => {
    const amenager = SITADEL_LISTS.find((l) => l.key === 'amenager')?.rid as string;
    // Cut between two lines (no transport error): only the count tells.
    replay.inject((r) => r.path === `${BASE}/datafiles/${amenager}/csv`, { kind: 'alter', alter: (a) => ({ ...a, body: String(a.body).split('\n').slice(0, -15).join('\n') }) }, 3);
    const failed = await syncOnce(database.db, connector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    if (failed.status !== 'failed') return;
    expect(failed.reason).to.match(/lecture interrompue après 150 lignes \(18\d lignes reçues pour 200 annoncées/);
    const state = (await database.db('sync_state').where('source', 'permis').first()) as { cursor: string; last_failure_reason: string };
    expect(JSON.parse(state.cursor)).to.deep.include({ current: { list: 'amenager', millesime: '2026-01', recordsDone: 150 } });
    const resumed = await syncOnce(database.db, connector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    if (resumed.status === 'done') expect(resumed.read).to.equal(50);
    expect(await stored()).to.deep.equal(await expectedPermits(dido, NOW));
  });

  it('killed 20 times at random points of its pages, then run again: every permit exactly once, the counts exact', async () => {
    const small = makeSitadelConnector({ pageSize: 20 });
    const outcomes = await killAndResume(database.db, small, settings(), NOW, { kills: 20, maxPage: 4, seed: 42 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const expected = await expectedPermits(dido, NOW);
    expect(await stored()).to.deep.equal(expected);
    const state = (await database.db('sync_state').where('source', 'permis').first()) as { total_added: number | string; cursor: string };
    expect(Number(state.total_added)).to.equal(expected.size);
    expect(JSON.parse(state.cursor)).to.deep.equal({ done: { logements: '2026-01', locaux: '2026-01', demolir: '2026-01', amenager: '2026-01' }, current: null });
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: connector, handler: () => dido.handler(() => NOW), settings: (url) => ({ SITADEL_API_URL: `${url}${BASE}` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect(await stored()).to.deep.equal(await expectedPermits(dido, NOW));
  });
});
