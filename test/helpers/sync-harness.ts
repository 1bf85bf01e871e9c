// Runs connectors in tests: fast retries and timeouts, a fixed clock, and crashes at chosen
// points of a page's write (the transaction rolls back as under SIGKILL).
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import type { Connector } from '../../src/sync/connector.js';
import { runSync, type SyncDeps, type SyncOutcome, type SyncRequest, type SyncSettings } from '../../src/sync/engine.js';
import { startReplayServer, type ReplayHandler } from './replay-server.js';

export const FAST_TIMING = { headersTimeoutMs: 1000, readTimeoutMs: 500, attempts: 4, backoffMs: 5, maxWaitMs: 3000, maxThrottles: 3 };

export function syncDeps(db: Database, settings: SyncSettings, now: Date, extra: Partial<SyncDeps> = {}): SyncDeps {
  return { db, settings, now: () => now, timing: FAST_TIMING, ...extra };
}

export async function syncOnce(db: Database, connector: Connector, settings: SyncSettings, now: Date, request: SyncRequest = {}, extra: Partial<SyncDeps> = {}): Promise<SyncOutcome> {
  return runSync(syncDeps(db, settings, now, extra), connector, request);
}

/** A small seeded generator (mulberry32): the same kills on every run of a test. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const POINTS = ['before-write', 'after-write', 'after-commit'] as const;

/**
 * `kills` runs each crashed at a random page and point (the pages written before it stay, the
 * page it crashes in is rolled back, or committed for `after-commit`), then runs until one ends
 * well. Returns the outcomes, the last one done.
 */
export async function killAndResume(db: Database, connector: Connector, settings: SyncSettings, now: Date, options: { kills: number; maxPage: number; seed: number }): Promise<SyncOutcome[]> {
  const random = seeded(options.seed);
  const outcomes: SyncOutcome[] = [];
  for (let k = 0; k < options.kills; k++) {
    const page = Math.floor(random() * options.maxPage);
    const point = POINTS[Math.floor(random() * POINTS.length)];
    outcomes.push(
      await syncOnce(db, connector, settings, now, {}, {
        faultPoint: (at, index) => {
          if (at === point && index === page) throw new Error(`arrêt simulé (${point}, page ${page})`);
        },
      }),
    );
  }
  for (let i = 0; i < 5; i++) {
    const outcome = await syncOnce(db, connector, settings, now);
    outcomes.push(outcome);
    if (outcome.status === 'done') break;
  }
  return outcomes;
}

/**
 * Two processes (two connections, two owners) run the same source at once, the second
 * `secondAfterMs` later, against a publisher that answers each request after `delayMs` so
 * that the first run is still going when the second starts. Returns both outcomes.
 */
export async function raceTwoRuns(options: {
  databaseUrl: string;
  db: Database;
  connector: Connector;
  /** The publisher's answers; `url` gives the replay server's address (for links it writes). */
  handler: (url: () => string) => ReplayHandler;
  settings: (url: string) => SyncSettings;
  now: Date;
  delayMs?: number;
  secondAfterMs?: number;
}): Promise<[SyncOutcome, SyncOutcome]> {
  const second = openDatabase(options.databaseUrl);
  let address = '';
  const handler = options.handler(() => address);
  const slow = await startReplayServer(async (req) => {
    await new Promise((r) => setTimeout(r, options.delayMs ?? 20));
    return handler(req);
  });
  address = slow.url;
  try {
    const settings = options.settings(slow.url);
    const run = (db: Database, owner: string) => runSync({ db, settings, now: () => options.now, owner, timing: FAST_TIMING }, options.connector);
    return await Promise.all([run(options.db, 'process-a'), new Promise((r) => setTimeout(r, options.secondAfterMs ?? 50)).then(() => run(second, 'process-b'))]);
  } finally {
    await slow.close();
    await second.destroy();
  }
}
