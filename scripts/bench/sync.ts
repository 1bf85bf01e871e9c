// The synchronisation with the publishers (`npm run bench`, after the workspace): each run
// against a replay of the publisher's API on this machine, in exactly its published layout,
// in a process of its own (its peak memory is the run's): rows per second and peak memory.
// - BOAMP: one day of 2,400 notices (the most the portal publishes in a day), pages of 100.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { parisDay } from '../../src/platform/paris-time.js';
import { odsHandler, startReplayServer, type OdsDataset } from '../../test/helpers/replay-server.js';
import { benchDatabase, formatInt } from './measure.js';

const BOAMP_SAMPLE = new URL('../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url);

interface ChildResult {
  outcome: { status: string; read: number; added: number; requests: number; reason?: string };
  seconds: number;
  maxRssMb: number;
}

/** Runs scripts/bench/sync-child.ts with `env` and reads its JSON line. */
function runChild(env: Record<string, string>): Promise<ChildResult> {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/bench/sync-child.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
    `${title.padEnd(52)} ${formatInt(r.outcome.read / r.seconds).padStart(7)} ${unit}/s   ${r.seconds.toFixed(1)} s   ${formatInt(r.outcome.requests)} requêtes   pic mémoire ${formatInt(r.maxRssMb)} Mo`,
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

export async function benchSync(): Promise<void> {
  if (!existsSync(BOAMP_SAMPLE)) {
    console.log('(synchronisation non mesurée : les échantillons réels de ../shared/real-samples sont absents)');
    return;
  }
  await benchBoampDay();
}
