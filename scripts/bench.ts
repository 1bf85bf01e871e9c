// npm run bench: measures and prints figures and ratios (never asserted in tests).
// 1. An admitted read call through REST with authentication and quota accounting, on
//    SQLite, next to a bare node:http server answering the same JSON in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { hashPassword } from '../src/auth/passwords.js';
import { createAccount, setOrganisationPlan } from '../src/data/accounts.js';
import { openDatabase } from '../src/data/database.js';
import { migrateLatest } from '../src/data/migrate.js';
import { startProcess, stopProcess } from './bench/processes.js';
import { obtainToken } from './lib/native-flow.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function measure(title: string, options: autocannon.Options): Promise<Figures> {
  // A short warm-up (JIT, caches), then the measured run.
  await autocannon({ ...options, duration: 2 });
  const r = await autocannon({ ...options, duration: DURATION, connections: CONNECTIONS });
  const figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx };
  console.log(
    `${title.padEnd(46)} ${figures.rps.toFixed(0).padStart(7)} req/s   p50 ${String(figures.p50).padStart(3)} ms   p99 ${String(figures.p99).padStart(3)} ms   erreurs ${figures.errors + figures.non2xx}`,
  );
  return figures;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-'));
  const databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
  const email = 'bench@exemple.fr';
  const password = 'mot-de-passe-bench';
  const db = openDatabase(databaseUrl);
  await migrateLatest(db);
  await createAccount(db, { email, passwordHash: await hashPassword(password), organisation: 'Bench', plan: 'subscribed' }, new Date());
  // A negotiated contract with limits high enough for the run: every call is admitted and counted.
  await setOrganisationPlan(db, 'Bench', { callsPerMinute: 100_000_000, callsPerDay: 1_000_000_000 });
  await db.destroy();

  console.log(`Banc d'essai — ${new Date().toISOString()} — ${DURATION} s par mesure, ${CONNECTIONS} connexions, Node ${process.version}`);
  const service = await startProcess('src/main.ts', { PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  try {
    const { accessToken } = await obtainToken({ baseUrl: service.url, email, password, scope: 'mcp:read' });
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
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
