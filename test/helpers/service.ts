// Starts the real service on a free port over a fresh database: SQLite by default, the
// PostgreSQL of TEST_DATABASE_URL (in a schema of its own) when TEST_DB=postgres.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { DEFAULT_LIMITS, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/data/database.js';
import type { Logger } from '../../src/log.js';
import type { Registry } from '../../src/registry.js';
import { startService, type RunningService } from '../../src/server.js';

export const usingPostgres = process.env.TEST_DB === 'postgres';

export interface TestService extends RunningService {
  close: () => Promise<void>;
}

export interface TestDatabaseUrl {
  databaseUrl: string;
  searchPath?: string;
  cleanup: () => Promise<void>;
}

/** A fresh, empty database for one test service. */
export function freshDatabase(): TestDatabaseUrl {
  if (usingPostgres) {
    const url = process.env.TEST_DATABASE_URL;
    if (!url) throw new Error('TEST_DB=postgres exige TEST_DATABASE_URL');
    const schema = `t_${randomBytes(6).toString('hex')}`;
    return {
      databaseUrl: url,
      searchPath: schema,
      cleanup: async () => {
        const db = openDatabase(url);
        await db.raw('drop schema if exists ?? cascade', [schema]);
        await db.destroy();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  return { databaseUrl: `sqlite:${join(dir, 'service.sqlite')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

export function testConfig(databaseUrl: string, overrides: Partial<Config['limits']> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    publicUrl: 'http://127.0.0.1:0',
    databaseUrl,
    allowedOrigins: [],
    logLevel: 'silent',
    limits: { ...DEFAULT_LIMITS, ...overrides },
  };
}

export async function startTestService(
  options: { limits?: Partial<Config['limits']>; logger?: Logger; wrapRegistry?: (r: Registry) => Registry } = {},
): Promise<TestService> {
  const database = freshDatabase();
  const service = await startService(testConfig(database.databaseUrl, options.limits), {
    searchPath: database.searchPath,
    logger: options.logger ?? pino({ level: 'silent' }),
    wrapRegistry: options.wrapRegistry,
  });
  return {
    ...service,
    close: async () => {
      await service.stop();
      await database.cleanup();
    },
  };
}

/** POST a JSON body to a REST operation. */
export async function rest(base: string, operation: string, body: unknown, init: RequestInit = {}): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${base}/api/mcp/v1/${operation}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
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
