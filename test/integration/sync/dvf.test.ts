// The DVF connector against a replay of files.data.gouv.fr's geo-dvf folder: the last 5 years listed, each department file read only when its ETag changed, streamed through the DVF importer in pages, a changed file replacing its year of its department (sales it no longer holds deleted, the others keeping their ingested_at), every sale exactly once whatever the faults and kills.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { DVF_DEPARTEMENTS, dvfConnector, makeDvfConnector, yearsListed } from '../../../src/domains/sales/sync-dvf.js';
import { dvf } from '../../../src/domains/sales/import-dvf.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { startReplayServer, type ReplayAnswer, type ReplayServer } from '../../helpers/replay-server.js';
import { FAST_TIMING, killAndResume, syncOnce, raceTwoRuns } from '../../helpers/sync-harness.js';

/** The real geo-dvf file (2024, department 01, 77 lines of 6 mutations, no newline at the end): every served file is cut from its lines. */
const REAL = readFileSync(new URL('../../../../shared/real-samples/dvf/geo-dvf-2024-dep01-thimothe-das-example.csv', import.meta.url), 'utf8');
const [HEADER, ...LINES] = REAL.split('\n') as [string, ...string[]];
const COLUMNS = HEADER.split(',');
const col = (name: string) => COLUMNS.indexOf(name);

const NOW = new Date('2026-11-26T05:20:00Z');
const LATER = new Date('2027-04-20T05:20:00Z');
const DEPS = ['01', '2A', '38', '971'];
const PAGE = 50;

/**
 * A department file of `year`: the real lines, then `copies` copies of them with ids, dates,
 * department and commune moved to that year and department (a mutation's lines stay together).
 * For 2024/01 the real lines come first untouched.
 */
function departmentFile(year: number, dep: string, copies: number): string[] {
  const out: string[] = [];
  for (let c = 0; c <= copies; c++) {
    for (const line of LINES) {
      if (c === 0 && year === 2024 && dep === '01') {
        out.push(line);
        continue;
      }
      const f = line.split(',');
      const seq = (f[col('id_mutation')] as string).split('-')[1];
      f[col('id_mutation')] = `${year}-${dep}-${c}-${seq}`;
      f[col('date_mutation')] = `${year}${(f[col('date_mutation')] as string).slice(4)}`;
      f[col('code_departement')] = dep;
      f[col('code_commune')] = `${dep}${(f[col('code_commune')] as string).slice(2)}`.slice(0, 5);
      out.push(f.join(','));
    }
  }
  return out;
}

interface ServedFile {
  lines: string[];
  modified: Date;
  /** Another first line than the real one. */
  header?: string;
}

/** The folder as published: `csv/` lists the years; a file is gzip, with its ETag and Last-Modified. */
class GeoDvf {
  years = [2019, 2020, 2021, 2022, 2023, 2024];
  files = new Map<string, ServedFile>([
    ['2024/01', { lines: departmentFile(2024, '01', 40), modified: new Date('2026-10-15T08:00:00Z') }],
    ['2023/01', { lines: departmentFile(2023, '01', 20), modified: new Date('2026-10-15T08:00:00Z') }],
    ['2024/38', { lines: departmentFile(2024, '38', 30), modified: new Date('2026-10-15T08:01:00Z') }],
    ['2022/971', { lines: departmentFile(2022, '971', 5), modified: new Date('2026-10-15T08:02:00Z') }],
    // Out of the 5 years: never read.
    ['2019/01', { lines: departmentFile(2019, '01', 2), modified: new Date('2026-10-15T08:00:00Z') }],
  ]);

  text(key: string): string {
    const file = this.files.get(key) as ServedFile;
    return [file.header ?? HEADER, ...file.lines].join('\n');
  }

  etag(key: string): string {
    const f = this.files.get(key) as ServedFile;
    const size = Buffer.byteLength(this.text(key));
    return `"${Math.floor(f.modified.getTime() / 1000).toString(16)}-${size.toString(16)}"`;
  }

  listing(): string {
    const rows = this.years.map((y) => `<a href="${y}/">${y}/</a>${' '.repeat(46)}15-Oct-2026 08:00                   -`);
    return `<html>\r\n<head><title>Index of /geo-dvf/latest/csv/</title></head>\r\n<body>\r\n<h1>Index of /geo-dvf/latest/csv/</h1><hr><pre><a href="../">../</a>\r\n${rows.join('\r\n')}\r\n</pre><hr></body>\r\n</html>\r\n`;
  }

  handler() {
    return (req: { path: string; headers: Record<string, string | string[] | undefined> }): ReplayAnswer => {
      if (req.path === '/geo-dvf/latest/csv/') return { headers: { 'content-type': 'text/html' }, body: this.listing() };
      const m = /^\/geo-dvf\/latest\/csv\/(\d{4})\/departements\/([0-9AB]{2,3})\.csv\.gz$/.exec(req.path);
      const key = m ? `${m[1]}/${m[2]}` : '';
      const file = this.files.get(key);
      if (!file) return { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>404 Not Found</title></head></html>' };
      const etag = this.etag(key);
      const headers = { etag, 'last-modified': file.modified.toUTCString(), 'content-type': 'application/octet-stream' };
      if (req.headers['if-none-match'] === etag || (!req.headers['if-none-match'] && req.headers['if-modified-since'] === file.modified.toUTCString())) return { status: 304, headers };
      return { headers, body: gzipSync(this.text(key)) };
    };
  }
}

/** What the importer makes of the served files of the window: the oracle of every test. */
async function expectedSales(folder: GeoDvf, keys: string[]): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (const key of keys) {
    for await (const r of dvf.read(Readable.from([Buffer.from(folder.text(key))]))) {
      if (!('value' in r)) continue;
      const mapped = dvf.map(r.value, NOW.toISOString());
      if ('row' in mapped) out.set(mapped.row.id_mutation, mapped.row.valeur_fonciere);
    }
  }
  return out;
}

const WINDOW = ['2024/01', '2023/01', '2024/38', '2022/971'];

describe('sync: DVF connector (replayed geo-dvf files)', function () {
  this.timeout(120_000);
  let database: MigratedDatabase;
  let replay: ReplayServer;
  let folder: GeoDvf;
  const connector = makeDvfConnector({ pageSize: PAGE, departements: DEPS });

  beforeEach(async () => {
    database = await openMigratedDatabase();
    folder = new GeoDvf();
    replay = await startReplayServer(folder.handler());
  });
  afterEach(async () => {
    await replay.close();
    await database.close();
  });

  const settings = () => ({ DVF_FILES_URL: `${replay.url}/geo-dvf/latest/csv` });
  const stored = async () => (await database.db('sales').select('id_mutation', 'valeur_fonciere', 'ingested_at', 'departement', 'date_mutation')) as { id_mutation: string; valeur_fonciere: number | null; ingested_at: string; departement: string; date_mutation: string }[];
  const asMap = (rows: { id_mutation: string; valeur_fonciere: number | null }[]) => new Map(rows.map((r) => [r.id_mutation, r.valeur_fonciere === null ? null : Number(r.valeur_fonciere)]));
  const fileRequests = (from = 0) => replay.requests.slice(from).filter((r) => r.path.endsWith('.csv.gz'));

  it('reads every department of the reference lists but those DVF does not publish, and the years an nginx listing gives', () => {
    expect(dvfConnector.baseUrl.default).to.equal('https://files.data.gouv.fr/geo-dvf/latest/csv');
    expect(DVF_DEPARTEMENTS).to.include.members(['01', '2A', '2B', '75', '95', '971', '974']);
    expect(DVF_DEPARTEMENTS).to.not.include.members(['57', '67', '68', '976', '975']);
    expect(DVF_DEPARTEMENTS.length).to.equal(97);
    expect(yearsListed(new GeoDvf().listing())).to.deep.equal([2019, 2020, 2021, 2022, 2023, 2024]);
  });

  it('a first run reads the last 5 years listed, department by department, in pages through the DVF importer; absent files are skipped', async () => {
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    const expected = await expectedSales(folder, WINDOW);
    expect(asMap(await stored())).to.deep.equal(expected);
    if (outcome.status !== 'done') return;
    expect(outcome.added).to.equal(expected.size);
    expect(outcome.pages).to.be.greaterThan(WINDOW.length);
    // 5 years × 4 departments, none conditional on a first run; 2019 is out of the window.
    const files = fileRequests();
    expect(files.length).to.equal(20);
    expect(files.some((r) => r.path.includes('/2019/'))).to.equal(false);
    expect(files.every((r) => r.headers['if-none-match'] === undefined)).to.equal(true);
    expect(String(files[0]?.headers['user-agent'])).to.match(/^batidata-api-sync\//);
    // A synchronised sale is exactly an imported one: the real mutation 2024-4 as the importer maps it.
    const real = (await database.db('sales').where('id_mutation', '2024-4').first()) as { departement: string; type_local: string | null; valeur_fonciere: number };
    expect(real.departement).to.equal('01');
    expect(Number(real.valeur_fonciere)).to.equal(329500);
  });

  it('the next day asks each file with its ETag and reads nothing when nothing changed', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = replay.requests.length;
    const idle = await syncOnce(database.db, connector, settings(), new Date(NOW.getTime() + 86_400_000));
    expect(idle.status === 'done' && idle.read).to.equal(0);
    const asked = fileRequests(before).filter((r) => r.headers['if-none-match'] !== undefined);
    expect(asked.length).to.equal(WINDOW.length);
    expect(asked.every((r) => typeof r.headers['if-none-match'] === 'string' && typeof r.headers['if-modified-since'] === 'string')).to.equal(true);
  });

  it('a new release replaces the changed file’s year of its department: a sale removed is deleted, a corrected one updated, a new one added, the others keep their ingested_at', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const first = new Map((await stored()).map((r) => [r.id_mutation, r.ingested_at]));
    const file = folder.files.get('2024/01') as ServedFile;
    const removed = '2024-01-3-3';
    const corrected = '2024-01-5-2';
    file.lines = file.lines
      .filter((l) => !l.startsWith(`${removed},`))
      .map((l) => (l.startsWith(`${corrected},`) ? l.split(',').map((v, i) => (i === col('valeur_fonciere') ? '12500' : v)).join(',') : l));
    const added = (departmentFile(2024, '01', 41).at(-1) as string).replace(/^2024-01-41-/, '2024-01-99-');
    file.lines.push(added);
    file.modified = new Date('2027-04-15T08:00:00Z');
    const before = replay.requests.length;
    const outcome = await syncOnce(database.db, connector, settings(), LATER);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    // Every file asked with its version; only the changed one read.
    expect(fileRequests(before).filter((r) => r.headers['if-none-match'] !== undefined)).to.have.length(WINDOW.length);
    if (outcome.status === 'done') expect(outcome.read).to.equal((await expectedSales(folder, ['2024/01'])).size);
    const rows = await stored();
    expect(asMap(rows)).to.deep.equal(await expectedSales(folder, WINDOW));
    expect(rows.some((r) => r.id_mutation === removed)).to.equal(false);
    expect(rows.find((r) => r.id_mutation === corrected)?.valeur_fonciere).to.equal(12500);
    const unchanged = rows.find((r) => r.id_mutation === '2024-01-7-1');
    expect(unchanged?.ingested_at).to.equal(first.get('2024-01-7-1'));
    expect(rows.find((r) => r.id_mutation === added.split(',')[0])?.ingested_at).to.equal(LATER.toISOString());
    // Other years and departments untouched.
    expect(rows.find((r) => r.id_mutation === '2023-01-1-1')?.ingested_at).to.equal(NOW.toISOString());
  });

  it('--since/--until read their years again whatever their ETag, and do not touch the others', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = replay.requests.length;
    const outcome = await syncOnce(database.db, connector, settings(), LATER, { since: '2023-01-01', until: '2023-12-31' });
    expect(outcome.status).to.equal('done');
    const files = fileRequests(before);
    expect(files.map((r) => r.path).every((p) => p.includes('/2023/'))).to.equal(true);
    expect(files.every((r) => r.headers['if-none-match'] === undefined)).to.equal(true);
    if (outcome.status === 'done') expect(outcome.updated).to.equal((await expectedSales(folder, ['2023/01'])).size);
  });

  it('survives the publisher’s faults: 429 with Retry-After, 500 then success, a gzip body cut short, a stalled answer', async () => {
    const file = (r: { path: string }) => r.path.endsWith('/2024/departements/01.csv.gz');
    replay.inject(file, { kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    replay.inject(file, { kind: 'status', status: 500 });
    replay.inject(file, { kind: 'truncate', bytes: 3000 });
    replay.inject((r) => r.path.endsWith('/2024/departements/38.csv.gz'), { kind: 'stall' });
    replay.inject((r) => r.path === '/geo-dvf/latest/csv/', { kind: 'status', status: 503 });
    const outcome = await syncOnce(database.db, connector, settings(), NOW);
    expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
    expect(asMap(await stored())).to.deep.equal(await expectedSales(folder, WINDOW));
  });

  it('a file in another layout, or with no readable line, stops the run with the reason and deletes nothing', async () => {
    await syncOnce(database.db, connector, settings(), NOW);
    const before = await stored();
    const file = folder.files.get('2024/38') as ServedFile;
    file.header = HEADER.replace('id_mutation', 'identifiant_mutation');
    file.modified = new Date('2027-04-15T08:00:00Z');
    const failed = await syncOnce(database.db, connector, settings(), LATER);
    expect(failed.status).to.equal('failed');
    if (failed.status === 'failed') expect(failed.reason).to.contain('fichier DVF 2024/38 : colonnes id_mutation, date_mutation ou valeur_fonciere absentes');
    expect((await stored()).length).to.equal(before.length);
    delete file.header;
    file.lines = file.lines.map((l) => l.replace(/,/g, ';'));
    file.modified = new Date('2027-04-16T08:00:00Z');
    const unreadable = await syncOnce(database.db, connector, settings(), LATER);
    expect(unreadable.status === 'failed' && unreadable.reason).to.contain('fichier DVF 2024/38 : aucune ligne lisible');
    expect((await stored()).length).to.equal(before.length);
  });

  it('resumes inside a file where it stopped; a file republished meanwhile is read from its start and replaces the partial one', async () => {
    // Years in order: 2022/971 (one page), then 2023/01, killed once its 2nd page is written.
    const kill = {
      faultPoint: (at: string, index: number) => {
        if (at === 'after-commit' && index === 2) throw new Error('arrêt simulé');
      },
    };
    const killed = await syncOnce(database.db, connector, settings(), NOW, {}, kill);
    expect(killed.status).to.equal('failed');
    const state = (await database.db('sync_state').where('source', 'dvf').first()) as { cursor: string };
    const cursor = JSON.parse(state.cursor) as { current: { file: string; recordsDone: number } };
    expect(cursor.current).to.include({ file: '2023/01', recordsDone: 2 * PAGE });
    const before = replay.requests.length;
    const resumed = await syncOnce(database.db, connector, settings(), NOW);
    expect(resumed.status).to.equal('done');
    const done971 = (await expectedSales(folder, ['2022/971'])).size;
    if (resumed.status === 'done') expect(resumed.read).to.equal((await expectedSales(folder, WINDOW)).size - done971 - 2 * PAGE);
    // The file done is asked with its version; the one begun is asked whole.
    expect(fileRequests(before).find((r) => r.path.endsWith('/2022/departements/971.csv.gz'))?.headers['if-none-match']).to.be.a('string');
    expect(fileRequests(before).find((r) => r.path.endsWith('/2023/departements/01.csv.gz'))?.headers['if-none-match']).to.equal(undefined);
    expect(asMap(await stored())).to.deep.equal(await expectedSales(folder, WINDOW));

    // Again on a fresh cursor, the file being read changes between the kill and the resume.
    await database.db('sales').delete();
    await database.db('sync_state').delete();
    await syncOnce(database.db, connector, settings(), NOW, {}, kill);
    const begun = (JSON.parse(((await database.db('sync_state').where('source', 'dvf').first()) as { cursor: string }).cursor) as { current: { file: string } }).current.file;
    const file = folder.files.get(begun) as ServedFile;
    file.lines = file.lines.slice(PAGE * 3);
    file.modified = new Date('2027-04-15T08:00:00Z');
    const after = await syncOnce(database.db, connector, settings(), LATER);
    expect(after.status).to.equal('done');
    expect(asMap(await stored())).to.deep.equal(await expectedSales(folder, WINDOW));
  });

  it('killed 20 times at random points of its pages, then run again: every sale exactly once, the counts exact', async () => {
    // Pages of 10 mutations: about 65 pages, more than the 20 kills reach.
    const small = makeDvfConnector({ pageSize: 10, departements: DEPS });
    const outcomes = await killAndResume(database.db, small, settings(), NOW, { kills: 20, maxPage: 4, seed: 13 });
    expect(outcomes.at(-1)?.status).to.equal('done');
    expect(outcomes.filter((o) => o.status === 'failed').length).to.be.greaterThan(10);
    const expected = await expectedSales(folder, WINDOW);
    expect(asMap(await stored())).to.deep.equal(expected);
    const state = (await database.db('sync_state').where('source', 'dvf').first()) as { total_added: number | string };
    expect(Number(state.total_added)).to.equal(expected.size);
  });

  it('two processes racing: one runs, the other is told a run is in progress', async () => {
    const [a, b] = await raceTwoRuns({ databaseUrl: database.databaseUrl, db: database.db, connector: connector, handler: () => folder.handler(), settings: (url) => ({ DVF_FILES_URL: `${url}/geo-dvf/latest/csv` }), now: NOW });
    expect([a.status, b.status].sort()).to.deep.equal(['done', 'held']);
    expect(asMap(await stored()).size).to.equal((await expectedSales(folder, WINDOW)).size);
  });

  it('streams a department file: pages are written while the rest of a multi-megabyte file is still downloading', async () => {
    // A full year's worth of lines in the geo-dvf layout, values varied so that gzip keeps it large.
    const lines: string[] = [];
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    for (let i = 0; i < 40_000; i++) {
      const f = (LINES[0] as string).split(',');
      f[col('id_mutation')] = `2024-${100000 + i}`;
      f[col('date_mutation')] = `2024-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`;
      f[col('valeur_fonciere')] = String(next() % 900000);
      f[col('surface_terrain')] = String(next() % 5000);
      f[col('longitude')] = (5 + (next() % 100000) / 100000).toFixed(6);
      f[col('latitude')] = (45 + (next() % 100000) / 100000).toFixed(6);
      lines.push(f.join(','));
    }
    const text = [HEADER, ...lines].join('\n');
    expect(text.length).to.be.greaterThan(4 * 1024 * 1024);
    const gz = gzipSync(text);
    expect(gz.length).to.be.greaterThan(4 * 64 * 1024);
    let rowsBeforeEnd = -1;
    const server = createServer(async (req, res) => {
      if (req.url === '/csv/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="2024/">2024/</a>');
        return;
      }
      if (req.url !== '/csv/2024/departements/01.csv.gz') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream', etag: `"${createHash('md5').update(gz).digest('hex')}"`, 'content-length': String(gz.length) });
      const half = Math.floor(gz.length / 2);
      for (let at = 0; at < half; at += 64 * 1024) res.write(gz.subarray(at, Math.min(at + 64 * 1024, half)));
      // The second half only once the connector has written pages (or after 15 s: the assertion then fails).
      for (let waited = 0; waited < 15_000; waited += 50) {
        const [{ n }] = (await database.db('sales').count({ n: '*' })) as [{ n: number | string }];
        if (Number(n) > 0) {
          rowsBeforeEnd = Number(n);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      if (rowsBeforeEnd < 0) rowsBeforeEnd = 0;
      for (let at = half; at < gz.length; at += 64 * 1024) res.write(gz.subarray(at, Math.min(at + 64 * 1024, gz.length)));
      res.end();
    });
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const big = makeDvfConnector({ pageSize: 1000, departements: ['01'] });
      const outcome = await syncOnce(database.db, big, { DVF_FILES_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/csv` }, NOW, {}, { timing: { ...FAST_TIMING, readTimeoutMs: 20_000 } });
      expect(outcome.status, JSON.stringify(outcome)).to.equal('done');
      expect(rowsBeforeEnd).to.be.greaterThan(0);
      expect(rowsBeforeEnd).to.be.lessThan(40_000);
      const [{ n }] = (await database.db('sales').count({ n: '*' })) as [{ n: number | string }];
      expect(Number(n)).to.equal(40_000);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
