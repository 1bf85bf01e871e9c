// The service while a large import writes into its own database (degrade, never freeze):
// the SIRENE units file (1,000,000 rows) imported by `npm run import` in another
// process while calls keep coming. Each import batch holds SQLite's write lock ~0.5 s; the
// service must keep answering: the contract document (no database: its latency is the event
// loop's stalls, plus a loopback round trip) and an admitted REST call (token, quota write).
// Meanwhile `npm run account:create` runs again and again in a third process: a writer that
// waits for the lock must get it in a bounded time (the import makes room between its
// batches), measured from the command's start to its end, next to the same command on a
// quiet database (mostly the start of Node and tsx).
import { spawn } from 'node:child_process';
import { obtainToken } from '../lib/native-flow.js';
import { BENCH_ACCOUNT, benchDatabase, formatInt } from './measure.js';
import { startService, stopProcess } from './processes.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length ? (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number) : 0;
}

function line(label: string, times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `${label.padEnd(44)} ${formatInt(times.length).padStart(7)} appels   p50 ${percentile(sorted, 50).toFixed(1).padStart(6)} ms   p99 ${percentile(sorted, 99).toFixed(1).padStart(7)} ms   max ${(sorted.at(-1) ?? 0).toFixed(1).padStart(7)} ms`;
}

/** One `npm run account:create` in a process of its own: its duration, whether it succeeded, and why not. */
function createAccount(databaseUrl: string, n: number): Promise<{ ms: number; ok: boolean; error: string }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import=tsx', 'scripts/account-create.ts', '--email', `pendant-import-${n}@exemple.fr`, '--password', 'Pendant-l-import-2026'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ ms: performance.now() - started, ok: code === 0, error: stderr.split('\n').find((l) => l.startsWith('Erreur')) ?? '' }));
  });
}

export async function benchLiveImport(unitsFile: string): Promise<void> {
  const { databaseUrl, remove } = await benchDatabase('bench-live-');
  const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' });
  try {
    const quiet = await createAccount(databaseUrl, 0);
    const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read' });
    const started = Date.now();
    const importer = spawn(process.execPath, ['--import=tsx', 'scripts/import.ts', 'sirene-unites', unitsFile], { env: { ...process.env, DATABASE_URL: databaseUrl }, stdio: ['ignore', 'ignore', 'pipe'] });
    // The import's error lines (its progress goes to stderr too), said when it fails.
    let errors = '';
    importer.stderr?.on('data', (chunk: Buffer) => {
      errors = `${errors}${chunk.toString()}`.split('\n').filter((l) => l.startsWith('Erreur')).join('\n');
    });
    const ended = new Promise<number | null>((resolve) => importer.once('exit', resolve));
    let importing = true;
    void ended.then(() => (importing = false));
    // Accounts created one after the other for as long as the import runs.
    const accounts: { ms: number; ok: boolean; error: string }[] = [];
    const creating = (async () => {
      await pause(2000);
      for (let n = 1; importing; n++) {
        accounts.push(await createAccount(databaseUrl, n));
        await pause(500);
      }
    })();
    const documents: number[] = [];
    const calls: number[] = [];
    const statuses = new Map<number, number>();
    while (importing) {
      let t = performance.now();
      await (await fetch(`${service.url}/openapi.json`)).arrayBuffer();
      documents.push(performance.now() - t);
      t = performance.now();
      const answer = await fetch(`${service.url}/api/mcp/v1/referentiels.sources`, { method: 'POST', headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' }, body: '{}' });
      await answer.arrayBuffer();
      calls.push(performance.now() - t);
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      await pause(20);
    }
    const code = await ended;
    await creating;
    if (code !== 0) console.log(`  l'import a échoué (sortie ${code}) : ${errors || 'sans message'}`);
    const seconds = (Date.now() - started) / 1000;
    console.log(`Pendant un import de 1 000 000 d'unités légales dans la base du service (${seconds.toFixed(1)} s, sortie ${code}) :`);
    console.log(line('  /openapi.json (sans base : arrêts de la boucle)', documents));
    console.log(line('  referentiels.sources admis (jeton, quota)', calls));
    console.log(`  statuts : ${[...statuses].map(([s, n]) => `${s} × ${formatInt(n)}`).join(', ')}`);
    const times = accounts.map((a) => a.ms).sort((a, b) => a - b);
    console.log(
      `  npm run account:create pendant l'import : ${accounts.filter((a) => a.ok).length} réussis sur ${accounts.length}, durée p50 ${(percentile(times, 50) / 1000).toFixed(1)} s, max ${((times.at(-1) ?? 0) / 1000).toFixed(1)} s ` +
        `(à vide : ${(quiet.ms / 1000).toFixed(1)} s${quiet.ok ? '' : ', en échec'} ; objectif : tous réussis, bien avant les 30 s d'attente d'un verrou)`,
    );
    for (const error of new Set(accounts.filter((a) => !a.ok).map((a) => a.error))) console.log(`    échec : ${error || 'sans message'}`);
  } finally {
    await stopProcess(service);
    remove();
  }
}
