// Configuration from the environment (DESIGN.md's table), read once at start.
import { dirname, join } from 'node:path';
import type { ClientMetadataTestTrust } from './auth/client-metadata-documents.js';

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  databaseUrl: string;
  allowedOrigins: string[];
  logLevel: string;
  /** Lifetimes of OAuth access and refresh tokens, in seconds. */
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Where consultation files' pieces are kept: `s3://bucket/prefix`, else `dceStoreDir`. */
  dceStoreUrl: string | undefined;
  /** The folder of the pieces by default: `dce-objects` beside the SQLite database, or under ./data. */
  dceStoreDir: string;
  /** Tests only (never read from the environment): trust a local HTTPS server's certificate for client metadata documents. */
  clientMetadataTestTrust?: ClientMetadataTestTrust;
  /** The alert robot runs inside the service (`ROBOT=off` turns it off: tests, a second process that must not tick). */
  robot: boolean;
  /** Spec limits; lowered only by tests to exercise them quickly. */
  limits: { bodyBytes: number; bodyTimeoutMs: number; operationTimeoutMs: number; headersTimeoutMs: number };
}

export const DEFAULT_LIMITS = { bodyBytes: 3 * 1024 * 1024, bodyTimeoutMs: 30_000, operationTimeoutMs: 35_000, headersTimeoutMs: 10_000 };

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} invalide : ${value}`);
  return n;
}

function defaultStoreDir(databaseUrl: string): string {
  const sqlite = /^sqlite:(.+)$/.exec(databaseUrl)?.[1];
  return sqlite && sqlite !== ':memory:' ? join(dirname(sqlite), 'dce-objects') : join('data', 'dce-objects');
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT invalide : ${env.PORT}`);
  const host = env.HOST ?? '127.0.0.1';
  return {
    port,
    host,
    publicUrl: (env.PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, ''),
    databaseUrl: env.DATABASE_URL ?? 'sqlite:./data/service.sqlite',
    allowedOrigins: (env.ALLOWED_ORIGINS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    logLevel: env.LOG_LEVEL ?? 'info',
    accessTokenTtlSeconds: positiveInteger(env.ACCESS_TOKEN_TTL, 3600, 'ACCESS_TOKEN_TTL'),
    refreshTokenTtlSeconds: positiveInteger(env.REFRESH_TOKEN_TTL, 30 * 24 * 3600, 'REFRESH_TOKEN_TTL'),
    dceStoreUrl: env.DCE_STORE_URL || undefined,
    dceStoreDir: defaultStoreDir(env.DATABASE_URL ?? 'sqlite:./data/service.sqlite'),
    robot: !['off', '0', 'false', 'non'].includes((env.ROBOT ?? 'on').trim().toLowerCase()),
    limits: { ...DEFAULT_LIMITS },
  };
}
