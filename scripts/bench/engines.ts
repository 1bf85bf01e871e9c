// The same figures on SQLite and on PostgreSQL, side by side, in one run (npm run bench,
// part « moteurs », `--engine sqlite|postgres|both`): on each engine a fresh database (a
// SQLite file; a PostgreSQL schema of its own, dropped after), the demo set imported (the
// import rates), the service started on it, then through its HTTP API at 20 connections the
// admitted call (from one account, and spread over many as real traffic is), entreprises.get,
// the searches, events.poll of a full page, suivis.create, and the alert robot's run. Each
// PostgreSQL figure is printed next to SQLite's with the ratio and its target (within 2×).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { createAccount, setOrganisationPlan } from '../../src/auth/store/accounts.js';
import { importFile, type ImportReport } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { appendEvents } from '../../src/domains/events/store.js';
import { writeDemoData, type DemoDataResult } from '../demo/index.js';
import { obtainToken } from '../lib/native-flow.js';
import { noticeEvent } from './events.js';
import { BENCH_ACCOUNT, CONNECTIONS, createBenchAccount, DURATION, failuresOf, figureLine, formatInt, measure, verdict, type Figures } from './measure.js';
import { startProcess, startService, stopProcess } from './processes.js';
import { benchRobot } from './robot.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];
const ENGINE_NAMES: Record<Engine, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** The machine's PostgreSQL (BENCH_DATABASE_URL to use another). */
export const BENCH_POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Targets: PostgreSQL within 2× of SQLite on every figure; the admitted call ≥ 25 % of bare node:http. */
export const ENGINE_TARGETS = { maxRatio: 2, admittedShareOfBare: 0.25 } as const;

/** Accounts the spread admitted call is drawn over (each in an organisation of its own). */
const SPREAD_ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 16);

/** The demo set's import order (establishments after their companies; DCE files apart). */
const IMPORT_ORDER = ['sirene-unites', 'sirene-etablissements', 'rge', 'rne', 'ratios', 'boamp', 'decp', 'bodacc', 'deliberations', 'publications', 'contacts', 'dvf', 'permis'] as const;

/** A database of its own for one run: a SQLite file, or a PostgreSQL schema (named in the URL, so the service's process works in it). */
export interface BenchTarget {
  engine: Engine;
  databaseUrl: string;
  /** PostgreSQL: the run's schema. */
  schema?: string;
  /** For the set-up and the checks, in the same database (schema). */
  open: () => Database;
  remove: () => Promise<void>;
}

export async function benchTarget(engine: Engine, prefix: string): Promise<BenchTarget> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    const databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
    return { engine, databaseUrl, open: () => openDatabase(databaseUrl), remove: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `${prefix.replace(/[^a-z0-9]/gi, '_').replace(/_+$/, '')}_${randomBytes(5).toString('hex')}`.toLowerCase();
  const databaseUrl = `${BENCH_POSTGRES_URL}${BENCH_POSTGRES_URL.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const admin = openDatabase(BENCH_POSTGRES_URL);
  try {
    await admin.raw('create schema ??', [schema]);
  } finally {
    await admin.destroy();
  }
  return {
    engine,
    databaseUrl,
    schema,
    open: () => openDatabase(BENCH_POSTGRES_URL, { searchPath: schema }),
    remove: async () => {
      const db = openDatabase(BENCH_POSTGRES_URL);
      try {
        await db.raw('drop schema if exists ?? cascade', [schema]);
      } finally {
        await db.destroy();
      }
    },
  };
}

/** One engine's figures, by name (calls per second, latencies, CPU per call), and its import rates. */
interface EngineRun {
  engine: Engine;
  figures: Map<string, Figures & { cpuMs: number }>;
  imports: { source: string; rows: number; seconds: number }[];
  robotSeconds: number;
  /** The admitted call's answer, which the bare node:http server sends back byte for byte. */
  sampleBody: string;
}

const quiet = () => ({ update: () => undefined, stop: () => undefined });

/** The figures of the comparison, in the order they are printed. */
const ROWS = {
  admittedOne: 'appel admis (referentiels.sources), 1 compte',
  admittedSpread: `appel admis, ${SPREAD_ACCOUNTS} comptes tour à tour`,
  get: 'entreprises.get (SIREN tour à tour)',
  searchNotices: 'marches.search deux mots',
  searchCompanies: 'entreprises.search un mot (20 résultats)',
  searchAwards: 'attributions.search deux mots',
  searchAnnouncements: 'bodacc.search deux mots',
  poll: 'events.poll page pleine (100 événements)',
  follow: 'suivis.create (cibles nouvelles)',
} as const;

const NOTICE_QUERIES = ['toiture ecole', 'isolation thermique', 'etancheite toiture', 'ravalement facades', 'peinture ecole', 'chauffage gymnase', 'renovation energetique', 'menuiseries exterieures'];
const COMPANY_WORDS = ['maconnerie', 'plomberie', 'electricite', 'couverture', 'menuiserie', 'peinture', 'charpente', 'carrelage', 'batiment', 'renovation', 'construction', 'isolation'];
const AWARD_QUERIES = ['travaux voirie', 'renovation toiture', 'construction ecole', 'isolation thermique', 'entretien chauffage', 'peinture batiment'];
const ANNOUNCEMENT_QUERIES = ['liquidation judiciaire', 'travaux couverture', 'redressement judiciaire', 'peinture vitrerie'];

async function importDemo(db: Database, demo: DemoDataResult): Promise<EngineRun['imports']> {
  const imports: EngineRun['imports'] = [];
  for (const source of IMPORT_ORDER) {
    const files = demo.files.filter((f) => f.source === source && !((source === 'boamp' || source === 'bodacc') && f.name.endsWith('.jsonl')));
    let rows = 0;
    let seconds = 0;
    for (const file of files) {
      const report: ImportReport = await importFile(db, IMPORTERS[source] as never, file.path, { progress: quiet });
      rows += report.read;
      seconds += report.seconds;
    }
    imports.push({ source, rows, seconds });
  }
  return imports;
}

/** Accounts in organisations of their own, with limits the runs never reach. */
async function createSpreadAccounts(db: Database): Promise<{ email: string; password: string }[]> {
  const password = 'mot-de-passe-bench';
  const passwordHash = await hashPassword(password);
  const accounts = [];
  for (let i = 0; i < SPREAD_ACCOUNTS; i++) {
    const email = `bench-${i}@exemple.fr`;
    const organisation = `Bench ${i}`;
    await createAccount(db, { email, passwordHash, organisation, plan: 'subscribed' }, new Date());
    await setOrganisationPlan(db, organisation, { callsPerMinute: 100_000_000, callsPerDay: 1_000_000_000 });
    accounts.push({ email, password });
  }
  return accounts;
}

/** An engine ready to measure: its database filled, its service started, its tokens. */
interface Prepared {
  engine: Engine;
  name: string;
  target: BenchTarget;
  url: string;
  headers: Record<string, string>;
  spreadTokens: string[];
  sirens: string[];
  followBodies: string[];
  subscriptionId: string;
  imports: EngineRun['imports'];
  sampleBody: string;
  stop: () => Promise<void>;
  /** CPU time used so far by the service's process and, on PostgreSQL, by its server processes (ms). */
  cpuMs: () => Promise<number>;
}

/** utime + stime of a process, in ms (0 once it is gone). */
function processCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
const CLOCK_TICKS = 100;

/**
 * A process and its descendants (the cluster's workers: with WORKERS ≥ 2 the service's own
 * process only forks them, and its CPU alone read about 0.00 ms per call).
 */
export function processTreeCpuMs(pid: number): number {
  let ms = processCpuMs(pid);
  let children: string[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean);
  } catch {
    // Gone, or no such file on this kernel: the process alone.
  }
  for (const child of children) ms += processTreeCpuMs(Number(child));
  return ms;
}

async function prepare(engine: Engine, demo: DemoDataResult): Promise<Prepared> {
  const name = ENGINE_NAMES[engine];
  const target = await benchTarget(engine, 'bench-engines-');
  const db = target.open();
  let imports: EngineRun['imports'];
  let sirens: string[];
  let spread: { email: string; password: string }[];
  let followBodies: string[];
  try {
    await migrateLatest(db);
    await createBenchAccount(db);
    spread = await createSpreadAccounts(db);
    imports = await importDemo(db, demo);
    const total = imports.reduce((n, i) => n + i.rows, 0);
    const seconds = imports.reduce((n, i) => n + i.seconds, 0);
    console.log(`  ${name} : imports du jeu de démonstration, ${formatInt(total)} lignes en ${seconds.toFixed(1)} s (${formatInt(total / seconds)} lignes/s)`);
    sirens = (await db('companies').orderBy('siren').pluck('siren')) as string[];
    const notices = (await db('notices').orderBy('marche_id').pluck('marche_id')) as string[];
    followBodies = [
      ...notices.map((id) => JSON.stringify({ cible: { type: 'marche', id }, notes: 'À étudier avec le conducteur de travaux.', tags: ['bench'] })),
      ...sirens.map((id) => JSON.stringify({ cible: { type: 'entreprise', id }, tags: ['concurrent'] })),
    ];
  } finally {
    await db.destroy();
  }
  // The service's PostgreSQL connections carry a name of their own: their server processes' CPU is counted with the service's.
  const applicationName = `bench_${randomBytes(4).toString('hex')}`;
  const databaseUrl = engine === 'postgres' ? `${target.databaseUrl}&application_name=${applicationName}` : target.databaseUrl;
  const service = await startService({ PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', ROBOT: 'off', EXPIRED_ROWS_SWEEP: 'off' });
  const monitor = engine === 'postgres' ? openDatabase(BENCH_POSTGRES_URL, { poolSize: 1 }) : null;
  const stop = async () => {
    await stopProcess(service);
    await monitor?.destroy();
  };
  try {
    const url = service.url;
    const { accessToken } = await obtainToken({ baseUrl: url, email: BENCH_ACCOUNT.email, password: BENCH_ACCOUNT.password, scope: 'mcp:read mcp:write' });
    const headers = { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' };
    const spreadTokens: string[] = [];
    for (const a of spread) spreadTokens.push((await obtainToken({ baseUrl: url, email: a.email, password: a.password, scope: 'mcp:read' })).accessToken);
    const post = async <T>(operation: string, body: unknown): Promise<T> => {
      const r = await fetch(`${url}/api/mcp/v1/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await r.json()) as unknown;
      if (r.status !== 200) throw new Error(`${operation} : ${r.status} ${JSON.stringify(json).slice(0, 300)}`);
      return json as T;
    };
    const sample = await fetch(`${url}/api/mcp/v1/referentiels.sources`, { method: 'POST', headers, body: '{}' });
    const sampleBody = await sample.text();
    if (sample.status !== 200) throw new Error(`appel de référence en échec : ${sample.status}`);
    for (const [operation, queries] of SEARCHES) {
      // Each query finds something (a search answering nothing would measure nothing).
      const found = await post<{ results: unknown[] }>(operation, { query: queries[0] });
      if (!found.results.length) throw new Error(`${operation} « ${queries[0]} » ne trouve rien`);
    }
    // events.poll: a page of 100 notice events from the middle of an alert's log.
    const alert = await post<{ alerte: { id: string } }>('alertes.create', { name: 'Couverture Bretagne', query: 'couverture, toiture', departements: ['35'] });
    const events = target.open();
    let subscriptionId: string;
    try {
      const organisationId = (await events('alerts').where('id', alert.alerte.id).first('organisation_id')).organisation_id as string;
      const ref = { id: alert.alerte.id, organisationId };
      for (let i = 0; i < 2000; i += 500) await appendEvents(events, ref, Array.from({ length: 500 }, (_, k) => noticeEvent(i + k, url)), new Date());
      subscriptionId = (await post<{ subscription_id: string }>('events.subscribe', { alerte_id: ref.id, key: 'bench' })).subscription_id;
      for (let i = 2000; i < 2500; i += 500) await appendEvents(events, ref, Array.from({ length: 500 }, (_, k) => noticeEvent(i + k, url)), new Date());
    } finally {
      await events.destroy();
    }
    const pid = service.child.pid as number;
    const cpuMs = async () => {
      let ms = processTreeCpuMs(pid);
      if (monitor) {
        const { rows } = await monitor.raw('select pid from pg_stat_activity where application_name = ?', [applicationName]);
        for (const row of rows as { pid: number }[]) ms += processCpuMs(row.pid);
      }
      return ms;
    };
    return { engine, name, target, url, headers, spreadTokens, sirens, followBodies, subscriptionId, imports, sampleBody, stop, cpuMs };
  } catch (err) {
    await stop();
    throw err;
  }
}

const SEARCHES = [
  ['marches.search', NOTICE_QUERIES, 'searchNotices'],
  ['entreprises.search', COMPANY_WORDS, 'searchCompanies'],
  ['attributions.search', AWARD_QUERIES, 'searchAwards'],
  ['bodacc.search', ANNOUNCEMENT_QUERIES, 'searchAnnouncements'],
] as const;

/** One operation, each call with the next body of the list (and, when given, the next account's token). */
function rotating(p: Prepared, operation: string, bodies: string[], tokens?: string[]): autocannon.Options {
  let next = 0;
  let nextToken = 0;
  return {
    url: p.url,
    requests: [
      {
        method: 'POST',
        path: `/api/mcp/v1/${operation}`,
        headers: p.headers,
        setupRequest: (request) => ({
          ...request,
          body: bodies[next++ % bodies.length] as string,
          ...(tokens ? { headers: { ...p.headers, authorization: `Bearer ${tokens[nextToken++ % tokens.length]}` } } : {}),
        }),
      },
    ],
  };
}

/** suivis.create: a fixed number of inserts, each on a target not followed yet (a duration would run out of targets). */
async function measureFollows(p: Prepared, title: string): Promise<Figures> {
  let next = 0;
  const follow = (amount: number) =>
    autocannon({
      url: p.url,
      connections: CONNECTIONS,
      amount,
      requests: [{ method: 'POST', path: '/api/mcp/v1/suivis.create', headers: p.headers, setupRequest: (request) => ({ ...request, body: p.followBodies[next++] as string }) }],
    });
  const warmUp = Math.min(400, Math.floor(p.followBodies.length / 4));
  await follow(warmUp);
  const r = await follow(p.followBodies.length - warmUp);
  const figures = { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors, non2xx: r.non2xx, failures: failuresOf(r) };
  console.log(figureLine(title, figures));
  return figures;
}

/** Every figure on each engine, the engines one after the other for each figure (the same minute of a shared machine). */
async function measureAll(prepared: Prepared[], runs: Map<Engine, EngineRun>): Promise<void> {
  const json = (bodies: unknown[]) => bodies.map((b) => JSON.stringify(b));
  const figureOf = async (p: Prepared, key: keyof typeof ROWS, run: (title: string) => Promise<Figures>) => {
    const before = await p.cpuMs();
    const f = await run(`${p.name} ${ROWS[key]}`);
    const cpu = (await p.cpuMs()) - before;
    // CPU per call over the measured run and its warm-up (2 s at the same rate, or the warm-up's calls).
    const calls = key === 'follow' ? p.followBodies.length : f.rps * (DURATION + 2);
    (runs.get(p.engine) as EngineRun).figures.set(key, { ...f, cpuMs: cpu / Math.max(calls, 1) });
  };
  const options: Record<Exclude<keyof typeof ROWS, 'follow'>, (p: Prepared) => autocannon.Options> = {
    admittedOne: (p) => rotating(p, 'referentiels.sources', ['{}']),
    admittedSpread: (p) => rotating(p, 'referentiels.sources', ['{}'], p.spreadTokens),
    get: (p) => rotating(p, 'entreprises.get', json(p.sirens.map((siren) => ({ siren })))),
    searchNotices: (p) => rotating(p, 'marches.search', json(NOTICE_QUERIES.map((query) => ({ query })))),
    searchCompanies: (p) => rotating(p, 'entreprises.search', json(COMPANY_WORDS.map((query) => ({ query })))),
    searchAwards: (p) => rotating(p, 'attributions.search', json(AWARD_QUERIES.map((query) => ({ query })))),
    searchAnnouncements: (p) => rotating(p, 'bodacc.search', json(ANNOUNCEMENT_QUERIES.map((query) => ({ query })))),
    poll: (p) => rotating(p, 'events.poll', [JSON.stringify({ subscription_id: p.subscriptionId })]),
  };
  for (const key of Object.keys(ROWS) as (keyof typeof ROWS)[]) {
    for (const p of prepared) {
      if (key === 'follow') await figureOf(p, key, (title) => measureFollows(p, title));
      else await figureOf(p, key, (title) => measure(title, options[key](p)));
    }
  }
}

const pad = (s: string, n: number) => s.padStart(n);

/** Runs the comparison on the engines given; prints every figure side by side with its verdict. */
export async function benchEngines(engines: readonly Engine[]): Promise<void> {
  console.log('');
  console.log(`Moteurs côte à côte (${engines.map((e) => ENGINE_NAMES[e]).join(', ')}) — jeu de démonstration, ${CONNECTIONS} connexions`);
  const dir = mkdtempSync(join(tmpdir(), 'bench-engines-data-'));
  try {
    const demo = await writeDemoData({ scale: 'small', outDir: dir, today: new Date().toISOString().slice(0, 10), seed: 1 });
    const prepared: Prepared[] = [];
    const runs = new Map<Engine, EngineRun>();
    try {
      for (const engine of engines) {
        const p = await prepare(engine, demo).catch(async (err: unknown) => {
          for (const q of prepared) await q.target.remove();
          throw err;
        });
        prepared.push(p);
        runs.set(engine, { engine, figures: new Map(), imports: p.imports, robotSeconds: 0, sampleBody: p.sampleBody });
      }
      await measureAll(prepared, runs);
    } finally {
      for (const p of prepared) await p.stop();
    }
    // The robot's run on each engine (the services stopped: the run is the only writer).
    try {
      for (const p of prepared) {
        const robotDb = p.target.open();
        try {
          (runs.get(p.engine) as EngineRun).robotSeconds = (await benchRobot({ db: robotDb, label: `${p.name}, jeu de démonstration` })).seconds;
        } finally {
          await robotDb.destroy();
        }
      }
    } finally {
      for (const p of prepared) await p.target.remove();
    }
    // The yardstick, answering the same JSON bytes as the admitted call.
    const bare = await startProcess('scripts/bench/bare-server.ts', { BARE_BODY: prepared[0]?.sampleBody ?? '{}' });
    let bareFigures: Figures;
    try {
      bareFigures = await measure('node:http nu (même JSON)', { url: bare.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    } finally {
      await stopProcess(bare);
    }
    printComparison([...runs.values()], bareFigures);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function printComparison(runs: EngineRun[], bare: Figures): void {
  const sqlite = runs.find((r) => r.engine === 'sqlite');
  const pg = runs.find((r) => r.engine === 'postgres');
  console.log('');
  console.log(`${'Mesure (20 cx : appels/s, p99, CPU par appel)'.padEnd(46)} ${pad('SQLite', 28)} ${pad('PostgreSQL', 28)}   SQLite/PG (débit ; CPU)`);
  const cell = (f: (Figures & { cpuMs: number }) | undefined) =>
    f ? `${formatInt(f.rps)}/s ${f.p99} ms ${f.cpuMs.toFixed(2)} ms${f.errors + f.non2xx ? ` (${f.errors + f.non2xx} err. : ${f.failures})` : ''}` : '—';
  let failures = 0;
  for (const [key, label] of Object.entries(ROWS)) {
    const a = sqlite?.figures.get(key);
    const b = pg?.figures.get(key);
    let tail = '';
    if (a && b) {
      const ratio = a.rps / Math.max(b.rps, 0.001);
      const ok = ratio <= ENGINE_TARGETS.maxRatio && b.errors + b.non2xx === 0;
      if (!ok) failures++;
      tail = `   ${ratio.toFixed(2)}× ; ${(b.cpuMs / Math.max(a.cpuMs, 0.001)).toFixed(2)}× ${verdict(ok)}`;
    }
    console.log(`${label.padEnd(46)} ${pad(cell(a), 28)} ${pad(cell(b), 28)}${tail}`);
  }
  const sources = (sqlite ?? pg)?.imports.map((i) => i.source) ?? [];
  const rate = (run: EngineRun | undefined, source: string) => {
    const i = run?.imports.find((x) => x.source === source);
    return i ? i.rows / Math.max(i.seconds, 0.001) : null;
  };
  for (const source of sources) {
    const a = rate(sqlite, source);
    const b = rate(pg, source);
    const rows = (sqlite ?? pg)?.imports.find((i) => i.source === source)?.rows ?? 0;
    let tail = '';
    if (a !== null && b !== null) {
      const ratio = a / Math.max(b, 0.001);
      if (ratio > ENGINE_TARGETS.maxRatio) failures++;
      tail = `   ${ratio.toFixed(2)}× ${verdict(ratio <= ENGINE_TARGETS.maxRatio)}`;
    }
    console.log(`${`import ${source} (${formatInt(rows)} lignes), lignes/s`.padEnd(46)} ${pad(a === null ? '—' : formatInt(a), 20)} ${pad(b === null ? '—' : formatInt(b), 20)}${tail}`);
  }
  const robot = (run: EngineRun | undefined) => (run ? `${run.robotSeconds.toFixed(1)} s` : '—');
  let robotTail = '';
  if (sqlite && pg) {
    const ratio = pg.robotSeconds / Math.max(sqlite.robotSeconds, 0.001);
    if (ratio > ENGINE_TARGETS.maxRatio) failures++;
    robotTail = `   ${ratio.toFixed(2)}× ${verdict(ratio <= ENGINE_TARGETS.maxRatio)}`;
  }
  console.log(`${'robot des alertes (10 000 × 10 000), durée'.padEnd(46)} ${pad(robot(sqlite), 20)} ${pad(robot(pg), 20)}${robotTail}`);
  for (const run of runs) {
    const admitted = run.figures.get('admittedOne');
    const spread = run.figures.get('admittedSpread');
    for (const [label, f] of [
      ['1 compte', admitted],
      [`${SPREAD_ACCOUNTS} comptes`, spread],
    ] as const) {
      if (!f) continue;
      const share = f.rps / bare.rps;
      if (share < ENGINE_TARGETS.admittedShareOfBare) failures++;
      console.log(
        `Appel admis ${ENGINE_NAMES[run.engine]} (${label}) / node:http nu (${formatInt(bare.rps)}/s) : ${(share * 100).toFixed(1)} % (objectif ≥ ${ENGINE_TARGETS.admittedShareOfBare * 100} %) ${verdict(share >= ENGINE_TARGETS.admittedShareOfBare)}`,
      );
    }
  }
  const refused = runs.flatMap((r) => [...r.figures.values()]).reduce((n, f) => n + f.errors + f.non2xx, 0);
  console.log(refused ? `Attention : ${formatInt(refused)} appels en erreur (503 compris) pendant les mesures.` : 'Aucun appel en erreur pendant les mesures.');
  console.log(failures ? `${failures} objectif(s) de la comparaison non atteint(s).` : 'Tous les objectifs de la comparaison sont atteints.');
}
