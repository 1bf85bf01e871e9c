// npm run bench [-- --no-large | --only=large | --only=search-load] [--search-engines=sqlite,postgres]: measures and prints figures and ratios (never asserted in tests).
// 1. An admitted read call through REST with authentication and quota accounting, on
//    SQLite, next to a bare node:http server answering the same JSON in the same run.
// 2. Consultation files (scripts/bench/dce.ts): extraction rates, dce.read p99, memory of a
//    200 MB archive's import.
// 3. Event subscriptions (scripts/bench/events.ts): events.poll of a full page, p50/p99.
// 4. The alert robot (scripts/bench/robot.ts): 10,000 alerts against a 3-hour batch of
//    10,000 new documents, duration and peak memory.
// 5. The bid workspace (scripts/bench/workspace.ts): suivis.create at 20 connections, p50/p99.
// 6. The synchronisation (scripts/bench/sync.ts): runs against replays of the publishers'
//    APIs, rows per second and peak memory.
// 7. On the large demo set (scripts/bench/large.ts): import rates, then entreprises.get and
//    a two-word marches.search through the HTTP API, each figure next to its target. On by
//    default (about 7 minutes on the quiet 2-core machine, 15 on a busy one, plus ~5.5
//    minutes to generate the data set); skipped with `--no-large` or BENCH_LARGE=0;
//    BENCH_DATA_DIR=DIR reuses (or keeps) the generated files. `--only=large` runs this part alone (parts 1 to 5 skipped).
// 8. Searches under load (scripts/bench/search-load.ts), with the large part: the four word
//    searches at 20 connections, a Zipf-like stream of thousands of distinct queries, on
//    SQLite and PostgreSQL (`--search-engines=sqlite` for one), figures next to the target
//    and the result cache's hit ratio. `--only=search-load` runs this part alone; with
//    BENCH_DATA_DIR the built databases are kept and reused.
import { openDatabase } from '../src/platform/db/database.js';
import { benchDce } from './bench/dce.js';
import { benchEvents } from './bench/events.js';
import { benchWorkspace } from './bench/workspace.js';
import { benchLargeSet, dataSet } from './bench/large.js';
import { benchSearchLoad, parseEngines } from './bench/search-load.js';
import { benchRobot } from './bench/robot.js';
import { benchSync } from './bench/sync.js';
import { BENCH_ACCOUNT, benchDatabase, CONNECTIONS, DURATION, measure, type Figures } from './bench/measure.js';
import { startProcess, stopProcess } from './bench/processes.js';
import { obtainToken } from './lib/native-flow.js';

const args = process.argv.slice(2).filter((a) => a !== '--');
const unknown = args.filter((a) => a !== '--large' && a !== '--no-large' && a !== '--only=large' && a !== '--only=search-load' && !a.startsWith('--search-engines='));
if (unknown.length) {
  console.error(`Erreur : option inconnue : ${unknown.join(' ')} (options : --large, --no-large, --only=large, --only=search-load, --search-engines=sqlite,postgres).`);
  process.exit(2);
}
const onlyLarge = args.includes('--only=large');
const onlySearchLoad = args.includes('--only=search-load');
if ((onlyLarge || onlySearchLoad) && args.includes('--no-large')) {
  console.error('Erreur : --only=large ou --only=search-load et --no-large sont incompatibles.');
  process.exit(2);
}
let searchEngines: ReturnType<typeof parseEngines>;
try {
  searchEngines = parseEngines(args.find((a) => a.startsWith('--search-engines='))?.slice('--search-engines='.length));
} catch (err) {
  console.error(`Erreur : --search-engines : ${(err as Error).message}.`);
  process.exit(2);
}
const large = onlyLarge || (!onlySearchLoad && (args.includes('--no-large') ? false : args.includes('--large') ? true : process.env.BENCH_LARGE !== '0'));
const searchLoad = onlySearchLoad || (large && !onlyLarge);

async function admittedCall(): Promise<void> {
  const { databaseUrl, remove } = await benchDatabase('bench-');

  const service = await startProcess('scripts/start.ts', { PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  try {
    const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read' });
    const operation = `${service.url}/api/mcp/v1/referentiels.sources`;
    const sample = await fetch(operation, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' });
    const sampleBody = await sample.text();
    if (sample.status !== 200) throw new Error(`appel de référence en échec : ${sample.status} ${sampleBody}`);

    const bare = await startProcess('scripts/bench/bare-server.ts', { BARE_BODY: sampleBody });
    let bareFigures: Figures;
    try {
      bareFigures = await measure('node:http nu (même JSON)', { url: bare.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    } finally {
      await stopProcess(bare);
    }
    const admitted = await measure('referentiels.sources admis (auth + quota, SQLite)', {
      url: operation,
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    const ratio = admitted.rps / bareFigures.rps;
    console.log(`Rapport appel admis / node:http nu : ${(ratio * 100).toFixed(1)} % (objectif ≥ 25 %) ${ratio >= 0.25 ? 'ATTEINT' : 'NON ATTEINT'}`);
    const check = openDatabase(databaseUrl);
    const counted = await check('call_log').count<{ n: number }[]>('* as n');
    await check.destroy();
    console.log(`Appels comptés dans le journal des quotas : ${counted[0]?.n}`);
  } finally {
    await stopProcess(service);
    remove();
  }
}

console.log(`Banc d'essai — ${new Date().toISOString()} — ${DURATION} s par mesure, ${CONNECTIONS} connexions, Node ${process.version}`);
if (onlyLarge || onlySearchLoad) console.log(`(parties 1 à 5 non mesurées : ${onlyLarge ? '--only=large' : '--only=search-load'})`);
else {
  await admittedCall();
  await benchDce();
  await benchEvents();
  await benchRobot();
  await benchWorkspace();
  await benchSync();
}
if (large) await benchLargeSet();
else if (!onlySearchLoad) console.log('(jeu de données large non mesuré : --no-large ou BENCH_LARGE=0)');
if (searchLoad) {
  const data = await dataSet();
  try {
    await benchSearchLoad(data.dir, searchEngines, !!process.env.BENCH_DATA_DIR);
  } finally {
    data.cleanup();
  }
}
