// Helpers of the tests of several processes: the real entry of `npm start` (scripts/start.ts)
// in a child process with its environment (WORKERS, SERVICE_ROLES…), its JSON log lines kept,
// and accounts made through the data layer with a token from the real OAuth flow.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { createAccount, setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile } from '../../../src/import/run.js';
import type { Plan } from '../../../src/access/caller.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { hashPassword } from '../../../src/platform/passwords.js';
import { obtainToken } from '../../../scripts/lib/native-flow.js';

export interface ServiceProcess {
  child: ChildProcess;
  /** Its address (the public one when PUBLIC_URL is given), or null for a process without the api role. */
  url: string | null;
  /** Its own address, whatever PUBLIC_URL says. */
  ownUrl: string | null;
  /** Every line written so far, and the JSON log lines among them. */
  lines: string[];
  logs: () => Record<string, unknown>[];
  /** Resolves once a log line satisfies `match` (within `ms`). */
  waitForLog: (match: (line: Record<string, unknown>) => boolean, ms?: number) => Promise<Record<string, unknown>>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then SIGKILL past 40 s; resolves with the exit. */
  stop: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * `npm start`'s entry with `env` over the test's environment (LOG_LEVEL=info: the call lines
 * tell the processes apart by their pid); resolves once it prints its address and /readyz
 * answers 200, or, without the api role, once it says its background work started.
 */
export async function startServiceProcess(databaseUrl: string, env: Record<string, string>): Promise<ServiceProcess> {
  const port = env.PORT ?? String(await freePort());
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/start.ts'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env, PORT: port, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  const listeners = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
    for (const l of listeners) l();
  });
  child.stderr?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const logs = () =>
    lines.flatMap((l) => {
      if (!l.startsWith('{')) return [];
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  const waitFor = <T>(find: () => T | undefined, ms: number, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = () => {
        const found = find();
        if (found === undefined) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`${what} : rien après ${ms} ms\n${lines.slice(-20).join('\n')}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      void exited.then(() => {
        if (listeners.has(check)) {
          cleanup();
          reject(new Error(`${what} : processus arrêté\n${lines.slice(-20).join('\n')}`));
        }
      });
      check();
    });
  const ready = await waitFor(() => lines.map((l) => /^(Service à l'écoute : (\S+)|Travail de fond démarré)/.exec(l)).find((m) => m) ?? undefined, 180_000, 'démarrage').catch((err: Error) => {
    child.kill('SIGKILL');
    throw err;
  });
  // The address is printed as soon as the API listens; a first start's demo data comes after:
  // the process is started once /readyz says so.
  if (ready[2]) {
    const base = ready[2];
    const deadline = Date.now() + 180_000;
    for (;;) {
      const status = await fetch(`${base}/readyz`).then((r) => r.status, () => 0);
      if (status === 200) break;
      if (Date.now() > deadline || child.exitCode !== null) {
        child.kill('SIGKILL');
        throw new Error(`démarrage : /readyz pas prêt (${status})\n${lines.slice(-20).join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const stuck = setTimeout(() => child.kill('SIGKILL'), 40_000);
      const exit = await exited;
      clearTimeout(stuck);
      return exit;
    }
    return exited;
  };
  return {
    child,
    url: ready[2] ?? null,
    ownUrl: ready[2] ? `http://127.0.0.1:${port}` : null,
    lines,
    logs,
    waitForLog: (match, ms = 60_000) => waitFor(() => logs().find(match), ms, 'ligne de journal attendue'),
    exited,
    stop,
  };
}

/** The process ids that wrote a call line for `operation`. */
export function callPids(processes: readonly ServiceProcess[], operation?: string): Set<number> {
  return new Set(processes.flatMap((p) => p.logs().filter((l) => l.msg === 'appel' && (!operation || l.operation === operation)).map((l) => l.pid as number)));
}

export interface ProcessAccount {
  userId: string;
  organisation: string;
  token: string;
  /** The OAuth client the token was issued to (revocation names it). */
  clientId: string;
  email: string;
  password: string;
}

/** An account alone in a fresh organisation (subscribed with limits out of reach unless told), through the data layer; its token from `baseUrl`'s OAuth flow. */
export async function accountOn(
  databaseUrl: string,
  baseUrl: string,
  options: { plan?: Plan; limits?: { callsPerMinute?: number; callsPerDay?: number } } = {},
): Promise<ProcessAccount> {
  const db: Database = openDatabase(databaseUrl);
  const organisation = `Org processus ${randomBytes(4).toString('hex')}`;
  const email = `processus-${randomBytes(4).toString('hex')}@exemple.fr`;
  const password = `mot-de-passe-${randomBytes(4).toString('hex')}`;
  try {
    const record = await createAccount(db, { email, passwordHash: await hashPassword(password), organisation, role: 'admin', plan: options.plan ?? 'subscribed' }, new Date());
    // A free account keeps the free plan's ceilings unless told; others get limits no test reaches.
    if (options.limits || options.plan !== 'free') await setOrganisationPlan(db, organisation, options.limits ?? { callsPerMinute: 1_000_000, callsPerDay: 10_000_000 });
    const { accessToken, clientId } = await obtainToken({ baseUrl, email, password, scope: 'mcp:read mcp:write', clientName: 'Tests processus' });
    return { userId: record.userId, organisation, token: accessToken, clientId, email, password };
  } finally {
    await db.destroy();
  }
}

/** One company in a migrated database: `npm start` then skips the demo import (tens of seconds) before serving. */
export async function seedOneCompany(db: Database): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'une-entreprise-'));
  try {
    writeFileSync(
      join(dir, 'ul.csv'),
      'siren,dateCreationUniteLegale,dateDernierTraitementUniteLegale,etatAdministratifUniteLegale,denominationUniteLegale,categorieJuridiqueUniteLegale,activitePrincipaleUniteLegale,nicSiegeUniteLegale\n732829320,2015-03-02,2026-01-10,A,Charpentes du Léon,5499,43.91B,00018\n',
    );
    await importFile(db, IMPORTERS['sirene-unites'] as never, join(dir, 'ul.csv'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
