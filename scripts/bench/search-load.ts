// Searches under load on the large demo set, on SQLite and on PostgreSQL: the four word
// searches (marches, entreprises, attributions, bodacc) at 20 connections against one
// service process, then against one per core (WORKERS, the service's default), each with a realistic stream of calls — thousands of distinct queries
// (trade words × buildings or towns × filters) drawn with a Zipf-like frequency, as real
// traffic repeats its popular queries — and the share of answers the service took from its
// result cache (printed by the service's processes when they stop), with the service's CPU
// per call.
//
// The databases are built once from the large data set (units, establishments, BOAMP, DECP,
// BODACC: what the four searches read) and kept when BENCH_DATA_DIR is set: the SQLite file
// in BENCH_DATA_DIR/search-load/, the PostgreSQL database `bench_search_load` on
// BENCH_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/postgres); a kept database
// is migrated to the latest schema before each run.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import knex from 'knex';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { DEMO_FILES } from '../demo/index.js';
import { countMatches, type SearchIndex } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { emptySharedSearchCache } from '../../src/platform/search/search-cache.js';
import { NOTICES_SEARCH } from '../../src/domains/notices/search-index.js';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { AWARDS_SEARCH } from '../../src/domains/awards/search-index.js';
import { ANNOUNCEMENTS_SEARCH } from '../../src/domains/announcements/search-index.js';
import { obtainToken } from '../lib/native-flow.js';
import { BENCH_ACCOUNT, createBenchAccount, formatInt, measure, verdict, type Figures } from './measure.js';
import { startService, stopProcess } from './processes.js';
import { processTreeCpuMs, type Engine } from './engines.js';
import { Rng } from '../demo/prng.js';


/** The target of this 2-core machine, per search, on either engine. */
export const SEARCH_LOAD_TARGET = { connections: 20, rps: 500, p99Ms: 100 } as const;

/** What the four searches read, imported in this order. */
const IMPORTS = [
  ['sirene-unites', DEMO_FILES.unites],
  ['sirene-etablissements', DEMO_FILES.etablissements],
  ['boamp', DEMO_FILES.boampJson],
  ['decp', DEMO_FILES.decp2019],
  ['decp', DEMO_FILES.decp2024],
  ['bodacc', DEMO_FILES.bodaccJson],
] as const;
/** Written once every import succeeded (a kept database without it is built again). */
const BUILT_MARK = 'search-load-built-1';

// --- The query stream ---------------------------------------------------------------------

/** A small deterministic generator (the demo data's mulberry32): the same stream on every run and engine. */
function generator(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

const TRADES = [
  'toiture', 'couverture', 'charpente', 'zinguerie', 'etancheite', 'isolation', 'menuiseries', 'menuiserie', 'peinture', 'electricite',
  'plomberie', 'chauffage', 'ventilation', 'climatisation', 'voirie', 'enrobes', 'maconnerie', 'ravalement', 'facades', 'carrelage',
  'serrurerie', 'metallerie', 'demolition', 'desamiantage', 'terrassement', 'renovation', 'rehabilitation', 'construction', 'extension', 'amenagement',
  'platrerie', 'cloisons', 'sols', 'ascenseur', 'photovoltaique', 'reseaux', 'assainissement', 'espaces', 'travaux', 'entretien',
];
const BUILDINGS = [
  'ecole', 'gymnase', 'mairie', 'college', 'lycee', 'salle', 'logements', 'eglise', 'creche', 'piscine',
  'bibliotheque', 'stade', 'ehpad', 'groupe', 'scolaire', 'energetique', 'exterieures', 'interieures', 'thermique', 'batiment',
];
const TOWNS = ['brest', 'quimper', 'rennes', 'lorient', 'vannes', 'nantes', 'paris', 'lyon', 'marseille', 'bordeaux', 'lille', 'toulouse', 'morlaix', 'saint', 'nice', 'angers'];
const DEPARTEMENTS = ['29', '35', '56', '22', '44', '75', '69', '13', '33', '59'];
const BODACC_WORDS = ['liquidation', 'judiciaire', 'redressement', 'sauvegarde', 'creation', 'immatriculation', 'radiation', 'vente', 'fonds', 'depot'];

/**
 * The two-word queries of one search (trade × building or town; for BODACC, trade or
 * procedure × procedure, trade or town): people ask for what exists, so the bench keeps
 * those that match at least one document (`answeringPairs`). Each is then asked alone, with
 * a department, and (for some) with a second filter of the search, shuffled so that the
 * popular ranks mix every kind.
 */
export function wordPairs(operation: string): string[] {
  const second = operation === 'bodacc.search' ? [...BODACC_WORDS, ...TRADES.slice(0, 20), ...TOWNS] : [...BUILDINGS, ...TOWNS];
  const first = operation === 'bodacc.search' ? [...TRADES.slice(0, 30), ...BODACC_WORDS] : TRADES;
  const pairs: string[] = [];
  for (const a of first) for (const b of second) if (a !== b) pairs.push(`${a} ${b}`);
  return pairs;
}

/**
 * The bodies of `pairs` (the word pairs that find something, see `answeringPairs`), each alone
 * and with filters; shuffled.
 */
export function distinctBodies(operation: string, pairs: readonly string[]): string[] {
  const random = generator(operation.length * 7919 + 17);
  const bodies: Record<string, unknown>[] = [];
  for (const query of pairs) {
    bodies.push({ query });
      const departement = DEPARTEMENTS[Math.floor(random() * DEPARTEMENTS.length)] as string;
      if (operation === 'entreprises.search') {
        bodies.push({ query, localisation: { dept: departement } });
        if (random() < 0.3) bodies.push({ query, localisation: { dept: departement }, effectif: ['01', '02', '03'] });
      } else {
        bodies.push({ query, departements: [departement] });
        if (random() < 0.3) {
          if (operation === 'marches.search') bodies.push({ query, departements: [departement], type_marche: ['TRAVAUX'] });
          if (operation === 'attributions.search') bodies.push({ query, departements: [departement], montant_min: 40_000 });
          if (operation === 'bodacc.search') bodies.push({ query, familles: ['collective'] });
        }
      }
  }
  const texts = bodies.map((b) => JSON.stringify(b));
  for (let i = texts.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [texts[i], texts[j]] = [texts[j] as string, texts[i] as string];
  }
  return texts;
}

/** Zipf's exponent: the k-th most frequent query is asked about 1/k as often as the first. */
const ZIPF_S = 1;
/** Draws per stream: more than any run sends, so that no two calls of a run repeat the stream. */
const STREAM_LENGTH = 200_000;

/** The calls of a run, in order: `STREAM_LENGTH` draws among `bodies`, rank k with weight 1/k^s. */
export function zipfStream(bodies: readonly string[], seed: number): string[] {
  const cumulative: number[] = [];
  let sum = 0;
  for (let k = 1; k <= bodies.length; k++) cumulative.push((sum += 1 / k ** ZIPF_S));
  const random = generator(seed);
  const out: string[] = [];
  for (let i = 0; i < STREAM_LENGTH; i++) {
    const x = random() * sum;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    out.push(bodies[lo] as string);
  }
  return out;
}

// --- The databases ------------------------------------------------------------------------

const quiet = () => ({ update: () => undefined, stop: () => undefined });

async function importAll(db: Database, dataDir: string, engine: Engine): Promise<void> {
  await migrateLatest(db);
  await createBenchAccount(db);
  for (const [source, file] of IMPORTS) {
    const report = await importFile(db, IMPORTERS[source] as never, join(dataDir, file), { progress: quiet });
    console.log(`  ${engine.padEnd(8)} ${source.padEnd(22)} ${formatInt(report.read).padStart(10)} lignes en ${report.seconds.toFixed(1).padStart(6)} s`);
  }
}

/** The SQLite database of the runs: kept in BENCH_DATA_DIR/search-load when given. */
async function sqliteDatabase(dataDir: string, keep: boolean): Promise<{ url: string; remove: () => void }> {
  const dir = keep ? join(dataDir, 'search-load') : mkdtempSync(join(tmpdir(), 'bench-search-load-'));
  mkdirSync(dir, { recursive: true });
  const url = `sqlite:${join(dir, 'search.sqlite')}`;
  const mark = join(dir, BUILT_MARK);
  if (!existsSync(mark)) {
    rmSync(join(dir, 'search.sqlite'), { force: true });
    console.log(`Base SQLite des recherches sous charge : construction dans ${dir}…`);
    const db = openDatabase(url);
    try {
      await importAll(db, dataDir, 'sqlite');
    } finally {
      await db.destroy();
    }
    writeFileSync(mark, `${new Date().toISOString()}\n`);
  } else {
    const db = openDatabase(url);
    try {
      await migrateLatest(db);
    } finally {
      await db.destroy();
    }
    console.log(`Base SQLite des recherches sous charge reprise de ${dir}.`);
  }
  return { url, remove: () => (keep ? undefined : rmSync(dir, { recursive: true, force: true })) };
}

const PG_DATABASE = 'bench_search_load';

/** The PostgreSQL database of the runs (`bench_search_load`), built unless kept whole. */
async function postgresDatabase(dataDir: string, keep: boolean): Promise<{ url: string; remove: () => Promise<void> }> {
  const admin = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const server = knex({ client: 'pg', connection: admin, pool: { min: 0, max: 1 } });
  const url = new URL(admin);
  url.pathname = `/${PG_DATABASE}`;
  try {
    const exists = (await server.raw('select 1 from pg_database where datname = ?', [PG_DATABASE])).rows.length > 0;
    let built = false;
    if (exists && keep) {
      const db = openDatabase(url.toString());
      try {
        built = (await db.raw(`select to_regclass('public.bench_search_load_mark') is not null as built`)).rows[0].built as boolean;
        if (built) await migrateLatest(db);
      } finally {
        await db.destroy();
      }
    }
    if (!built) {
      if (exists) await server.raw(`drop database "${PG_DATABASE}" with (force)`);
      await server.raw(`create database "${PG_DATABASE}"`);
      console.log(`Base PostgreSQL des recherches sous charge : construction (${PG_DATABASE})…`);
      const db = openDatabase(url.toString());
      try {
        await importAll(db, dataDir, 'postgres');
        await db.raw('vacuum analyze');
        await db.raw('create table bench_search_load_mark (built_at timestamptz not null default now())');
      } finally {
        await db.destroy();
      }
    } else console.log(`Base PostgreSQL des recherches sous charge reprise (${PG_DATABASE}).`);
  } finally {
    await server.destroy();
  }
  return {
    url: url.toString(),
    remove: async () => {
      if (keep) return;
      const again = knex({ client: 'pg', connection: admin, pool: { min: 0, max: 1 } });
      try {
        await again.raw(`drop database if exists "${PG_DATABASE}" with (force)`);
      } finally {
        await again.destroy();
      }
    },
  };
}

// --- The runs -----------------------------------------------------------------------------

export const LOAD_SEARCHES = ['marches.search', 'entreprises.search', 'attributions.search', 'bodacc.search'] as const;

/** The searches measured: all four, or those listed in BENCH_SEARCH_OPERATIONS (comma-separated). */
function measuredSearches(): string[] {
  const asked = process.env.BENCH_SEARCH_OPERATIONS?.split(',').map((o) => o.trim()).filter(Boolean);
  if (!asked?.length) return [...LOAD_SEARCHES];
  for (const o of asked) if (!(LOAD_SEARCHES as readonly string[]).includes(o)) throw new Error(`BENCH_SEARCH_OPERATIONS : recherche inconnue : ${o} (${LOAD_SEARCHES.join(', ')})`);
  return asked;
}

export interface SearchLoadResult {
  engine: Engine;
  /** The service's processes serving the API (WORKERS). */
  workers: number;
  operation: string;
  distinct: number;
  figures: Figures;
  /** CPU time of the service's processes per call (ms), warm-up included. */
  cpuPerCallMs: number;
  /** Share of the run's calls answered from the result cache (warm-up included), when the service printed it. */
  cacheHitRatio: number | null;
  /** Of those calls, the share answered by the cache the processes share (PostgreSQL): a page another process computed. */
  sharedHitRatio: number | null;
  /** Share of the distinct queries with at least one result (a sample of `SAMPLE`). */
  answered: number;
}

/** The service's own count of cached answers, per search index, from the lines its processes log when they stop (summed over its workers). */
export function cacheStatsOf(stdout: string): Record<string, { hits: number; misses: number; shared: number }> {
  const total: Record<string, { hits: number; misses: number; shared: number }> = {};
  for (const line of stdout.split('\n')) {
    if (!line.includes('"searchCache"')) continue;
    try {
      for (const [index, c] of Object.entries((JSON.parse(line) as { searchCache: Record<string, { hits: number; misses: number; shared?: number }> }).searchCache)) {
        const t = (total[index] ??= { hits: 0, misses: 0, shared: 0 });
        t.hits += c.hits;
        t.misses += c.misses;
        t.shared += c.shared ?? 0;
      }
    } catch {
      /* not a log line */
    }
  }
  return total;
}

/** Distinct queries asked one by one before the run, to tell how many find something. */
const SAMPLE = 100;

export const INDEX_OF: Record<string, string> = {
  'marches.search': 'notices_search',
  'entreprises.search': 'companies_search',
  'attributions.search': 'awards_search',
  'bodacc.search': 'announcements_search',
};

export const INDEXES: Record<string, SearchIndex> = {
  'marches.search': NOTICES_SEARCH,
  'entreprises.search': COMPANIES_SEARCH,
  'attributions.search': AWARDS_SEARCH,
  'bodacc.search': ANNOUNCEMENTS_SEARCH,
};

/** The word pairs of `operation` that match at least one document of its index (the same on both engines). */
export async function answeringPairs(db: Database, operation: string): Promise<string[]> {
  const out: string[] = [];
  for (const pair of wordPairs(operation)) if ((await countMatches(db, INDEXES[operation] as SearchIndex, parseQuery(pair), 1)) > 0) out.push(pair);
  return out;
}

async function runEngine(engine: Engine, databaseUrl: string, workers: number): Promise<SearchLoadResult[]> {
  const pairs = new Map<string, string[]>();
  const db = openDatabase(databaseUrl);
  try {
    for (const operation of measuredSearches()) pairs.set(operation, await answeringPairs(db, operation));
    // Every run starts with no answer computed, as the process's own cache does: the pages a
    // run before stored in the cache the processes share (PostgreSQL) are dropped.
    await emptySharedSearchCache(db);
  } finally {
    await db.destroy();
  }
  // WORKERS=1: the figure per process; the default (one per core): the machine's. LOG_LEVEL=info for the cache's count at the stop.
  const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', WORKERS: String(workers) });
  let stdout = service.stdout;
  service.child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  const results: Omit<SearchLoadResult, 'cacheHitRatio' | 'sharedHitRatio'>[] = [];
  const pid = service.child.pid as number;
  try {
    const { accessToken } = await obtainToken({ baseUrl: service.url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read' });
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    for (const operation of measuredSearches()) {
      const bodies = distinctBodies(operation, pairs.get(operation) ?? []);
      // How many of the queries find something: the stream is of real questions, not of misses.
      let answered = 0;
      let failed = 0;
      const sample = bodies.slice(0, SAMPLE);
      for (const body of sample) {
        const res = await fetch(`${service.url}/api/mcp/v1/${operation}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(40_000) }).catch(() => null);
        const json = res ? ((await res.json().catch(() => ({}))) as { results?: unknown[] }) : {};
        if (res?.status !== 200) failed++;
        else if (json.results?.length) answered++;
      }
      if (failed) console.log(`  ${operation} : ${failed} des ${sample.length} premières requêtes en échec (délai ou erreur)`);
      const stream = zipfStream(bodies, 4242);
      let next = 0;
      const options: autocannon.Options = {
        url: service.url,
        requests: [{ method: 'POST', path: `/api/mcp/v1/${operation}`, headers, setupRequest: (request) => ({ ...request, body: stream[next++ % stream.length] as string }) }],
      };
      const cpuBefore = processTreeCpuMs(pid);
      const figures = await measure(`${operation} [${engine}, ${workers} proc.] ${formatInt(bodies.length)} requêtes (Zipf), ${SEARCH_LOAD_TARGET.connections} cx`, options, SEARCH_LOAD_TARGET.connections);
      const cpuPerCallMs = next ? (processTreeCpuMs(pid) - cpuBefore) / next : 0;
      const sent = new Set(stream.slice(0, Math.min(next, stream.length))).size;
      console.log(
        `  ${formatInt(next)} appels, ${formatInt(sent)} requêtes distinctes envoyées, CPU du service ${cpuPerCallMs.toFixed(2)} ms par appel ; ${Math.round((answered / sample.length) * 100)} % des requêtes ont des résultats`,
      );
      results.push({ engine, workers, operation, distinct: bodies.length, figures, cpuPerCallMs, answered: answered / sample.length });
    }
  } finally {
    await stopProcess(service);
  }
  const stats = cacheStatsOf(stdout);
  return results.map((r) => {
    const s = stats[INDEX_OF[r.operation] as string];
    const cacheHitRatio = s && s.hits + s.misses ? s.hits / (s.hits + s.misses) : null;
    const sharedHitRatio = s && s.hits + s.misses ? s.shared / (s.hits + s.misses) : null;
    return { ...r, cacheHitRatio, sharedHitRatio };
  });
}

/**
 * The service's processes of each run: one (the figure per process), then the default, one
 * per core (the machine's figure); BENCH_SEARCH_WORKERS (comma-separated) for others.
 */
function workerCounts(): number[] {
  const asked = process.env.BENCH_SEARCH_WORKERS?.split(',').map((w) => Number(w.trim())).filter((w) => Number.isInteger(w) && w > 0);
  if (asked?.length) return asked;
  return [...new Set([1, availableParallelism()])];
}

/** The searches under load on each engine, with one service process then one per core, then one table of figures next to the target. */
export async function benchSearchLoad(dataDir: string, engines: readonly Engine[], keep: boolean): Promise<SearchLoadResult[]> {
  console.log('');
  console.log(`Recherches sous charge (jeu large, ${SEARCH_LOAD_TARGET.connections} connexions, flux Zipf) — ${engines.join(' et ')}`);
  const results: SearchLoadResult[] = [];
  for (const engine of engines) {
    const database = engine === 'sqlite' ? await sqliteDatabase(dataDir, keep) : await postgresDatabase(dataDir, keep);
    try {
      for (const workers of workerCounts()) results.push(...(await runEngine(engine, database.url, workers)));
    } finally {
      await database.remove();
    }
  }
  console.log(`Objectifs (machine à 2 cœurs, ${SEARCH_LOAD_TARGET.connections} cx) : ≥ ${SEARCH_LOAD_TARGET.rps} appels/s et p99 < ${SEARCH_LOAD_TARGET.p99Ms} ms`);
  for (const r of results) {
    const reached = r.figures.rps >= SEARCH_LOAD_TARGET.rps && r.figures.p99 < SEARCH_LOAD_TARGET.p99Ms && r.figures.errors + r.figures.non2xx === 0;
    const shared = r.engine === 'postgres' && r.sharedHitRatio !== null ? ` (partagé ${(r.sharedHitRatio * 100).toFixed(1)} %)` : '';
    const cache = r.cacheHitRatio === null ? 'cache : —' : `cache : ${(r.cacheHitRatio * 100).toFixed(1)} %${shared}`;
    console.log(
      `  ${r.operation.padEnd(20)} ${r.engine.padEnd(8)} ${`${r.workers} proc.`.padEnd(8)} ${formatInt(r.figures.rps).padStart(6)} appels/s   p99 ${String(r.figures.p99).padStart(4)} ms   CPU ${r.cpuPerCallMs.toFixed(2).padStart(5)} ms/appel   erreurs ${r.figures.errors + r.figures.non2xx}   ${cache.padEnd(16)} ${verdict(reached)}`,
    );
  }
  return results;
}
