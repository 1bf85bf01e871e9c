// One synchronisation run for the benchmark, in a process of its own so that its memory is
// its own: SYNC_BENCH_SOURCE from its publisher's address in the environment (the bench's
// replay server), optionally over one window. Prints one JSON line: the outcome, the
// process' resident memory at rest (modules loaded, database open) and at its peak, and,
// when started with --expose-gc, the largest live heap seen (collected every 100 ms).
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { connectorNamed } from '../../src/domains/connectors.js';
import { runSync } from '../../src/sync/engine.js';

const config = loadConfig();
const connector = connectorNamed(process.env.SYNC_BENCH_SOURCE ?? '');
if (!connector) throw new Error(`source inconnue : ${process.env.SYNC_BENCH_SOURCE}`);
const db = openDatabase(config.databaseUrl);
await db.raw('select 1');
const restRssMb = process.memoryUsage().rss / 1048576;
const gc = (globalThis as { gc?: () => void }).gc;
let liveHeapMb = 0;
const sampler = gc
  ? setInterval(() => {
      gc();
      liveHeapMb = Math.max(liveHeapMb, process.memoryUsage().heapUsed / 1048576);
    }, 100)
  : null;
const started = Date.now();
const outcome = await runSync({ db, settings: config.sync.settings }, connector, { since: process.env.SYNC_BENCH_SINCE ?? null, until: process.env.SYNC_BENCH_UNTIL ?? null });
const seconds = (Date.now() - started) / 1000;
if (sampler) clearInterval(sampler);
await db.destroy();
console.log(JSON.stringify({ outcome, seconds, restRssMb, maxRssMb: process.resourceUsage().maxRSS / 1024, liveHeapMb: gc ? liveHeapMb : null }));
