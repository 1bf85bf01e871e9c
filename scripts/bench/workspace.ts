// The bid workspace (issue 16): a workspace write, `suivis.create`, through the HTTP API at
// 20 connections, p50/p99 next to its target. A target is followed once per organisation, so
// the run is a fixed number of creates, each on a target not followed yet (the demo data's
// notices and companies, taken in turn), rather than a duration: every call is a real insert
// (its transaction, the target's lookup, the call's quota accounting).
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { importDemoDataIfEmpty } from '../demo/first-start.js';
import { fileObjectStore } from '../../src/platform/files/object-store.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { obtainToken } from '../lib/native-flow.js';
import { BENCH_ACCOUNT, benchDatabase, verdict } from './measure.js';
import { startService, stopProcess } from './processes.js';

export const WORKSPACE_TARGETS = { createP99Ms: 20 } as const;
const CONNECTIONS = 20;
const WARM_UP = 400;

export async function benchWorkspace(): Promise<{ p50: number; p99: number; calls: number }> {
  const { databaseUrl, remove } = await benchDatabase('bench-workspace-');
  try {
    const db = openDatabase(databaseUrl);
    let bodies: string[];
    try {
      // The demo data: the notices and companies the calls follow.
      await importDemoDataIfEmpty(db, () => undefined, fileObjectStore(join(dirname(databaseUrl.slice('sqlite:'.length)), 'dce-objects')));
      const notices = (await db('notices').orderBy('marche_id').pluck('marche_id')) as string[];
      const companies = (await db('companies').orderBy('siren').pluck('siren')) as string[];
      bodies = [
        ...notices.map((id) => JSON.stringify({ cible: { type: 'marche', id }, notes: 'À étudier avec le conducteur de travaux.', tags: ['bench'] })),
        ...companies.map((id) => JSON.stringify({ cible: { type: 'entreprise', id }, tags: ['concurrent'] })),
      ];
    } finally {
      await db.destroy();
    }
    const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
    try {
      const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read mcp:write' });
      let next = 0;
      const run = (amount: number) =>
        autocannon({
          url: service.url,
          connections: CONNECTIONS,
          amount,
          requests: [
            {
              method: 'POST',
              path: '/api/mcp/v1/suivis.create',
              headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
              setupRequest: (request) => ({ ...request, body: bodies[next++] as string }),
            },
          ],
        });
      // A warm-up on the first 400 targets (as every measure here has one), then the rest measured.
      await run(WARM_UP);
      const result = await run(bodies.length - WARM_UP);
      const figures = { p50: result.latency.p50, p99: result.latency.p99, calls: result.requests.total };
      console.log(
        `${`suivis.create (${bodies.length - WARM_UP} cibles nouvelles), ${CONNECTIONS} cx`.padEnd(52)} ${result.requests.average.toFixed(0).padStart(7)} req/s   p50 ${String(figures.p50).padStart(3)} ms   p99 ${String(figures.p99).padStart(3)} ms   erreurs ${result.errors + result.non2xx}`,
      );
      const reached = figures.p99 < WORKSPACE_TARGETS.createP99Ms;
      console.log(`Écriture de l'espace de travail : suivis.create p99 ${figures.p99} ms à ${CONNECTIONS} connexions (objectif < ${WORKSPACE_TARGETS.createP99Ms} ms) ${verdict(reached)}`);
      return figures;
    } finally {
      await stopProcess(service);
    }
  } finally {
    remove();
  }
}

// Run alone: tsx scripts/bench/workspace.ts
if (process.argv[1]?.endsWith('bench/workspace.ts')) await benchWorkspace();
