// The ratios BCE/INPI connector against a replay of data.economie.gouv.fr: the whole CSV export (`;`, UTF-8 BOM, gzip) read only when data_processed changed, streamed through the ratios importer, its count checked, and a run killed or cut mid-export resumed skipping exactly the records already written: every account once.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ratiosConnectorWith, RATIOS_DATASET } from '../../../src/domains/companies/sync-ratios.js';
import { type SyncOutcome } from '../../../src/sync/engine.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayHandler, type ReplayServer } from '../../helpers/replay-server.js';
import { seeded, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

const SAMPLES = new URL('../../../../shared/real-samples/ratios/', import.meta.url);
/** The real API answers (Opendatasoft v1): 13 accounts of DANONE, JPL LACOSTE and 3MEDIA, fields named as the export's columns. */
const REAL = ['ratios_inpi_bce-v1-search-552032534-danone.json', 'ratios_inpi_bce-v1-search-328847397-cut-by-repo.json', 'ratios_inpi_bce-v1-search-511278533-cut-by-repo.json'].flatMap(
  (name) => (JSON.parse(readFileSync(new URL(name, SAMPLES), 'utf8')) as { records: { fields: Record<string, unknown> }[] }).records.map((r) => r.fields),
);

/** The export's header, in its published order (SOURCES.md, note 4). */
const COLUMNS =
  'siren;date_cloture_exercice;chiffre_d_affaires;marge_brute;ebe;ebit;resultat_net;taux_d_endettement;ratio_de_liquidite;ratio_de_vetuste;autonomie_financiere;poids_bfr_exploitation_sur_ca;couverture_des_interets;caf_sur_ca;capacite_de_remboursement;marge_ebe;resultat_courant_avant_impots_sur_ca;poids_bfr_exploitation_sur_ca_jours;rotation_des_stocks_jours;credit_clients_jours;credit_fournisseurs_jours;type_bilan;confidentiality'.split(
    ';',
  );

const PAGE = 200;
const COUNT = 1050;
const connector = ratiosConnectorWith(PAGE);
const NOW = new Date('2026-11-26T05:40:00Z');

/** The 13 real accounts as published, then copies of them under other SIRENs, one confidential in 50. */
function accounts(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const real = REAL[k % REAL.length] as Record<string, unknown>;
    if (k < REAL.length) return { ...real };
    return { ...real, siren: String(400000000 + k), ...(k % 50 === 0 ? { confidentiality: 'Confidentiel' } : {}) };
  });
}

/** The CSV export as the portal writes it: a BOM, `;`, CRLF, fields quoted only when needed, a null as an empty field. */
function exportCsv(rows: Record<string, unknown>[]): string {
  const cell = (v: unknown) => {
    if (v === undefined || v === null) return '';
    const s = String(v);
    return /[;"\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return `\uFEFF${COLUMNS.join(';')}\r\n${rows.map((r) => COLUMNS.map((c) => cell(r[c])).join(';')).join('\r\n')}\r\n`;
}

interface OdsRatios {
  rows: Record<string, unknown>[];
  processed: string | null;
  /** `metas.default.records_count` given. */
  withCount: boolean;
  /** The export sent as a .gz file (`application/gzip`, no Content-Encoding) instead of a gzip-encoded answer. */
  asGzFile: boolean;
}

/** Answers as the Explore API v2.1: the dataset's metas, `/records?limit=0`, and `/exports/csv` in `order_by` order. */
function odsRatiosHandler(state: () => OdsRatios): ReplayHandler {
  return (req) => {
    const prefix = `/api/explore/v2.1/catalog/datasets/${RATIOS_DATASET}`;
    const s = state();
    if (req.path === prefix) {
      const metas: Record<string, unknown> = { title: 'Ratios financiers BCE/INPI', modified: '2026-11-20T10:00:00+00:00', metadata_processed: '2026-11-20T10:05:00+00:00' };
      if (s.processed) metas.data_processed = s.processed;
      if (s.withCount) metas.records_count = s.rows.length;
      return { json: { dataset_id: RATIOS_DATASET, has_records: true, metas: { default: metas } } };
    }
    if (req.path === `${prefix}/records`) return { json: { total_count: s.rows.length, results: [] } };
    if (req.path !== `${prefix}/exports/csv`) return { status: 404, json: { error_code: 'DatasetNotFound', message: 'Unknown dataset' } };
    const order = (req.query.get('order_by') ?? '').split(',').map((f) => f.trim()).filter(Boolean);
    const rows = [...s.rows].sort((a, b) => {
      for (const f of order) {
        const c = String(a[f] ?? '').localeCompare(String(b[f] ?? ''));
        if (c) return c;
      }
      return 0;
    });
    const csv = exportCsv(rows);
    const headers = { 'content-disposition': `attachment; filename="${RATIOS_DATASET}.csv"` };
    if (s.asGzFile) return { body: gzipSync(Buffer.from(csv)), headers: { ...headers, 'content-type': 'application/gzip' } };
    return { body: csv, headers: { ...headers, 'content-type': 'text/csv; charset=utf-8' }, gzip: true };
  };
}

type Account = { siren: string; date_cloture: string; type_bilan: string; confidentiel: boolean | number; chiffre_affaires: number | null; resultat_net: number | null };

describe('sync: ratios BCE/INPI connector (replayed data.economie.gouv.fr export)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let state: OdsRatios;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    state = { rows: accounts(COUNT), processed: '2026-11-20T09:58:12.123+00:00', withCount: true, asGzFile: false };
    replay = await startReplayServer(odsRatiosHandler(() => state));
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ RATIOS_API_URL: `${replay.url}/api/explore/v2.1` });
  const stored = async () => (await database.db('company_accounts').select('siren', 'date_cloture', 'type_bilan', 'confidentiel', 'chiffre_affaires', 'resultat_net')) as Account[];
  const keys = (rows: object[]) =>
    (rows as Record<string, unknown>[]).map((r) => `${String(r.siren)}|${String(r.date_cloture ?? r.date_cloture_exercice)}|${String(r.type_bilan)}`).sort();
  const exports = () => replay.requests.filter((r) => r.path.endsWith('/exports/csv'));
  const cursor = async () => JSON.parse(((await database.db('sync_state').where('source', 'ratios').first()) as { cursor: string }).cursor) as { processed: string | null; recordsDone: number | null };
  const totalAdded = async () => Number(((await database.db('sync_state').where('source', 'ratios').first()) as { total_added: number | string }).total_added);

  it('a first run streams the whole export through the ratios importer: every account, as an imported one', async () => {
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    if (outcome.status !== 'done') return;
    expect(outcome.read).to.equal(COUNT);
    expect(outcome.added).to.equal(COUNT);
    expect(outcome.pages).to.equal(6);
    const rows = await stored();
    expect(keys(rows)).to.deep.equal(keys(state.rows));
    const danone = rows.find((r) => r.siren === '552032534' && r.date_cloture === '2022-12-31' && r.type_bilan === 'K');
    expect(danone?.chiffre_affaires).to.equal(24281000000);
    // Confidential accounts keep no figure, as on import.
    const hidden = rows.find((r) => r.siren === String(400000000 + 50));
    expect(Boolean(hidden?.confidentiel)).to.equal(true);
    expect(hidden?.chiffre_affaires).to.equal(null);
    const asked = exports();
    expect(asked.length).to.equal(1);
    expect(asked[0]?.query.get('delimiter')).to.equal(';');
    expect(asked[0]?.query.get('order_by')).to.equal('siren,date_cloture_exercice,type_bilan');
    expect(await cursor()).to.deep.equal({ processed: state.processed, recordsDone: null });
  });

  it('reads nothing while data_processed is unchanged, then the whole export once it changes: corrections applied, nothing duplicated; --since reads it again', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, connector, settings(), NOW);
    expect(idle.status === 'done' && idle.read).to.equal(0);
    expect(replay.requests.length - before).to.equal(1);
    // The portal reprocesses: DANONE's 2022 K turnover corrected, one account added.
    const danone = state.rows.find((r) => r.siren === '552032534' && r.date_cloture_exercice === '2022-12-31' && r.type_bilan === 'K') as Record<string, unknown>;
    danone.chiffre_d_affaires = 27661000000;
    state.rows.push({ ...(REAL[0] as Record<string, unknown>), siren: '300000001' });
    state.processed = '2026-11-27T09:58:00+00:00';
    const next = await syncOnce(database.db, connector, settings(), new Date('2026-11-27T05:40:00Z'));
    expect(next.status, JSON.stringify(next)).to.equal('done');
    if (next.status !== 'done') return;
    expect(next.added).to.equal(1);
    expect(next.updated).to.equal(COUNT);
    const rows = await stored();
    expect(rows.length).to.equal(COUNT + 1);
    expect(rows.find((r) => r.siren === '552032534' && r.date_cloture === '2022-12-31' && r.type_bilan === 'K')?.chiffre_affaires).to.equal(27661000000);
    const forced = await syncOnce(database.db, connector, settings(), new Date('2026-11-27T08:00:00Z'), { since: '2026-11-27' });
    expect(forced.status === 'done' && forced.read).to.equal(COUNT + 1);
  });

  it('killed mid-export, then run again: the export is read again and the records already written skipped', async () => {
    const killed = await syncOnce(database.db, connector, settings(), NOW, {}, {
      faultPoint: (at, page) => {
        if (at === 'after-commit' && page === 2) throw new Error('arrêt simulé');
      },
    });
    expect(killed.status).to.equal('failed');
    expect(await cursor()).to.deep.equal({ processed: state.processed, recordsDone: 3 * PAGE });
    const resumed = await syncOnce(database.db, connector, settings(), NOW);
    expect(resumed.status, JSON.stringify(resumed)).to.equal('done');
    if (resumed.status !== 'done') return;
    expect(resumed.read).to.equal(COUNT - 3 * PAGE);
    expect(resumed.added).to.equal(COUNT - 3 * PAGE);
    expect(keys(await stored())).to.deep.equal(keys(state.rows));
  });

  it('killed 20 times at random points of its pages (the portal reprocessing after each whole export), then run again: every account exactly once, the counts exact, the last figures kept', async () => {
    const random = seeded(24);
    const points = ['before-write', 'after-write', 'after-commit'] as const;
    const outcomes: SyncOutcome[] = [];
    let turnover = 1000;
    for (let k = 0; k < 20; k++) {
      const row = (await database.db('sync_state').where('source', 'ratios').first('cursor')) as { cursor: string | null } | undefined;
      if (row?.cursor && (JSON.parse(row.cursor) as { recordsDone: unknown }).recordsDone === null) {
        // The export was read whole: the portal reprocesses, a figure corrected.
        turnover += 1;
        (state.rows[COUNT - 1] as Record<string, unknown>).chiffre_d_affaires = turnover;
        state.processed = `2026-11-20T10:${String(k).padStart(2, '0')}:00+00:00`;
      }
      const page = Math.floor(random() * 6);
      const point = points[Math.floor(random() * points.length)];
      outcomes.push(
        await syncOnce(database.db, connector, settings(), NOW, {}, {
          faultPoint: (at, index) => {
            if (at === point && index === page) throw new Error(`arrêt simulé (${point}, page ${page})`);
          },
        }),
      );
    }
    const last = await syncOnce(database.db, connector, settings(), NOW);
    expect(last.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const rows = await stored();
    expect(keys(rows)).to.deep.equal(keys(state.rows));
    expect(await totalAdded()).to.equal(COUNT);
    const lastRow = state.rows[COUNT - 1] as Record<string, unknown>;
    expect(rows.find((r) => r.siren === lastRow.siren && r.date_cloture === lastRow.date_cloture_exercice && r.type_bilan === lastRow.type_bilan)?.chiffre_affaires).to.equal(turnover);
  });

  it('survives the portal faults in one run: 429 with Retry-After, 500 then success, an export cut mid-body, a stalled export', async () => {
    const isExport = (r: { path: string }) => r.path.endsWith('/exports/csv');
    replay.inject(isExport, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(isExport, { kind: 'status', status: 500 });
    replay.inject(isExport, { kind: 'truncate', bytes: 20_000 });
    replay.inject(isExport, { kind: 'stall' });
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    // The refusals retried by the client, then the cut and the stalled exports read again from the records written.
    expect(exports().length).to.equal(5);
    expect(keys(await stored())).to.deep.equal(keys(state.rows));
    expect(await totalAdded()).to.equal(COUNT);
  });

  it('an export that ends early without an error: the rows read are kept, the run says why, and the next run reads only the rest', async () => {
    const cut = (a: { body?: string | Buffer }) => {
      const text = String(a.body);
      let at = 0;
      for (let n = 0; n <= 700; n++) at = text.indexOf('\r\n', at) + 2;
      return { ...a, body: text.slice(0, at) };
    };
    replay.inject((r) => r.path.endsWith('/exports/csv'), { kind: 'alter', alter: cut }, 3);
    const failed = await syncOnce(database.db, connector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    if (failed.status !== 'failed') return;
    expect(failed.reason).to.contain(`700 enregistrements reçus pour ${COUNT}`);
    expect(await cursor()).to.deep.equal({ processed: state.processed, recordsDone: 700 });
    expect((await stored()).length).to.equal(700);
    const resumed = await syncOnce(database.db, connector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    expect(resumed.status === 'done' && resumed.read).to.equal(COUNT - 700);
    expect(await totalAdded()).to.equal(COUNT);
  });

  it('an export served as a .gz file, a portal without records_count: decompressed, counted by /records', async () => {
    state.asGzFile = true;
    state.withCount = false;
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(keys(await stored())).to.deep.equal(keys(state.rows));
    expect(replay.requests.some((r) => r.path.endsWith('/records') && r.query.get('limit') === '0')).to.equal(true);
  });

  it('a portal that does not say data_processed: nothing read, the run fails saying why', async () => {
    state.processed = null;
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status).to.equal('failed');
    if (outcome.status === 'failed') expect(outcome.reason).to.contain('data_processed');
    expect(exports().length).to.equal(0);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: connector, handler: () => odsRatiosHandler(() => state), settings: (url) => ({ RATIOS_API_URL: `${url}/api/explore/v2.1` }), now: NOW, delayMs: 30, secondAfterMs: 20 });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect((await stored()).length).to.equal(COUNT);
  });
});
