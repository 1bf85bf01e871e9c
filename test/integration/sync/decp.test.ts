// The DECP connector against a replay of data.economie.gouv.fr's two DECP datasets (flattened rows, 2022 and 2019 schemas): every contract exactly once with all its holders whatever the page boundaries, faults and kills, corrections of past days applied, nothing read while the portal has processed nothing new, one run per source across processes.
import { expect } from 'chai';
import { decpConnector, DECP_FIRST_DAYS } from '../../../src/domains/awards/sync-decp.js';
import { decp } from '../../../src/domains/awards/import-decp.js';
import { addDays } from '../../../src/sync/days.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { odsHandler, startReplayServer, type OdsDataset, type ReplayServer } from '../../helpers/replay-server.js';
import { killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';
import { rows2019, rows2022, sampleContracts } from '../../helpers/decp-ods-rows.js';

type Raw = Record<string, unknown>;

/** 2026-11-26 16:30 in Paris. */
const NOW = new Date('2026-11-26T15:30:00Z');
const TODAY = '2026-11-26';
const D2022 = 'decp-2022-marches-valides';
const D2019 = 'decp-v3-marches-valides';

/** Real contracts usable as templates (those the importer keeps). */
const mappable = (contracts: Raw[]) => contracts.filter((c) => 'row' in decp.map(c as never, 'x'));
const TEMPLATES_2022 = mappable([...sampleContracts('decp-2024-megalis-59920013600241-2024-07-09-01.json'), ...sampleContracts('decp-2024-shape-decp-processing-fixture.json')]);
const TEMPLATES_2019 = mappable([...sampleContracts('decp-2019-official-example-paquet.json'), ...sampleContracts('decp-2019-shape-decp-processing-fixture.json')]);

/** Extra holders, so that contracts have up to 5 (two rows of holders), and amendments multiply the rows. */
const EXTRA = ['18420001200013', '18420002000016', '18420003800018'];

/** `perDay` contracts a day on each of `days`, each a real one with its id, publication day and holders changed. */
function contracts(templates: Raw[], days: string[], perDay: number, schema: '2019' | '2022'): Raw[] {
  const out: Raw[] = [];
  days.forEach((day, d) => {
    for (let i = 0; i < perDay; i++) {
      const t = structuredClone(templates[(d + i) % templates.length]) as Raw;
      const extra = EXTRA.slice(0, i % 4).map((id) => (schema === '2022' ? { titulaire: { typeIdentifiant: 'SIRET', id } } : { typeIdentifiant: 'SIRET', id, denominationSociale: `Entreprise ${id}` }));
      out.push({ ...t, id: `${schema}-${day}-${String(i).padStart(3, '0')}`, datePublicationDonnees: day, titulaires: [...((t.titulaires as unknown[]) ?? []), ...extra] });
    }
  });
  return out;
}

/** What the importer makes of the published contracts: award key → winners' SIRETs. */
function expected(list: Raw[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const c of list) {
    const m = decp.map(c as never, 'x');
    if ('row' in m) out.set(m.row.award_key, m.row.winners.map((w) => w.siret).sort());
  }
  return out;
}

describe('sync: DECP connector (replayed portal, both schemas)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let published: { '2022': Raw[]; '2019': Raw[] };
  let datasets: OdsDataset[];

  /** The portal's rows of the published contracts. */
  const flatten = () => {
    (datasets[0] as OdsDataset).records = published['2022'].flatMap(rows2022);
    (datasets[1] as OdsDataset).records = published['2019'].flatMap(rows2019);
  };

  beforeEach(async () => {
    database = await openMigratedDatabase();
    published = {
      // Days of 60 contracts (about 150 rows: contracts straddle the pages of 100), others empty.
      '2022': contracts(TEMPLATES_2022, [0, 2, 5, 9, 16, 29].map((n) => addDays(TODAY, -n)), 60, '2022'),
      '2019': contracts(TEMPLATES_2019, [1, 7, 20].map((n) => addDays(TODAY, -n)), 45, '2019'),
    };
    datasets = [
      { id: D2022, dateField: 'datepublicationdonnees', processed: '2026-11-26T12:41:12+00:00', records: [] },
      { id: D2019, dateField: 'datepublicationdonnees', processed: '2026-11-26T03:10:00+00:00', records: [] },
    ];
    flatten();
    replay = await startReplayServer(odsHandler(() => datasets));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ DECP_API_URL: `${replay.url}/api/explore/v2.1` });
  const all = () => expected([...published['2022'], ...published['2019']]);
  /** The stored awards and their winners, as the expected map. */
  async function stored(): Promise<Map<string, string[]>> {
    const awards = (await database.db('awards').select('award_key')) as { award_key: string }[];
    const winners = (await database.db('award_winners').select('award_key', 'siret')) as { award_key: string; siret: string }[];
    return new Map(awards.map((a) => [a.award_key, winners.filter((w) => w.award_key === a.award_key).map((w) => w.siret).sort()]));
  }

  it('a first run reads the last 30 days of each dataset, the rows of each contract gathered: every contract once with all its holders', async () => {
    const outcome = await syncOnce(database.db, decpConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(await stored()).to.deep.equal(all());
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(all().size);
    const pages = replay.requests.filter((r) => r.path.endsWith('/records'));
    for (const id of [D2022, D2019]) {
      const days = new Set(pages.filter((r) => r.path.includes(id)).map((r) => r.query.get('where')));
      expect(days.size, id).to.equal(DECP_FIRST_DAYS);
    }
    expect(pages.every((r) => r.query.get('order_by') === 'id' && /^datepublicationdonnees = date'\d{4}-\d{2}-\d{2}'$/.test(r.query.get('where') ?? ''))).to.equal(true);
    // The 2019 schema's names are kept (a holder's, the buyer's).
    const rennes = (await database.db('award_winners').where('siret', '81223113200026').first('denomination')) as { denomination: string } | undefined;
    expect(rennes?.denomination).to.equal('Garami SARL');
    const state = (await database.db('sync_state').where('source', 'decp').first('cursor')) as { cursor: string };
    expect(Object.keys(JSON.parse(state.cursor) as object).sort()).to.deep.equal([D2022, D2019].sort());
  });

  it('reads nothing while neither dataset is processed again, then the window of the one that is: a corrected contract and a new day applied, nothing duplicated', async () => {
    await syncOnce(database.db, decpConnector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, decpConnector, settings(), NOW);
    expect(idle.status === 'done' && idle.read).to.equal(0);
    expect(replay.requests.slice(before).map((r) => r.path.split('/').pop())).to.deep.equal([D2022, D2019]);
    // The publisher corrects a contract published 5 days ago (a co-holder, a new object) and publishes the next day.
    const corrected = published['2022'].find((c) => c.datePublicationDonnees === addDays(TODAY, -5)) as Raw;
    corrected.objet = 'Réfection complète de la charpente';
    corrected.titulaires = [...(corrected.titulaires as unknown[]), { titulaire: { typeIdentifiant: 'SIRET', id: '18420004600011' } }];
    const tomorrow = addDays(TODAY, 1);
    published['2022'].push(...contracts(TEMPLATES_2022, [tomorrow], 3, '2022'));
    flatten();
    (datasets[0] as OdsDataset).processed = '2026-11-27T12:40:00+00:00';
    const at = replay.requests.length;
    const next = await syncOnce(database.db, decpConnector, settings(), new Date('2026-11-27T15:30:00Z'));
    expect(next.status, JSON.stringify(next)).to.equal('done');
    expect(await stored()).to.deep.equal(all());
    const key = [...expected([corrected]).keys()][0] as string;
    const row = (await database.db('awards').where('award_key', key).first('objet')) as { objet: string };
    expect(row.objet).to.equal('Réfection complète de la charpente');
    // The 2022 window: 14 days before the last day done, to the new day; the 2019 dataset unchanged: nothing read of it.
    const read = replay.requests.slice(at).filter((r) => r.path.endsWith('/records'));
    expect(new Set(read.filter((r) => r.path.includes(D2022)).map((r) => r.query.get('where'))).size).to.equal(16);
    expect(read.some((r) => r.path.includes(D2019))).to.equal(false);
  });

  it('survives the portal faults: 429 with Retry-After, 500 then success, a body cut short, a stalled answer, a page shorter than total_count', async () => {
    const records = (r: { path: string; query: URLSearchParams }) => r.path.endsWith('/records') && r.query.get('offset') === '100';
    replay.inject(records, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(records, { kind: 'status', status: 500 });
    replay.inject(records, { kind: 'truncate', bytes: 200 });
    replay.inject(records, { kind: 'stall' });
    replay.inject(records, { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: ((a.json as { results: unknown[] }).results ?? []).slice(1) } }) });
    const outcome = await syncOnce(database.db, decpConnector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(await stored()).to.deep.equal(all());
  });

  it('stopped in the middle of a contract\'s rows, resumes before them: the contract keeps every holder', async () => {
    // The second page of a day fails three times: the run stops after the first page.
    const day = `datepublicationdonnees = date'${addDays(TODAY, -2)}'`;
    replay.inject((r) => r.path.includes(D2022) && r.query.get('where') === day && r.query.get('offset') === '100', { kind: 'alter', alter: (a) => ({ ...a, json: { ...(a.json as object), results: [] } }) }, 3);
    const failed = await syncOnce(database.db, decpConnector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    const cursor = JSON.parse(((await database.db('sync_state').where('source', 'decp').first('cursor')) as { cursor: string }).cursor) as Record<string, { day: string; offset: number }>;
    // The cursor stops before the rows of the contract the first page ended in.
    const at = cursor[D2022]?.offset as number;
    expect(cursor[D2022]?.day).to.equal(addDays(TODAY, -2));
    const rows = ((datasets[0] as OdsDataset).records.filter((r) => r.datepublicationdonnees === addDays(TODAY, -2)) as Raw[]).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    expect(at).to.be.within(1, 99);
    expect(rows[at - 1]?.id).to.not.equal(rows[at]?.id);
    expect(rows[at]?.id).to.equal(rows[99]?.id);
    expect(rows[99]?.id).to.equal(rows[100]?.id);
    const resumed = await syncOnce(database.db, decpConnector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    expect(await stored()).to.deep.equal(all());
  });

  it('killed 20 times at random points of its pages, then run again: every contract exactly once with all its holders, the counts exact', async () => {
    const outcomes = await killAndResume(database.db, decpConnector, settings(), NOW, { kills: 20, maxPage: 6, seed: 24 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    expect(await stored()).to.deep.equal(all());
    const state = (await database.db('sync_state').where('source', 'decp').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(all().size);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: decpConnector, handler: () => odsHandler(() => datasets), settings: (url) => ({ DECP_API_URL: `${url}/api/explore/v2.1` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect(await stored()).to.deep.equal(all());
  });
});
