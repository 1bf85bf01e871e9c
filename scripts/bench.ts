// npm run bench [-- options]: measures and prints figures and ratios (never asserted in tests);
// `npm run bench -- --help` lists the parts and options (bench-options.ts).
// 1. An admitted read call through REST with authentication and quota accounting, on each
//    engine of `--engine`, next to a bare node:http server answering the same JSON in the same run.
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
// 8. The engines side by side (scripts/bench/engines.ts): the same figures on SQLite and on
//    PostgreSQL in one run (`--engine sqlite|postgres|both`).
// 9. National volumes (scripts/bench/national.ts), only with `--scale national`: a data set at
//    the publishers' orders of magnitude (`--scale-factor` to reduce it), imported into PostgreSQL.
// 10. Searches under load (scripts/bench/search-load.ts), with the large part: the four word
//    searches at 20 connections, a Zipf-like stream of thousands of distinct queries, on the
//    engines of `--engine`, figures next to the target and the result cache's hit ratio.
//    `--only=recherches` runs this part alone; with BENCH_DATA_DIR the built databases are kept and reused.
import { availableParallelism } from 'node:os';
import { migrateLatest } from '../src/migrations/index.js';
import { benchDce } from './bench/dce.js';
import { benchEvents } from './bench/events.js';
import { benchWorkspace } from './bench/workspace.js';
import { benchLargeSet, dataSet } from './bench/large.js';
import { benchSearchLoad } from './bench/search-load.js';
import { benchRobot } from './bench/robot.js';
import { benchSync } from './bench/sync.js';
import { benchEngines, benchTarget, type Engine } from './bench/engines.js';
import { benchNational } from './bench/national.js';
import { HELP, parseBenchOptions } from './bench/bench-options.js';
import { BENCH_ACCOUNT, CONNECTIONS, createBenchAccount, DURATION, measure, type Figures } from './bench/measure.js';
import { startProcess, startService, stopProcess } from './bench/processes.js';
import { obtainToken } from './lib/native-flow.js';

const parsed = parseBenchOptions(process.argv.slice(2), process.env);
if ('error' in parsed) {
  console.error(`Erreur : ${parsed.error}\nUsage : npm run bench -- [--only=PARTIE,…] [--engine sqlite|postgres|both] [--no-large] [--scale national [--scale-factor F]]\nAide : npm run bench -- --help`);
  process.exit(2);
}
if ('help' in parsed) {
  console.log(HELP);
  process.exit(0);
}
const options = parsed;

/**
 * The admitted call against a bare node:http server answering the same bytes, on each engine
 * of `--engine`: the service with one process (the ratio of one process to one process) and
 * with its default WORKERS (one per core), the bare server measured again right before each
 * engine's runs so that the machine's drift weighs on both sides of the ratio alike.
 */
async function admittedCall(engine: Engine): Promise<void> {
  const target = await benchTarget(engine, 'bench-appel-');
  const setup = target.open();
  try {
    await migrateLatest(setup);
    await createBenchAccount(setup);
  } finally {
    await setup.destroy();
  }
  const engineName = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  try {
    let bareFigures: Figures | null = null;
    for (const workers of ['1', String(availableParallelism())]) {
      const service = await startService({ PORT: '0', DATABASE_URL: target.databaseUrl, LOG_LEVEL: 'silent', WORKERS: workers });
      try {
        const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read' });
        const operation = `${service.url}/api/mcp/v1/referentiels.sources`;
        const sample = await fetch(operation, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' });
        const sampleBody = await sample.text();
        if (sample.status !== 200) throw new Error(`appel de référence en échec : ${sample.status} ${sampleBody}`);
        if (!bareFigures) {
          const bare = await startProcess('scripts/bench/bare-server.ts', { BARE_BODY: sampleBody });
          try {
            bareFigures = await measure('node:http nu (même JSON, un processus)', { url: bare.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
          } finally {
            await stopProcess(bare);
          }
        }
        const admitted = await measure(`referentiels.sources admis (${engineName}, WORKERS=${workers})`, {
          url: operation,
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: '{}',
        });
        const ratio = admitted.rps / bareFigures.rps;
        console.log(`Rapport appel admis (${engineName}, WORKERS=${workers}) / node:http nu : ${(ratio * 100).toFixed(1)} % (objectif ≥ 25 %) ${ratio >= 0.25 ? 'ATTEINT' : 'NON ATTEINT'}`);
      } finally {
        await stopProcess(service);
      }
    }
    const check = target.open();
    try {
      const counted = await check('call_log').count<{ n: number }[]>('* as n');
      console.log(`Appels comptés dans le journal des quotas (${engineName}) : ${counted[0]?.n}`);
    } finally {
      await check.destroy();
    }
  } finally {
    await target.remove();
  }
}

console.log(`Banc d'essai — ${new Date().toISOString()} — ${DURATION} s par mesure, ${CONNECTIONS} connexions, Node ${process.version} — parties : ${[...options.parts].join(', ')}`);
if (options.parts.has('appel')) for (const engine of options.engines) await admittedCall(engine);
if (options.parts.has('dce')) await benchDce();
if (options.parts.has('evenements')) await benchEvents();
if (options.parts.has('robot')) await benchRobot();
if (options.parts.has('espace')) await benchWorkspace();
if (options.parts.has('sync')) await benchSync();
if (options.parts.has('moteurs')) await benchEngines(options.engines);
if (options.parts.has('large')) await benchLargeSet();
if (options.parts.has('recherches')) {
  const data = await dataSet();
  try {
    await benchSearchLoad(data.dir, options.engines, !!process.env.BENCH_DATA_DIR);
  } finally {
    data.cleanup();
  }
}
if (options.parts.has('national')) await benchNational({ scaleFactor: options.scaleFactor });
