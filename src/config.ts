// Configuration from the environment (DESIGN.md's table), read once at start.
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import type { ClientMetadataTestTrust } from './auth/client-metadata-documents.js';
import type { DnsResolver } from './domains/emails/dns-check.js';
import type { HttpTiming } from './sync/http.js';

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
  /**
   * The hourly sweep of expired sign-in and OAuth rows (tokens, codes, sessions, old sign-in
   * failures); `EXPIRED_ROWS_SWEEP=off` turns it off (tests, whose clocks are not the wall clock).
   */
  expiredRowsSweep: boolean;
  /**
   * E-mail sends: the SMTP server (`SMTP_URL`, e.g. `smtps://user:pass@smtp.example:465`);
   * without it messages stay in the outbox and no delivery worker runs.
   */
  smtpUrl: string | undefined;
  /** The service's own sender address (`MAIL_FROM`): From of every message without a verified domain of the organisation. */
  mailFrom: string;
  /** Delivery worker's timing; lowered only by tests. */
  mailTiming: MailTiming;
  /** Tests only (never read from the environment): the DNS answers of sending-domain checks. */
  emailDnsResolver?: DnsResolver;
  /** The operator's details shown on the legal pages (privacy, terms, legal notice, support). */
  legal: LegalSettings;
  /**
   * Synchronisation with the publishers: `SYNC=on` runs it in the service (off by default: a
   * machine without network keeps working on its imports); `SYNC_SOURCES` chooses sources
   * (default: every source whose credentials are present); `settings` holds the publishers'
   * addresses (`BOAMP_API_URL`…) and credentials (`INSEE_API_KEY`, `INPI_USERNAME`, `INPI_PASSWORD`).
   */
  sync: {
    enabled: boolean;
    sources: string[] | null;
    settings: Record<string, string | undefined>;
    leaseMs: number;
    /** Tests only (never read from the environment): shorter HTTP timeouts and pauses. */
    timing?: Partial<HttpTiming>;
  };
  /**
   * `WORKERS`: processes serving the API on one port (default: the machine's cores). One
   * process runs everything itself; past one, a primary process does the start's one-time
   * work, forks the API workers and runs the background roles itself.
   */
  workers: number;
  /**
   * `SQLITE_READ_THREADS`: on SQLite, threads per API process reading the statements of the
   * searches the result cache cannot answer and of the market analyses, off the event loop
   * (0: on it). Default: 3 for a lone API process (`WORKERS=1`), none with several (each has
   * a core already; measured on 2 cores with two processes, the threads' separate page
   * caches cost more than they gave). Three rather than two since the index's ranking of
   * broad words (100 to 250 ms) runs there too, not on the process's connection: a third
   * thread keeps the other questions from waiting behind two of them.
   */
  sqliteReadThreads: number;
  /**
   * `PG_PARALLEL_WORKERS`: on PostgreSQL, the most workers the server may add to one
   * statement of an API call (`max_parallel_workers_per_gather` of the API's connections).
   * Default 0: under many callers every core is busy already, and a parallel plan costs its
   * workers' start and gathering (measured on 2 cores, 20 connections, the searches the cache
   * cannot answer: a lower p99 without them). Background work keeps the server's setting.
   */
  pgParallelWorkers: number;
  /** `SERVICE_ROLES`: what this process (or this machine's primary and workers) runs; every role by default. */
  roles: readonly ServiceRole[];
  /** `METRICS_TOKEN`: the bearer token `/metrics` asks for; without it `/metrics` answers 404. */
  metricsToken: string | undefined;
  /** Spec limits; lowered only by tests to exercise them quickly. */
  limits: { bodyBytes: number; bodyTimeoutMs: number; operationTimeoutMs: number; headersTimeoutMs: number };
}

/**
 * What a process runs: the API (HTTP workers), the alert robot, the synchronisation, the
 * e-mail delivery, the sweeps of expired rows. Every background role holds across processes
 * through the database (leases, conditional claims), so running one on several machines is
 * safe, but once per machine is enough.
 */
export const SERVICE_ROLES = ['api', 'robot', 'sync', 'email', 'sweep'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

/** `SERVICE_ROLES`: a comma-separated list of roles; an unknown name or an empty list is refused at start. */
export function serviceRoles(value: string | undefined): ServiceRole[] {
  if (value === undefined || value.trim() === '') return [...SERVICE_ROLES];
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((name) => !(SERVICE_ROLES as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`SERVICE_ROLES : rôle inconnu ${unknown.join(', ')} (rôles : ${SERVICE_ROLES.join(', ')})`);
  if (!names.length) throw new Error(`SERVICE_ROLES : aucun rôle (rôles : ${SERVICE_ROLES.join(', ')})`);
  return SERVICE_ROLES.filter((role) => names.includes(role));
}

export interface LegalSettings {
  /** `SERVICE_NAME`: the service's name in pages and as the display name of account e-mails. */
  serviceName: string;
  /** `LEGAL_OPERATOR`: the operator's name and legal form (« Exemple SAS, capital 10 000 € »). */
  operator: string;
  /** `LEGAL_ADDRESS`: the operator's registered office. */
  address: string;
  /** `LEGAL_REGISTRATION`: RCS and SIREN, VAT number. */
  registration: string;
  /** `LEGAL_DIRECTOR`: the publication director. */
  director: string;
  /** `LEGAL_HOST`: the host's name, address and telephone (LCEN art. 6). */
  host: string;
  /** `SUPPORT_EMAIL`: where people write for help. */
  supportEmail: string;
  /** `PRIVACY_EMAIL`: where people exercise their rights (the DPO, when there is one). */
  privacyEmail: string;
  /** `PROCESSORS`: the processors, separated by « ; » (« Hébergeur X — hébergement — France »). */
  processors: string[];
}

const TO_CONFIGURE = '(à renseigner par l’exploitant)';

function legalSettings(env: NodeJS.ProcessEnv, mailFromAddress: string): LegalSettings {
  const text = (name: string, fallback = TO_CONFIGURE) => env[name]?.trim() || fallback;
  return {
    serviceName: text('SERVICE_NAME', 'Données marchés publics et bâtiment'),
    operator: text('LEGAL_OPERATOR'),
    address: text('LEGAL_ADDRESS'),
    registration: text('LEGAL_REGISTRATION'),
    director: text('LEGAL_DIRECTOR'),
    host: text('LEGAL_HOST'),
    supportEmail: text('SUPPORT_EMAIL', mailFromAddress),
    privacyEmail: text('PRIVACY_EMAIL', text('SUPPORT_EMAIL', mailFromAddress)),
    processors: (env.PROCESSORS ?? '').split(';').map((p) => p.trim()).filter(Boolean),
  };
}

export interface MailTiming {
  /** How often the worker looks for messages due. */
  tickMs: number;
  /** First retry delay; doubled at each failed attempt. */
  retryBaseMs: number;
  /** A claimed message is the claimant's this long (past every SMTP timeout), then anyone's again. */
  leaseMs: number;
}

export const DEFAULT_MAIL_TIMING: MailTiming = { tickMs: 2000, retryBaseMs: 60_000, leaseMs: 120_000 };

export const DEFAULT_LIMITS = { bodyBytes: 3 * 1024 * 1024, bodyTimeoutMs: 30_000, operationTimeoutMs: 35_000, headersTimeoutMs: 10_000 };

function positiveInteger(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} invalide : ${value}`);
  return n;
}

/** A bare address (no display name: the organisation's name is put there per message). */
function mailFrom(value: string | undefined): string {
  const address = value?.trim() || 'ne-pas-repondre@localhost';
  if (!/^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{1,253}$/.test(address)) throw new Error(`MAIL_FROM invalide : une adresse nue est attendue (${address})`);
  return address;
}

function defaultStoreDir(databaseUrl: string): string {
  const sqlite = /^sqlite:(.+)$/.exec(databaseUrl)?.[1];
  return sqlite && sqlite !== ':memory:' ? join(dirname(sqlite), 'dce-objects') : join('data', 'dce-objects');
}

/** The environment names the synchronisation reads: the publishers' addresses and credentials. */
export const SYNC_SETTING_NAMES = [
  'BOAMP_API_URL',
  'BODACC_API_URL',
  'DECP_API_URL',
  'SIRENE_API_URL',
  'SIRENE_STOCK_URL',
  'RGE_API_URL',
  'RNE_API_URL',
  'RATIOS_API_URL',
  'DVF_FILES_URL',
  'SITADEL_API_URL',
  'INSEE_API_KEY',
  'INPI_USERNAME',
  'INPI_PASSWORD',
] as const;

function syncConfig(env: NodeJS.ProcessEnv): Config['sync'] {
  const sources = (env.SYNC_SOURCES ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return {
    enabled: ['on', '1', 'true', 'oui'].includes((env.SYNC ?? 'off').trim().toLowerCase()),
    sources: sources.length ? sources : null,
    settings: Object.fromEntries(SYNC_SETTING_NAMES.map((name) => [name, env[name]?.trim() || undefined])),
    leaseMs: positiveInteger(env.SYNC_LEASE_SECONDS, 120, 'SYNC_LEASE_SECONDS') * 1000,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT invalide : ${env.PORT}`);
  const host = env.HOST ?? '127.0.0.1';
  const workers = positiveInteger(env.WORKERS, availableParallelism(), 'WORKERS');
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
    expiredRowsSweep: !['off', '0', 'false', 'non'].includes((env.EXPIRED_ROWS_SWEEP ?? 'on').trim().toLowerCase()),
    smtpUrl: env.SMTP_URL?.trim() || undefined,
    mailFrom: mailFrom(env.MAIL_FROM),
    legal: legalSettings(env, mailFrom(env.MAIL_FROM)),
    mailTiming: { ...DEFAULT_MAIL_TIMING },
    sync: syncConfig(env),
    workers,
    sqliteReadThreads: env.SQLITE_READ_THREADS === '0' ? 0 : positiveInteger(env.SQLITE_READ_THREADS, workers === 1 ? 3 : 0, 'SQLITE_READ_THREADS'),
    pgParallelWorkers: env.PG_PARALLEL_WORKERS === '0' ? 0 : positiveInteger(env.PG_PARALLEL_WORKERS, 0, 'PG_PARALLEL_WORKERS'),
    roles: serviceRoles(env.SERVICE_ROLES),
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    limits: { ...DEFAULT_LIMITS },
  };
}
