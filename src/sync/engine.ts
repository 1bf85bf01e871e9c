// Runs one synchronisation of one source: claim the source's lease (one run per source across
// every process on the database), read its cursor, then for each page of what is new: map
// the records through the source's importer and write them, the cursor and the run's counts
// in one transaction. A run killed anywhere resumes from the last page written, duplicating
// nothing (importers upsert by the record's key) and losing nothing (the cursor never passes
// rows not written).
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { lockForWrite, retryWhileBusy } from '../platform/db/busy.js';
import type { Database } from '../platform/db/database.js';
import { makeRoomForWriters } from '../platform/db/writer-queue.js';
import { MAX_PROBLEMS_KEPT } from '../import/batches.js';
import type { WriteCounts } from '../import/importer.js';
import type { Connector, SyncContext, SyncPage } from './connector.js';
import { SyncHttp, SyncHttpError, type HttpTiming } from './http.js';

/** A random id per process: a lease is the process', not the source's. */
export const SYNC_PROCESS_OWNER = `${process.pid}-${randomUUID()}`;

/** How long a claim holds without renewal; renewed at every page and during long fetches. */
export const DEFAULT_SYNC_LEASE_MS = 2 * 60_000;

/** The lease is renewed at most this often between pages (every page renews it too). */
const HEARTBEAT_MS = 15_000;

/** How long a write waits for SQLite's lock held by another process (an import), off the loop. */
const WRITE_BUSY_BUDGET_MS = 120_000;

/** Settings of the synchronisation: publishers' addresses and credentials, by environment name. */
export type SyncSettings = Record<string, string | undefined>;

export interface SyncDeps {
  db: Database;
  settings: SyncSettings;
  now?: () => Date;
  owner?: string;
  leaseMs?: number;
  timing?: Partial<HttpTiming>;
  sleep?: (ms: number) => Promise<void>;
  /** Tests only: called at named points of a page's write, to crash there. */
  faultPoint?: (point: 'before-write' | 'after-write' | 'after-commit', pageIndex: number) => void;
}

export interface SyncRequest {
  since?: string | null;
  until?: string | null;
}

export interface SyncSummary {
  source: string;
  pages: number;
  read: number;
  added: number;
  updated: number;
  /** Rows not written because the stored version is newer. */
  kept: number;
  skipped: number;
  problems: { position: number; reason: string }[];
  notes: Record<string, number>;
  requests: number;
  seconds: number;
}

export type SyncOutcome =
  | ({ status: 'done' } & SyncSummary)
  | { status: 'disabled'; source: string; reason: string }
  | { status: 'held'; source: string }
  | ({ status: 'failed'; reason: string; retryAt: string | null } & SyncSummary);

/** The lease passed to another process while this one wrote: it must stop. */
class LeaseLost extends Error {
  constructor() {
    super('bail de synchronisation repris par un autre processus');
  }
}

/** Why the source cannot run with these settings, or null. */
export function missingSettings(connector: Connector, settings: SyncSettings): string | null {
  const missing = (connector.credentials ?? []).filter((name) => !settings[name]?.trim());
  return missing.length ? `identifiants absents : ${missing.join(', ')}` : null;
}

/** The publisher's address: the setting, else the real one. */
export function baseUrlOf(connector: Connector, settings: SyncSettings): string {
  return (settings[connector.baseUrl.setting]?.trim() || connector.baseUrl.default).replace(/\/+$/, '');
}

async function claim(db: Database, source: string, owner: string, now: Date, leaseMs: number): Promise<{ cursor: unknown } | null> {
  const at = now.toISOString();
  return db.transaction(async (trx) => {
    await lockForWrite(trx);
    await trx('sync_state').insert({ source }).onConflict('source').ignore();
    const taken = await trx('sync_state')
      .where('source', source)
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', at).orWhere('owner', owner))
      .update({ owner, lease_until: new Date(now.getTime() + leaseMs).toISOString(), run_started_at: at, run_read: 0, run_added: 0, run_updated: 0, run_skipped: 0 });
    if (!taken) return null;
    const row = (await trx('sync_state').where('source', source).first('cursor')) as { cursor: string | null };
    return { cursor: row.cursor === null ? null : (JSON.parse(row.cursor) as unknown) };
  });
}

/** Renews the lease in `trx`; throws LeaseLost when it is no longer this process'. */
async function renew(trx: Knex | Knex.Transaction, source: string, owner: string, now: Date, leaseMs: number): Promise<void> {
  const held = await trx('sync_state')
    .where({ source, owner })
    .andWhere('lease_until', '>=', now.toISOString())
    .update({ lease_until: new Date(now.getTime() + leaseMs).toISOString() });
  if (held !== 1) throw new LeaseLost();
}

async function release(db: Database, source: string, owner: string, now: Date, result: { ok: true } | { ok: false; reason: string }): Promise<void> {
  const at = now.toISOString();
  await retryWhileBusy(
    () =>
      db('sync_state')
        .where({ source, owner })
        .update(result.ok ? { lease_until: null, owner: null, last_success_at: at } : { lease_until: null, owner: null, last_failure_at: at, last_failure_reason: result.reason.slice(0, 500) }),
    WRITE_BUSY_BUDGET_MS,
  );
}

/** A failure's reason for the state and the summaries: the publisher's answer, never SQL or a stack. */
function failureReason(err: unknown): string {
  if (err instanceof SyncHttpError || err instanceof LeaseLost) return err.message;
  const code = (err as { code?: unknown } | null)?.code;
  if (err instanceof Error && typeof code !== 'string') return err.message.slice(0, 300);
  return `erreur de la base de données (${typeof code === 'string' ? code : 'inconnue'}) : les pages déjà écrites sont gardées, la prochaine synchronisation reprend sans doublon`;
}

export async function runSync(deps: SyncDeps, connector: Connector, request: SyncRequest = {}): Promise<SyncOutcome> {
  const { db, settings } = deps;
  const now = deps.now ?? (() => new Date());
  const owner = deps.owner ?? SYNC_PROCESS_OWNER;
  const leaseMs = deps.leaseMs ?? DEFAULT_SYNC_LEASE_MS;
  const disabled = missingSettings(connector, settings);
  if (disabled) return { status: 'disabled', source: connector.name, reason: disabled };
  const started = Date.now();
  const claimed = await retryWhileBusy(() => claim(db, connector.name, owner, now(), leaseMs), WRITE_BUSY_BUDGET_MS);
  if (!claimed) return { status: 'held', source: connector.name };
  const summary: SyncSummary = { source: connector.name, pages: 0, read: 0, added: 0, updated: 0, kept: 0, skipped: 0, problems: [], notes: {}, requests: 0, seconds: 0 };
  let lastBeat = Date.now();
  const heartbeat = async () => {
    if (Date.now() - lastBeat < HEARTBEAT_MS) return;
    lastBeat = Date.now();
    await retryWhileBusy(() => renew(db, connector.name, owner, now(), leaseMs), WRITE_BUSY_BUDGET_MS);
  };
  const http = new SyncHttp({ timing: deps.timing, budget: connector.budget, beforeRequest: heartbeat, sleep: deps.sleep });
  const since = request.since ?? null;
  const ctx: SyncContext = {
    http,
    baseUrl: baseUrlOf(connector, settings),
    setting: (name) => settings[name]?.trim() || undefined,
    cursor: claimed.cursor,
    since,
    until: request.until ?? null,
    now,
    heartbeat,
  };
  const defaultImporter = Object.keys(connector.importers)[0] as string;
  try {
    for await (const page of connector.pages(ctx)) {
      await writePage(deps, connector, owner, leaseMs, now, page, summary, defaultImporter);
      // Writers waiting for the lock (an account created meanwhile) take it between two pages.
      await makeRoomForWriters(deps.db);
      deps.faultPoint?.('after-commit', summary.pages);
      summary.pages += 1;
      lastBeat = Date.now();
    }
  } catch (err) {
    summary.requests = http.requests;
    summary.seconds = (Date.now() - started) / 1000;
    const reason = failureReason(err);
    // A lost lease is another process' run now: its state is not this one's to write.
    if (!(err instanceof LeaseLost)) await release(db, connector.name, owner, now(), { ok: false, reason });
    return { status: 'failed', reason, retryAt: err instanceof SyncHttpError && err.retryAt ? err.retryAt.toISOString() : null, ...summary };
  }
  summary.requests = http.requests;
  summary.seconds = (Date.now() - started) / 1000;
  await release(db, connector.name, owner, now(), { ok: true });
  return { status: 'done', ...summary };
}

/** Maps a page's records and writes them with the cursor and the counts, in one transaction. */
async function writePage(deps: SyncDeps, connector: Connector, owner: string, leaseMs: number, now: () => Date, page: SyncPage, summary: SyncSummary, defaultImporter: string): Promise<void> {
  const importer = connector.importers[page.importer ?? defaultImporter];
  // A page without records (a day with none, the end of a pass) only moves the cursor.
  if (!importer && page.records.length) throw new Error(`connecteur ${connector.name} : importateur ${page.importer ?? defaultImporter} inconnu`);
  const stamp = page.stamp ?? now().toISOString();
  const rows: never[] = [];
  const problems = [...(page.problems ?? [])];
  const notes: Record<string, number> = {};
  page.records.forEach((raw, i) => {
    const mapped = (importer as NonNullable<typeof importer>).map(raw as never, stamp);
    if ('skip' in mapped) problems.push({ position: summary.read + i + 1, reason: mapped.skip });
    else {
      rows.push(mapped.row);
      for (const note of mapped.notes ?? []) notes[note] = (notes[note] ?? 0) + 1;
    }
  });
  const read = page.records.length + (page.problems?.length ?? 0);
  const skipped = problems.length;
  const counts: WriteCounts = await retryWhileBusy(
    () =>
      deps.db.transaction(async (trx) => {
        await lockForWrite(trx);
        await renew(trx, connector.name, owner, now(), leaseMs);
        deps.faultPoint?.('before-write', summary.pages);
        await page.before?.(trx, stamp);
        const written = importer && rows.length ? await importer.write(trx, rows, stamp) : { inserted: 0, updated: 0, kept: 0 };
        await page.after?.(trx, stamp);
        deps.faultPoint?.('after-write', summary.pages);
        await trx('sync_state')
          .where({ source: connector.name, owner })
          .update({
            cursor: JSON.stringify(page.cursor),
            run_read: trx.raw('run_read + ?', [read]),
            run_added: trx.raw('run_added + ?', [written.inserted]),
            run_updated: trx.raw('run_updated + ?', [written.updated]),
            run_skipped: trx.raw('run_skipped + ?', [skipped]),
            total_read: trx.raw('total_read + ?', [read]),
            total_added: trx.raw('total_added + ?', [written.inserted]),
            total_updated: trx.raw('total_updated + ?', [written.updated]),
          });
        return written;
      }),
    WRITE_BUSY_BUDGET_MS,
  );
  summary.read += read;
  summary.added += counts.inserted;
  summary.updated += counts.updated;
  summary.kept += counts.kept;
  summary.skipped += skipped;
  for (const p of problems) if (summary.problems.length < MAX_PROBLEMS_KEPT) summary.problems.push(p);
  for (const [note, n] of [...Object.entries(notes), ...Object.entries(counts.notes ?? {})]) summary.notes[note] = (summary.notes[note] ?? 0) + n;
}
