// The synchronisation with the publishers (`npm run bench`, after the workspace): each run
// against a replay of the publisher's API on this machine, in exactly its published layout,
// in a process of its own (its peak memory is the run's): rows per second and peak memory.
// - BOAMP: one day of 2,400 notices (the most the portal publishes in a day), pages of 100.
// - SIRENE: a daily delta of 16,000 legal units (INSEE's usual day), pages of 1,000 by cursor.
// - DVF: a full-year department file of 300,000 lines (more than the largest department's
//   year), gzip, streamed through the importer: its peak memory against the 200 MB target.
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { parisDay } from '../../src/platform/paris-time.js';
import { addDays } from '../../src/sync/days.js';
import { odsHandler, startReplayServer, type OdsDataset } from '../../test/helpers/replay-server.js';
import { sireneDayUnits, sireneHandler } from '../../test/helpers/sirene-replay.js';
import { benchDatabase, formatInt, verdict } from './measure.js';

const BOAMP_SAMPLE = new URL('../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url);
const DVF_SAMPLE = new URL('../../../shared/real-samples/dvf/geo-dvf-2024-dep01-thimothe-das-example.csv', import.meta.url);

interface ChildResult {
  outcome: { status: string; read: number; added: number; requests: number; reason?: string };
  seconds: number;
  restRssMb: number;
  maxRssMb: number;
  liveHeapMb: number | null;
}

/** Runs scripts/bench/sync-child.ts with `env` and reads its JSON line. */
function runChild(env: Record<string, string>, nodeOptions: string[] = []): Promise<ChildResult> {
  const child = spawn(process.execPath, [...nodeOptions, '--import=tsx', 'scripts/bench/sync-child.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (err += c));
  return new Promise((resolve, reject) =>
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as ChildResult);
      } catch {
        reject(new Error(`synchronisation du banc en échec (${code}) : ${err.slice(-400)}`));
      }
    }),
  );
}

function report(title: string, r: ChildResult, unit: string): void {
  if (r.outcome.status !== 'done') {
    console.log(`${title} : en échec (${r.outcome.reason ?? r.outcome.status})`);
    return;
  }
  console.log(
    `${title.padEnd(52)} ${formatInt(r.outcome.read / r.seconds).padStart(7)} ${unit}/s   ${r.seconds.toFixed(1)} s   ${formatInt(r.outcome.requests)} requêtes   mémoire ${formatInt(r.restRssMb)} Mo au repos, ${formatInt(r.maxRssMb)} Mo au pic`,
  );
}

async function benchBoampDay(): Promise<void> {
  const real = (JSON.parse(readFileSync(BOAMP_SAMPLE, 'utf8')) as { results: Record<string, unknown>[] }).results;
  const day = parisDay(new Date());
  const records = Array.from({ length: 2400 }, (_, n) => {
    const idweb = `26-${String(100000 + n)}`;
    return { ...(real[n % real.length] as Record<string, unknown>), idweb, id: idweb.replace('-', '_'), dateparution: day };
  });
  const dataset: OdsDataset = { id: 'boamp', dateField: 'dateparution', processed: new Date().toISOString(), records };
  const replay = await startReplayServer(odsHandler(() => [dataset]));
  const { databaseUrl, remove } = await benchDatabase('bench-sync-');
  try {
    const result = await runChild({ DATABASE_URL: databaseUrl, BOAMP_API_URL: `${replay.url}/api/explore/v2.1`, SYNC_BENCH_SOURCE: 'boamp', SYNC_BENCH_SINCE: day, SYNC_BENCH_UNTIL: day });
    report('Synchronisation BOAMP, une journée de 2 400 avis', result, 'avis');
  } finally {
    await replay.close();
    remove();
  }
}

async function benchSireneDay(): Promise<void> {
  // Yesterday: the connector reads finished days.
  const day = addDays(parisDay(new Date()), -1);
  const dataset = { key: 'cle-banc', unites: sireneDayUnits(day, 16_000), etablissements: [] };
  const replay = await startReplayServer(sireneHandler(() => dataset));
  const { databaseUrl, remove } = await benchDatabase('bench-sync-');
  try {
    const result = await runChild({
      DATABASE_URL: databaseUrl,
      SIRENE_API_URL: `${replay.url}/api-sirene/3.11`,
      INSEE_API_KEY: 'cle-banc',
      SYNC_BENCH_SOURCE: 'sirene',
      SYNC_BENCH_SINCE: day,
      SYNC_BENCH_UNTIL: day,
    });
    report('Synchronisation SIRENE, un jour de 16 000 unités', result, 'unités');
  } finally {
    await replay.close();
    remove();
  }
}

/** A geo-dvf department file of `lines` lines cut from the real lines, gzip, written as it is made. */
async function writeDvfFile(path: string, lines: number): Promise<void> {
  const [header, ...real] = readFileSync(DVF_SAMPLE, 'utf8').split('\n') as [string, ...string[]];
  const columns = header.split(',');
  const id = columns.indexOf('id_mutation');
  function* rows(): Generator<string> {
    yield `${header}\n`;
    for (let n = 0; n < lines; n++) {
      const f = (real[n % real.length] as string).split(',');
      f[id] = `2024-59-${Math.floor(n / real.length)}-${(f[id] as string).split('-')[1]}`;
      yield `${f.join(',')}\n`;
    }
  }
  await pipeline(Readable.from(rows()), createGzip(), createWriteStream(path));
}

async function benchDvfYear(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-dvf-'));
  let secondRun = false;
  const file = join(dir, '59.csv.gz');
  const lines = 300_000;
  await writeDvfFile(file, lines);
  const big = join(dir, '59-x3.csv.gz');
  await writeDvfFile(big, 3 * lines);
  // The folder as files.data.gouv.fr serves it: the years' listing, then the file streamed from disk.
  const server = createServer((req, res) => {
    if (req.url === '/geo-dvf/latest/csv/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><pre><a href="../">../</a>\r\n<a href="2024/">2024/</a>\r\n</pre></body></html>');
    } else if (req.url === '/geo-dvf/latest/csv/2024/departements/59.csv.gz') {
      // The same department, three times larger, for the second run: the memory must not grow with it.
      const served = secondRun ? big : file;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(statSync(served).size), etag: secondRun ? '"banc-59-x3"' : '"banc-59"' });
      createReadStream(served).pipe(res);
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<html><head><title>404 Not Found</title></head></html>');
    }
  });
  server.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const { databaseUrl, remove } = await benchDatabase('bench-sync-');
  const env = {
    DATABASE_URL: databaseUrl,
    DVF_FILES_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/geo-dvf/latest/csv`,
    SYNC_BENCH_SOURCE: 'dvf',
    SYNC_BENCH_SINCE: '2024-01-01',
    SYNC_BENCH_UNTIL: '2024-12-31',
  };
  try {
    const result = await runChild(env);
    report(`Synchronisation DVF, un département-année (${formatInt(lines)} lignes)`, result, 'ventes');
    // The streaming's own memory: the peak above the process at rest (Node, tsx, the modules,
    // SQLite's page cache as it fills), and the live heap after collections.
    secondRun = true;
    const larger = await runChild(env, ['--expose-gc']);
    if (larger.outcome.status !== 'done') report('  (fichier 3 fois plus grand)', larger, 'ventes');
    else if (result.outcome.status === 'done') {
      const streaming = result.maxRssMb - result.restRssMb;
      console.log(`  mémoire du flux (pic − repos) ${formatInt(streaming)} Mo (objectif < 200 Mo) ${verdict(streaming < 200)} ; tas vivant au plus ${formatInt(larger.liveHeapMb ?? 0)} Mo sur un fichier 3 fois plus grand (${formatInt(3 * lines)} lignes, pic ${formatInt(larger.maxRssMb)} Mo)`);
    }
  } finally {
    server.closeAllConnections();
    server.close();
    remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchSync(): Promise<void> {
  if (!existsSync(BOAMP_SAMPLE) || !existsSync(DVF_SAMPLE)) {
    console.log('(synchronisation non mesurée : les échantillons réels de ../shared/real-samples sont absents)');
    return;
  }
  await benchBoampDay();
  await benchSireneDay();
  await benchDvfYear();
}
