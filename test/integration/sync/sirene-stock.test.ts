// The SIRENE monthly stock connector against a replay of data.gouv.fr's stable resource links (302 to the month's zip, with its ETag): nothing downloaded while neither file changed, a changed zip downloaded to disk then read through the SIRENE importers in pages, units before establishments, a run killed inside resuming from its download and its cursor, every record exactly once whatever the faults and kills, one run across processes.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { expect } from 'chai';
import yazl from 'yazl';
import { SYNC_SETTING_NAMES } from '../../../src/config.js';
import { CONNECTORS } from '../../../src/domains/connectors.js';
import { sireneEtablissements, sireneUnites } from '../../../src/domains/companies/import-sirene.js';
import { makeSireneStockConnector, readSireneStockCursor, sameVersion, SIRENE_STOCK_FILES, sireneStockConnector } from '../../../src/domains/companies/sync-sirene-stock.js';
import { STOCK_ETABLISSEMENT_COLUMNS } from '../../../src/domains/companies/sync-sirene.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayAnswer, type ReplayRequest, type ReplayServer } from '../../helpers/replay-server.js';
import { REAL_ESTABLISHMENT_ROWS, REAL_UNIT_ROWS, type StockRow } from '../../helpers/sirene-replay.js';
import { FAST_TIMING, killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

const NOW = new Date('2026-12-02T04:10:00Z');
const LATER = new Date('2027-01-03T04:10:00Z');
const PAGE = 10;

/** The current StockUniteLegale header, as the real sample gives it (35 columns). */
const UNIT_HEADER = (readFileSync(new URL('../../../../shared/real-samples/sirene/joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv', import.meta.url), 'utf8').split(/\r?\n/)[0] as string).split(',');
/** The current StockEtablissement header: its second address (`…2Etablissement`, as in the real 2019 sample) after the first one's Lambert coordinates. */
const SAMPLE_ETAB_HEADER = (readFileSync(new URL('../../../../shared/real-samples/sirene/sirene_as_api-sample_etablissements_OK.csv', import.meta.url), 'utf8').split(/\r?\n/)[0] as string).split(',');
const SECOND_ADDRESS = SAMPLE_ETAB_HEADER.filter((c) => /2Etablissement$/.test(c));
const at = STOCK_ETABLISSEMENT_COLUMNS.indexOf('coordonneeLambertOrdonneeEtablissement') + 1;
const ETAB_HEADER = [...STOCK_ETABLISSEMENT_COLUMNS.slice(0, at), ...SECOND_ADDRESS, ...STOCK_ETABLISSEMENT_COLUMNS.slice(at)];

const csvOf = (header: readonly string[], rows: StockRow[]) => [header.join(','), ...rows.map((r) => header.map((c) => r[c] ?? '').join(','))].join('\n') + '\n';

/** `n` units: the real rows first as they are, then copies under other SIRENs. */
function units(n: number): StockRow[] {
  return Array.from({ length: n }, (_, i) => (i < REAL_UNIT_ROWS.length ? { ...(REAL_UNIT_ROWS[i] as StockRow) } : { ...(REAL_UNIT_ROWS[i % REAL_UNIT_ROWS.length] as StockRow), siren: String(700_000_000 + i) }));
}

/** `n` establishments: the real rows first, then head offices of the copied units. */
function establishments(n: number): StockRow[] {
  return Array.from({ length: n }, (_, i) => {
    if (i < REAL_ESTABLISHMENT_ROWS.length) return { ...(REAL_ESTABLISHMENT_ROWS[i] as StockRow) };
    const siren = String(700_000_000 + i);
    return {
      ...(REAL_ESTABLISHMENT_ROWS[i % REAL_ESTABLISHMENT_ROWS.length] as StockRow),
      siren,
      nic: '00012',
      siret: `${siren}00012`,
      dateCreationEtablissement: '2019-03-01',
      etablissementSiege: 'true',
      etatAdministratifEtablissement: 'A',
      numeroVoieEtablissement: String(1 + (i % 90)),
      typeVoieEtablissement: 'RUE',
      libelleVoieEtablissement: 'DE SIAM',
      codePostalEtablissement: '29200',
      libelleCommuneEtablissement: 'BREST',
      codeCommuneEtablissement: '29019',
    };
  });
}

function zipOf(entry: string, text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(text), entry, { mtime: new Date('2026-12-01T02:00:00Z') });
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

interface Published {
  entry: string;
  header: readonly string[];
  rows: StockRow[];
  modified: Date;
  zip?: Buffer;
}

/**
 * data.gouv.fr as it serves the stock: `/fr/datasets/r/{resource}` redirects (302) to the
 * file on its object storage, which answers with its ETag (an S3 multipart one) and
 * Last-Modified, 304 to a conditional request of the same version.
 */
class DataGouv {
  /** The files sent whole (200), in order. */
  served: string[] = [];
  files: Record<'StockUniteLegale' | 'StockEtablissement', Published> = {
    StockUniteLegale: { entry: 'StockUniteLegale_utf8.csv', header: UNIT_HEADER, rows: units(60), modified: new Date('2026-12-01T05:12:00Z') },
    StockEtablissement: { entry: 'StockEtablissement_utf8.csv', header: ETAB_HEADER, rows: establishments(45), modified: new Date('2026-12-01T05:40:00Z') },
  };

  /** Rebuilds a file's zip after its rows changed (a new month). */
  publish(name: keyof DataGouv['files'], modified: Date) {
    const f = this.files[name];
    f.modified = modified;
    delete f.zip;
  }

  async zip(name: keyof DataGouv['files']): Promise<Buffer> {
    const f = this.files[name];
    f.zip ??= await zipOf(f.entry, csvOf(f.header, f.rows));
    return f.zip;
  }

  async etag(name: keyof DataGouv['files']): Promise<string> {
    return `"${createHash('md5').update(await this.zip(name)).digest('hex')}-12"`;
  }

  handler() {
    return async (req: ReplayRequest): Promise<ReplayAnswer> => {
      const link = /^\/fr\/datasets\/r\/([0-9a-f-]{36})$/.exec(req.path);
      if (link) {
        const file = SIRENE_STOCK_FILES.find((f) => f.resource === link[1]);
        if (!file) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><body>Page non trouvée</body></html>' };
        return { status: 302, headers: { location: `/data-pipeline-open/siren/stock/${file.name}_utf8.zip`, 'content-type': 'text/html' }, body: '' };
      }
      const m = /^\/data-pipeline-open\/siren\/stock\/(StockUniteLegale|StockEtablissement)_utf8\.zip$/.exec(req.path);
      if (!m) return { status: 404, headers: { 'content-type': 'application/xml' }, body: '<Error><Code>NoSuchKey</Code></Error>' };
      const name = m[1] as keyof DataGouv['files'];
      const etag = await this.etag(name);
      const headers = { etag, 'last-modified': this.files[name].modified.toUTCString(), 'content-type': 'application/zip', 'accept-ranges': 'bytes' };
      if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && req.headers['if-modified-since'] === this.files[name].modified.toUTCString())) return { status: 304, headers };
      this.served.push(name);
      return { headers, body: await this.zip(name) };
    };
  }
}

/** What the importers make of the published files: the oracle (key → processing instant and name or address). */
async function expected(site: DataGouv): Promise<{ units: Map<string, string | null>; etabs: Map<string, string | null> }> {
  const unitsOut = new Map<string, string | null>();
  for await (const r of sireneUnites.read(Readable.from([Buffer.from(csvOf(site.files.StockUniteLegale.header, site.files.StockUniteLegale.rows))]))) {
    if (!('value' in r)) continue;
    const m = sireneUnites.map(r.value, NOW.toISOString());
    if ('row' in m) unitsOut.set(m.row.siren, m.row.denomination ?? m.row.nom_personne);
  }
  const etabs = new Map<string, string | null>();
  for await (const r of sireneEtablissements.read(Readable.from([Buffer.from(csvOf(site.files.StockEtablissement.header, site.files.StockEtablissement.rows))]))) {
    if (!('value' in r)) continue;
    const m = sireneEtablissements.map(r.value, NOW.toISOString());
    if ('row' in m) etabs.set(m.row.siret, m.row.adresse);
  }
  return { units: unitsOut, etabs };
}

describe('sync: SIRENE monthly stock connector (replayed data.gouv.fr stable links)', function () {
  this.timeout(180_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let site: DataGouv;
  let dir: string;
  let connector: ReturnType<typeof makeSireneStockConnector>;

  beforeEach(async () => {
    database = await openMigratedDatabase();
    site = new DataGouv();
    replay = await startReplayServer(site.handler());
    dir = mkdtempSync(join(tmpdir(), 'sirene-stock-test-'));
    connector = makeSireneStockConnector({ pageSize: PAGE, dir });
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = () => ({ SIRENE_STOCK_URL: `${replay.url}/fr/datasets/r` });
  const storedUnits = async () => new Map(((await database.db('companies').where('unit_known', true).select('siren', 'denomination', 'nom_personne')) as { siren: string; denomination: string | null; nom_personne: string | null }[]).map((r) => [r.siren, r.denomination ?? r.nom_personne]));
  const storedEtabs = async () => new Map(((await database.db('establishments').select('siret', 'adresse')) as { siret: string; adresse: string | null }[]).map((r) => [r.siret, r.adresse]));
  const fileRequests = (from = 0) => replay.requests.slice(from).filter((r) => r.path.startsWith('/data-pipeline-open/'));
  const cursorOf = async () => JSON.parse(((await database.db('sync_state').where('source', 'sirene-stock').first()) as { cursor: string }).cursor) as { files: Record<string, unknown>; current: { file: string; recordsDone: number } | null };

  it('is declared with data.gouv.fr’s stable links of the two stock files, its setting, a daily check and a monthly freshness', () => {
    expect(sireneStockConnector.baseUrl).to.deep.equal({ setting: 'SIRENE_STOCK_URL', default: 'https://www.data.gouv.fr/fr/datasets/r' });
    expect(SIRENE_STOCK_FILES.map((f) => [f.name, f.resource, f.importer])).to.deep.equal([
      ['StockUniteLegale', '825f4199-cadd-486c-ac46-a65a8ea1a047', 'sirene-unites'],
      ['StockEtablissement', '0651fb76-bcf3-4f6a-a38d-bc04fa708576', 'sirene-etablissements'],
    ]);
    expect(SYNC_SETTING_NAMES).to.include('SIRENE_STOCK_URL');
    expect(CONNECTORS.map((c) => c.name)).to.include('sirene-stock');
    expect(sireneStockConnector.alertSource).to.equal('entreprise');
    expect(sireneStockConnector.schedule).to.have.length(1);
    expect(sireneStockConnector.schedule[0]).to.match(/^\d+ \d+ \* \* \*$/);
    expect(sireneStockConnector.staleAfterHours).to.equal(960);
    expect(sireneStockConnector.credentials ?? []).to.deep.equal([]);
    // The cursor read back keeps only what it knows.
    expect(readSireneStockCursor({ files: { StockUniteLegale: { etag: '"a"' }, Autre: {} }, current: { file: 'StockEtablissement', version: { lastModified: 'x' }, recordsDone: 20 } })).to.deep.equal({
      files: { StockUniteLegale: { etag: '"a"', lastModified: null } },
      current: { file: 'StockEtablissement', version: { etag: null, lastModified: 'x' }, recordsDone: 20 },
    });
    expect(readSireneStockCursor({ current: { file: 'StockEtablissement', recordsDone: -1 } }).current).to.equal(null);
    expect(sameVersion({ etag: '"a"', lastModified: 'x' }, { etag: '"a"', lastModified: 'y' })).to.equal(true);
    expect(sameVersion({ etag: null, lastModified: null }, { etag: null, lastModified: null })).to.equal(false);
  });

  it('a first run follows the stable links, downloads the units then the establishments, and writes every record through the SIRENE importers in pages', async () => {
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const oracle = await expected(site);
    expect(await storedUnits()).to.deep.equal(oracle.units);
    expect(await storedEtabs()).to.deep.equal(oracle.etabs);
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(oracle.units.size + oracle.etabs.size);
    expect(outcome.pages).to.be.greaterThan(8);
    expect(replay.requests.map((r) => r.path)).to.deep.equal([
      '/fr/datasets/r/825f4199-cadd-486c-ac46-a65a8ea1a047',
      '/data-pipeline-open/siren/stock/StockUniteLegale_utf8.zip',
      '/fr/datasets/r/0651fb76-bcf3-4f6a-a38d-bc04fa708576',
      '/data-pipeline-open/siren/stock/StockEtablissement_utf8.zip',
    ]);
    expect(String(replay.requests[0]?.headers['user-agent'])).to.match(/^batidata-api-sync\//);
    // A synchronised unit is exactly an imported one: a real row of the stock.
    const real = (await database.db('companies').where('siren', '016750697').first()) as { denomination: string; etat: string; source_updated: string; ingested_at: string };
    expect(real).to.include({ denomination: 'ETS J VIRLY S A', etat: 'A', source_updated: '2025-12-06T05:25:38', ingested_at: NOW.toISOString() });
    // Both files read to their end: their versions kept, their downloads removed.
    const cursor = await cursorOf();
    expect(cursor.current).to.equal(null);
    expect(Object.keys(cursor.files)).to.deep.equal(['StockUniteLegale', 'StockEtablissement']);
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('the next days cost two conditional requests and read nothing until a file changes', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, connector, settings(), new Date(NOW.getTime() + 86_400_000));
    expect(idle.status === 'done' && idle.read).to.equal(0);
    const asked = fileRequests(before);
    expect(asked).to.have.length(2);
    expect(asked.every((r) => typeof r.headers['if-none-match'] === 'string' && typeof r.headers['if-modified-since'] === 'string')).to.equal(true);
    expect(replay.requests.length - before).to.equal(4);
  });

  it('a new month of units is reloaded whole: corrections applied, new units added, the others keep their ingested_at, a newer daily change is kept; the unchanged establishments are not downloaded', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const f = site.files.StockUniteLegale;
    const corrected = f.rows[20] as StockRow;
    f.rows[20] = { ...corrected, denominationUniteLegale: 'DENOMINATION CORRIGEE', dateDernierTraitementUniteLegale: '2026-12-20T04:00:00' };
    f.rows.push({ ...(f.rows[21] as StockRow), siren: '799999999', dateDernierTraitementUniteLegale: '2026-12-21T04:00:00' });
    // The daily changes brought a newer processing of unit 30 than the stock's: it stays.
    const daily = (f.rows[30] as StockRow).siren as string;
    await database.db('companies').where('siren', daily).update({ denomination: 'DEPUIS LE SUIVI QUOTIDIEN', source_updated: '2027-01-02T04:00:00' });
    site.publish('StockUniteLegale', new Date('2027-01-01T05:12:00Z'));
    const before = site.served.length;
    const outcome = await syncOnce(database.db, connector, settings(), LATER);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(site.served.slice(before)).to.deep.equal(['StockUniteLegale']);
    const oracle = await expected(site);
    const stored = await storedUnits();
    expect(stored.get(corrected.siren as string)).to.equal('DENOMINATION CORRIGEE');
    expect(stored.get(daily)).to.equal('DEPUIS LE SUIVI QUOTIDIEN');
    stored.set(daily, oracle.units.get(daily) ?? null);
    expect(stored).to.deep.equal(oracle.units);
    if (outcome.status === 'done') {
      expect(outcome.read).to.equal(f.rows.length);
      expect(outcome.added).to.equal(1);
      expect(outcome.kept).to.be.greaterThan(0);
    }
    const ingested = async (siren: string) => ((await database.db('companies').where('siren', siren).first()) as { ingested_at: string }).ingested_at;
    expect(await ingested('799999999')).to.equal(LATER.toISOString());
    expect(await ingested(corrected.siren as string)).to.equal(NOW.toISOString());
  });

  it('--since reads both files again whatever their version', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = site.served.length;
    const outcome = await syncOnce(database.db, connector, settings(), LATER, { since: '2026-12-01' });
    expect(outcome.status).to.equal('done');
    expect(site.served.slice(before)).to.deep.equal(['StockUniteLegale', 'StockEtablissement']);
  });

  it('survives the publisher’s faults: 429 with Retry-After and 500 on the link, a 500 on the file, a body cut short, a stalled download', async () => {
    const unitsFile = (r: ReplayRequest) => r.path.endsWith('/StockUniteLegale_utf8.zip');
    const etabsFile = (r: ReplayRequest) => r.path.endsWith('/StockEtablissement_utf8.zip');
    replay.inject((r) => r.path.startsWith('/fr/datasets/r/825f'), { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject((r) => r.path.startsWith('/fr/datasets/r/825f'), { kind: 'status', status: 500 });
    replay.inject(unitsFile, { kind: 'status', status: 503 });
    replay.inject(unitsFile, { kind: 'truncate', bytes: 700 });
    replay.inject(etabsFile, { kind: 'stall' });
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const oracle = await expected(site);
    expect(await storedUnits()).to.deep.equal(oracle.units);
    expect(await storedEtabs()).to.deep.equal(oracle.etabs);
    // The body cut short and the stalled one were downloaded again.
    expect(site.served).to.deep.equal(['StockUniteLegale', 'StockUniteLegale', 'StockEtablissement', 'StockEtablissement']);
    // The link asked 5 times: 429, 500, then redirected to the file's 503, to its body cut short, and to the whole file.
    expect(replay.requests.filter((r) => r.path.startsWith('/fr/datasets/r/825f'))).to.have.length(5);
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('a download cut short at every try stops the run with its reason, keeps nothing on disk, and the next run starts over', async () => {
    replay.inject((r) => r.path.endsWith('/StockUniteLegale_utf8.zip'), { kind: 'truncate', bytes: 900 }, 3);
    const failed = await syncOnce(database.db, connector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    if (failed.status === 'failed') expect(failed.reason).to.match(/^fichier StockUniteLegale : téléchargement interrompu .*3 essais\)$/);
    expect(readdirSync(dir)).to.deep.equal([]);
    expect((await storedUnits()).size).to.equal(0);
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status).to.equal('done');
    expect(await storedUnits()).to.deep.equal((await expected(site)).units);
  });

  it('a file of another layout, or a broken archive, stops the run with the reason and is not taken as read', async () => {
    const f = site.files.StockEtablissement;
    f.header = ETAB_HEADER.map((c) => (c === 'siret' ? 'numeroSiret' : c));
    site.publish('StockEtablissement', f.modified);
    const failed = await syncOnce(database.db, connector, settings(), NOW);
    expect(failed.status).to.equal('failed');
    if (failed.status === 'failed') expect(failed.reason).to.equal('fichier StockEtablissement : colonnes siret, dateCreationEtablissement, etatAdministratifEtablissement absentes, fichier laissé de côté');
    expect((await storedEtabs()).size).to.equal(0);
    expect((await cursorOf()).files).to.have.keys(['StockUniteLegale']);
    expect(readdirSync(dir)).to.deep.equal([]);
    // A zip whose end is missing (served whole, but not a readable archive): tried 3 times, then stopped.
    f.header = ETAB_HEADER;
    f.zip = (await site.zip('StockEtablissement')).subarray(0, 200);
    const broken = await syncOnce(database.db, connector, settings(), NOW);
    expect(broken.status === 'failed' && broken.reason).to.match(/^fichier StockEtablissement : lecture interrompue après 0 enregistrements .*3 essais\)$/);
    expect(broken.status === 'failed' && broken.reason).to.not.contain(dir);
    expect(broken.status === 'failed' && broken.reason).to.contain('(dossier temporaire)');
    delete f.zip;
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status).to.equal('done');
    expect(await storedEtabs()).to.deep.equal((await expected(site)).etabs);
  });

  it('resumes inside a file from its download on disk (asked with its version), downloads it again when it is gone, and reads a republished file from its start', async () => {
    // The units' 6 full pages and the empty one that ends the file, then killed once the 2nd page of establishments is written.
    const unitPages = Math.floor(site.files.StockUniteLegale.rows.length / PAGE) + 1;
    const kill = {
      faultPoint: (point: string, index: number) => {
        if (point === 'after-commit' && index === unitPages + 1) throw new Error('arrêt simulé');
      },
    };
    expect((await syncOnce(database.db, connector, settings(), NOW, {}, kill)).status).to.equal('failed');
    expect((await cursorOf()).current).to.include({ file: 'StockEtablissement', recordsDone: 2 * PAGE });
    // The establishments' download and its version.
    expect(readdirSync(dir)).to.have.length(2);
    let before = replay.requests.length;
    let served = site.served.length;
    const resumed = await syncOnce(database.db, connector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    // Nothing downloaded again: both asked with their version (304).
    expect(fileRequests(before).map((r) => typeof r.headers['if-none-match'])).to.deep.equal(['string', 'string']);
    expect(site.served.slice(served)).to.deep.equal([]);
    if (resumed.status === 'done') expect(resumed.read).to.equal(site.files.StockEtablissement.rows.length - 2 * PAGE);
    const oracle = await expected(site);
    expect(await storedEtabs()).to.deep.equal(oracle.etabs);
    expect(readdirSync(dir)).to.deep.equal([]);

    // Killed again inside the establishments; the download is lost (another machine, a cleaned /tmp).
    await database.db('establishments').delete();
    await database.db('sync_state').delete();
    expect((await syncOnce(database.db, connector, settings(), NOW, {}, kill)).status).to.equal('failed');
    rmSync(dir, { recursive: true, force: true });
    before = replay.requests.length;
    served = site.served.length;
    const again = await syncOnce(database.db, connector, settings(), NOW);
    expect(again.status).to.equal('done');
    expect(site.served.slice(served)).to.deep.equal(['StockEtablissement']);
    expect(fileRequests(before).map((r) => typeof r.headers['if-none-match'])).to.deep.equal(['string', 'undefined']);
    if (again.status === 'done') expect(again.read).to.equal(site.files.StockEtablissement.rows.length - 2 * PAGE);
    expect(await storedEtabs()).to.deep.equal(oracle.etabs);

    // Killed again; the establishments are republished before the resume: read from their start.
    await database.db('sync_state').delete();
    expect((await syncOnce(database.db, connector, settings(), NOW, {}, kill)).status).to.equal('failed');
    site.files.StockEtablissement.rows = site.files.StockEtablissement.rows.slice(5);
    site.publish('StockEtablissement', new Date('2027-01-01T05:40:00Z'));
    const republished = await syncOnce(database.db, connector, settings(), LATER);
    expect(republished.status).to.equal('done');
    if (republished.status === 'done') expect(republished.read).to.equal(site.files.StockEtablissement.rows.length);
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('killed 20 times at random points of its pages, then run again: every record exactly once, the counts exact', async () => {
    // Pages of 4 records: 28 pages, more than the 20 kills reach.
    const small = makeSireneStockConnector({ pageSize: 4, dir });
    const outcomes = await killAndResume(database.db, small, settings(), NOW, { kills: 20, maxPage: 3, seed: 24 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const oracle = await expected(site);
    expect(await storedUnits()).to.deep.equal(oracle.units);
    expect(await storedEtabs()).to.deep.equal(oracle.etabs);
    const state = (await database.db('sync_state').where('source', 'sirene-stock').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(oracle.units.size + oracle.etabs.size);
    // Each file downloaded once: every resume read the download left on disk.
    expect(site.served).to.deep.equal(['StockUniteLegale', 'StockEtablissement']);
    expect(readdirSync(dir)).to.deep.equal([]);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: connector, handler: () => site.handler(), settings: (url) => ({ SIRENE_STOCK_URL: `${url}/fr/datasets/r` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    const oracle = await expected(site);
    expect((await storedUnits()).size).to.equal(oracle.units.size);
    expect((await storedEtabs()).size).to.equal(oracle.etabs.size);
  });

  it('streams a download to disk: the file grows while its body is still on its way, and only the finished download is read', async () => {
    // A zip of several megabytes whose deflated rows stay large (varied values).
    const rows: StockRow[] = [];
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 40_000; i++)
      rows.push({ ...(REAL_UNIT_ROWS[0] as StockRow), siren: String(600_000_000 + i), denominationUniteLegale: `SOCIETE ${next().toString(36)} ${next().toString(36)} ${next().toString(36)}`, sigleUniteLegale: next().toString(36).toUpperCase(), dateDernierTraitementUniteLegale: `2025-${String(1 + (next() % 12)).padStart(2, '0')}-${String(1 + (next() % 28)).padStart(2, '0')}T0${next() % 10}:${String(next() % 60).padStart(2, '0')}:00` });
    const zip = await zipOf('StockUniteLegale_utf8.csv', csvOf(UNIT_HEADER, rows));
    expect(zip.length).to.be.greaterThan(1024 * 1024);
    let partSeen = 0;
    let rowsBeforeEnd = -1;
    const server = createServer(async (req, res) => {
      if (!req.url?.endsWith('825f4199-cadd-486c-ac46-a65a8ea1a047')) {
        res.writeHead(304).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/zip', etag: '"gros"', 'content-length': String(zip.length) });
      const half = Math.floor(zip.length / 2);
      for (let o = 0; o < half; o += 64 * 1024) res.write(zip.subarray(o, Math.min(o + 64 * 1024, half)));
      // The second half once half of the file is on disk (or after 15 s: the assertions then fail).
      for (let waited = 0; waited < 15_000 && partSeen < half / 2; waited += 50) {
        await new Promise((r) => setTimeout(r, 50));
        const part = readdirSync(dir).find((n) => n.endsWith('.part'));
        partSeen = part ? readFileSync(join(dir, part)).length : 0;
      }
      const [{ n }] = (await database.db('companies').count({ n: '*' })) as [{ n: number | string }];
      rowsBeforeEnd = Number(n);
      for (let o = half; o < zip.length; o += 64 * 1024) res.write(zip.subarray(o, Math.min(o + 64 * 1024, zip.length)));
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      // Establishments asked with a version (a 304 of the test server): only the units are read.
      await database.db('sync_state').insert({ source: 'sirene-stock', cursor: JSON.stringify({ files: { StockEtablissement: { etag: '"e"', lastModified: null } }, current: null }) });
      const big = makeSireneStockConnector({ pageSize: 5000, dir });
      const outcome = await syncOnce(database.db, big, { SIRENE_STOCK_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/fr/datasets/r` }, NOW, {}, { timing: { ...FAST_TIMING, readTimeoutMs: 20_000 } });
      expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
      expect(partSeen).to.be.greaterThan(Math.floor(zip.length / 4));
      expect(rowsBeforeEnd).to.equal(0);
      const [{ n }] = (await database.db('companies').count({ n: '*' })) as [{ n: number | string }];
      expect(Number(n)).to.equal(40_000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
