// Starts the real service on a free port over a fresh database: SQLite by default, the
// PostgreSQL of TEST_DATABASE_URL (in a schema of its own) when TEST_DB=postgres.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { DEFAULT_LIMITS, DEFAULT_MAIL_TIMING, SERVICE_ROLES, loadConfig, type Config } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { migrateLatest } from '../../src/migrations/index.js';
import { hashPassword } from '../../src/platform/passwords.js';
import { createAccount, setOrganisationPlan } from '../../src/auth/store/accounts.js';
import type { Plan, Role } from '../../src/access/caller.js';
import type { Logger } from '../../src/log.js';
import { obtainToken } from '../../scripts/lib/native-flow.js';
import type { Registry } from '../../src/domains/index.js';
import { startService, type RunningService } from '../../src/server.js';

export const usingPostgres = process.env.TEST_DB === 'postgres';

export interface TestAccount {
  email: string;
  password: string;
  userId: string;
  organisationId: string | null;
}

export interface TestService extends RunningService {
  close: () => Promise<void>;
  /** Token of the default account (organisation « Organisation test », admin, subscribed, limits out of reach; mcp:read mcp:write). */
  token: string;
  account: TestAccount;
  /** Creates an account through the data layer (as the account:create CLI does). */
  createAccount: (options?: { organisation?: string | null; role?: Role; plan?: Plan }) => Promise<TestAccount>;
  /** A token through the real OAuth flow (registration, PKCE, login and consent forms). */
  tokenFor: (account: TestAccount, scope?: string) => Promise<string>;
  /** POST (or GET for `me`) to a REST operation with the default token, unless `token` says otherwise (null: none). */
  rest: (operation: string, body: unknown, options?: { token?: string | null; init?: RequestInit }) => Promise<RestAnswer>;
}

export interface TestDatabaseUrl {
  /** Usable as DATABASE_URL by this process and by child processes alike. */
  databaseUrl: string;
  searchPath?: string;
  /** Creates the PostgreSQL schema (a no-op on SQLite); call before a child process uses the URL. */
  prepare: () => Promise<void>;
  cleanup: () => Promise<void>;
}

/** A fresh, empty database for one test service: a temporary SQLite file, or a PostgreSQL schema of its own. */
/** A logger at level info whose JSON lines are kept, parsed, in `lines` (tests of the access log). */
export function collectingLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines };
}

export function freshDatabase(): TestDatabaseUrl {
  if (usingPostgres) {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DB=postgres exige TEST_DATABASE_URL');
    const schema = `t_${randomBytes(6).toString('hex')}`;
    // The schema travels in the URL, so a child process (CLI, npm start) works in it too.
    const databaseUrl = `${url}${url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    return {
      databaseUrl,
      searchPath: schema,
      prepare: async () => {
        const db = openDatabase(url);
        await db.raw('create schema if not exists ??', [schema]);
        await db.destroy();
      },
      cleanup: async () => {
        const db = openDatabase(url);
        await db.raw('drop schema if exists ?? cascade', [schema]);
        await db.destroy();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  return { databaseUrl: `sqlite:${join(dir, 'service.sqlite')}`, prepare: async () => undefined, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

export interface MigratedDatabase {
  db: Database;
  /** For a second connection to the same database. */
  databaseUrl: string;
  /** Closes the connection and removes the database. */
  close: () => Promise<void>;
}

/** A fresh database with every migration applied, open: the set-up of a test file of the data layer. */
export async function openMigratedDatabase(): Promise<MigratedDatabase> {
  const database = freshDatabase();
  await database.prepare();
  const db = openDatabase(database.databaseUrl);
  await migrateLatest(db);
  return {
    db,
    databaseUrl: database.databaseUrl,
    close: async () => {
      await db.destroy();
      await database.cleanup();
    },
  };
}

export function testConfig(databaseUrl: string, overrides: Partial<Config['limits']> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:0',
    databaseUrl,
    allowedOrigins: [],
    logLevel: 'silent',
    accessTokenTtlSeconds: 3600,
    refreshTokenTtlSeconds: 30 * 24 * 3600,
    dceStoreUrl: undefined,
    // Each test service keeps its pieces in a folder of its own.
    dceStoreDir: join(tmpdir(), `dce-objects-${randomBytes(6).toString('hex')}`),
    // Test services do not tick: the robot's tests run it on a fixed clock.
    robot: false,
    // Nor sweep: their clocks are not the wall clock (the sweep has tests of its own).
    expiredRowsSweep: false,
    // No SMTP server: sends stay in the outbox and no delivery worker runs (the e-mail tests give one).
    smtpUrl: undefined,
    mailFrom: 'ne-pas-repondre@service.test',
    mailTiming: { ...DEFAULT_MAIL_TIMING },
    legal: { ...loadConfig({}).legal, operator: 'Exploitant de test SAS', supportEmail: 'support@service.test' },
    sync: { enabled: false, sources: null, settings: {}, leaseMs: 120_000 },
    // Tests never reach real DNS: an empty zone unless a test gives its own.
    emailDnsResolver: {
      resolveTxt: async () => Promise.reject(Object.assign(new Error('absent'), { code: 'ENOTFOUND' })),
      resolveCname: async () => Promise.reject(Object.assign(new Error('absent'), { code: 'ENOTFOUND' })),
    },
    // One process, every role (each background role still off by its own setting above).
    workers: 1,
    sqliteReadThreads: 2,
    pgParallelWorkers: 0,
    roles: [...SERVICE_ROLES],
    metricsToken: undefined,
    limits: { ...DEFAULT_LIMITS, ...overrides },
  };
}

export async function startTestService(
  options: {
    limits?: Partial<Config['limits']>;
    logger?: Logger;
    wrapRegistry?: (r: Registry) => Registry;
    /** Other settings (allowedOrigins, accessTokenTtlSeconds…). */
    config?: Partial<Omit<Config, 'limits'>>;
    /** Reuse a database (several services on one database, or a restart); default: a fresh one. */
    database?: TestDatabaseUrl;
    /** A step still under way at start: /readyz answers 503 until `readiness.done()`. */
    preparing?: string;
  } = {},
): Promise<TestService> {
  const database = options.database ?? freshDatabase();
  const service = await startService({ ...testConfig(database.databaseUrl, options.limits), ...options.config }, {
    searchPath: database.searchPath,
    logger: options.logger ?? pino({ level: 'silent' }),
    wrapRegistry: options.wrapRegistry,
    preparing: options.preparing,
  });
  let counter = 0;
  const createTestAccount: TestService['createAccount'] = async (o = {}) => {
    counter += 1;
    const email = `compte${counter}-${randomBytes(3).toString('hex')}@exemple.fr`;
    const password = `mot-de-passe-${counter}`;
    const organisation = o.organisation === undefined ? 'Organisation test' : o.organisation;
    const record = await createAccount(
      service.db,
      { email, passwordHash: await hashPassword(password), organisation: organisation ?? undefined, role: o.role, plan: o.plan ?? 'subscribed' },
      new Date(),
    );
    return { email, password, userId: record.userId, organisationId: record.organisationId };
  };
  const tokenFor: TestService['tokenFor'] = async (account, scope = 'mcp:read mcp:write') =>
    (await obtainToken({ baseUrl: service.url, email: account.email, password: account.password, scope: scope || undefined, clientName: 'Tests' })).accessToken;
  const account = await createTestAccount();
  // The shared test organisation has a negotiated contract with limits no test reaches;
  // quota tests use organisations of their own.
  await setOrganisationPlan(service.db, 'Organisation test', { callsPerMinute: 1_000_000, callsPerDay: 10_000_000, filesPerDay: 100_000 });
  const token = await tokenFor(account);
  return {
    ...service,
    token,
    account,
    createAccount: createTestAccount,
    tokenFor,
    rest: (operation, body, o = {}) => {
      const bearer = o.token === undefined ? token : o.token;
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) };
      return rest(service.url, operation, body, { ...o.init, headers: { ...headers, ...(o.init?.headers as Record<string, string> | undefined) } });
    },
    close: async () => {
      await service.stop();
      if (!options.database) await database.cleanup();
    },
  };
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  json: any;
}

/** POST a JSON body to a REST operation (GET, without body, for `me`). */
export async function rest(base: string, operation: string, body: unknown, init: RequestInit = {}): Promise<RestAnswer> {
  const get = operation === 'me' && init.method === undefined;
  const res = await fetch(`${base}/api/mcp/v1/${operation}`, {
    method: get ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    ...(get ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    ...init,
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}
