// One synchronisation run for the benchmark, in a process of its own so that its peak memory
// is its own: SYNC_BENCH_SOURCE from its publisher's address in the environment (the bench's
// replay server), optionally over one window; prints one JSON line with the outcome and the
// process' peak resident memory.
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { connectorNamed } from '../../src/domains/connectors.js';
import { runSync } from '../../src/sync/engine.js';

const config = loadConfig();
const connector = connectorNamed(process.env.SYNC_BENCH_SOURCE ?? '');
if (!connector) throw new Error(`source inconnue : ${process.env.SYNC_BENCH_SOURCE}`);
const db = openDatabase(config.databaseUrl);
const started = Date.now();
const outcome = await runSync({ db, settings: config.sync.settings }, connector, { since: process.env.SYNC_BENCH_SINCE ?? null, until: process.env.SYNC_BENCH_UNTIL ?? null });
const seconds = (Date.now() - started) / 1000;
await db.destroy();
console.log(JSON.stringify({ outcome, seconds, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
