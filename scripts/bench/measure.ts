// Pieces shared by the benchmark's parts: an autocannon run with its warm-up, the account
// the runs call with, and how a figure is printed next to its target.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { migrateLatest } from '../../src/migrations/index.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { createAccount, setOrganisationPlan } from '../../src/auth/store/accounts.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';

export const DURATION = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** The answers outside 2xx by status, and the connection errors (time-outs included): « 503 ×4, erreurs réseau ×1 ». */
  failures: string;
}

/** The answers outside 2xx by status and the connection errors of an autocannon run, for the printed line. */
export function failuresOf(r: autocannon.Result): string {
  const parts = Object.entries(r.statusCodeStats ?? {})
    .filter(([status]) => !status.startsWith('2'))
    .map(([status, s]) => `${status} ×${(s as { count: number }).count}`);
  if (r.timeouts) parts.push(`délais dépassés ×${r.timeouts}`);
  if (r.errors > r.timeouts) parts.push(`erreurs réseau ×${r.errors - r.timeouts}`);
  return parts.join(', ');
}

/** The printed line of a figure: calls per second, latencies, failures and what they were. */
export function figureLine(title: string, figures: Figures): string {
  const failed = figures.errors + figures.non2xx;
  return `${title.padEnd(52)} ${figures.rps.toFixed(0).padStart(7)} req/s   p50 ${String(figures.p50).padStart(3)} ms   p99 ${String(figures.p99).padStart(3)} ms   erreurs ${failed}${failed ? ` (${figures.failures})` : ''}`;
}

/** A short warm-up (JIT, caches), then the measured run; prints one line. */
export async function measure(title: string, options: autocannon.Options, connections = CONNECTIONS): Promise<Figures> {
  await autocannon({ ...options, duration: 2, connections });
  const r = await autocannon({ ...options, duration: DURATION, connections });
  const figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, failures: failuresOf(r) };
  console.log(figureLine(title, figures));
  return figures;
}

export const BENCH_ACCOUNT = { email: 'bench@exemple.fr', password: 'mot-de-passe-bench', organisation: 'Bench' } as const;

/** The account of the runs, in an organisation with a negotiated contract whose limits the runs never reach: every call admitted and counted. */
export async function createBenchAccount(db: Database): Promise<void> {
  await createAccount(db, { email: BENCH_ACCOUNT.email, passwordHash: await hashPassword(BENCH_ACCOUNT.password), organisation: BENCH_ACCOUNT.organisation, plan: 'subscribed' }, new Date());
  await setOrganisationPlan(db, BENCH_ACCOUNT.organisation, { callsPerMinute: 100_000_000, callsPerDay: 1_000_000_000 });
}

/** A new SQLite database in a temporary folder, migrated, with the bench account: its URL, and what removes it. */
export async function benchDatabase(prefix: string): Promise<{ databaseUrl: string; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
  const db = openDatabase(databaseUrl);
  await migrateLatest(db);
  await createBenchAccount(db);
  await db.destroy();
  return { databaseUrl, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const verdict = (reached: boolean) => (reached ? 'ATTEINT' : 'NON ATTEINT');

const integer = new Intl.NumberFormat('fr-FR');
export const formatInt = (n: number) => integer.format(Math.round(n));
