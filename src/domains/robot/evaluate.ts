// The evaluation of the alerts due in a slot. Each source's new documents are read once for
// all the alerts (one window: from the oldest due alert's last window end to the run's upper
// bound), matched in memory (the percolator), then each alert's events and its progress are
// written in one transaction: a run that dies leaves every alert either done (its events and
// its progress) or untouched, and a replay writes no duplicate (the events' unique key).
import { randomUUID } from 'node:crypto';
import type { Database } from '../../platform/db/database.js';
import { retryWhileBusy } from '../../platform/db/busy.js';
import { parseQuery, type ParsedQuery } from '../../platform/search/query-syntax.js';
import { appendEvents, type EventKind, type EventRecord, type NewEvent } from '../events/store.js';
import { noticesByIds } from '../notices/store.js';
import { noticeRecord } from '../notices/actions.js';
import { Percolator } from './percolator.js';
import { robotSlotOf } from './schedule.js';
import { renewLease, type SlotClaim } from './slot-lease.js';
import { SOURCE_READERS, type NewDocument, type SourceReader } from './sources.js';

const HOUR_MS = 3_600_000;

/**
 * The window's upper bound is the run's time minus this margin. An import stamps its rows'
 * `ingested_at` when it starts and commits them batch by batch: a row stamped before the run
 * may become visible after it. With the margin, a row is looked for only once every import
 * that started more than an hour before has had that hour to commit it (the large demo
 * set's longest import takes under a minute). The price: a document is reported one run
 * later when it entered in the last hour before a run.
 */
export const WINDOW_MARGIN_MS = HOUR_MS;

/** The D-7 reminder: a reported notice whose deadline is at most this far ahead. */
export const REMINDER_DAYS = 7;

/**
 * Minimal spacing of the frequencies, measured between slot starts (slots are aligned, so a
 * daily alert keeps its hour), minus one hour: a Paris day of 23 hours (the spring change)
 * still counts as a day.
 */
const PERIOD_MS: Readonly<Record<string, number>> = { realtime: 0, daily: 24 * HOUR_MS, weekly: 7 * 24 * HOUR_MS };
const SLACK_MS = HOUR_MS;

export class LeaseLostError extends Error {
  constructor() {
    super("le créneau du robot a été repris par un autre processus (bail expiré) : arrêt de l'évaluation");
  }
}

export interface DueAlert {
  id: string;
  organisationId: string;
  name: string;
  frequency: string;
  isActive: boolean;
  sources: Set<string>;
  /** Followed departments (merged), for every source but attribution. */
  departements: Set<string>;
  /** Departments of `departements` alone: what attribution follows. */
  departementsFollowed: Set<string>;
  montantMin: number | null;
  parsed: ParsedQuery | null;
  /** The window: documents with from < ingested_at <= to. */
  from: string;
  robotSlot: string | null;
}

/** Whether an alert last evaluated in slot `robotSlot` is due in `slot`. */
export function isDue(frequency: string, robotSlot: string | null, slot: Date): boolean {
  if (!robotSlot) return true;
  const since = slot.getTime() - new Date(robotSlot).getTime();
  if (since <= 0) return false;
  const period = PERIOD_MS[frequency] ?? PERIOD_MS.daily ?? 0;
  return period === 0 || since >= period - SLACK_MS;
}

function toDueAlert(r: Record<string, unknown>): DueAlert {
  let parsed: ParsedQuery | null;
  try {
    parsed = parseQuery(String(r.query));
  } catch {
    // A query checked at creation always parses; one that would not matches nothing.
    parsed = null;
  }
  const list = (v: unknown) => new Set(typeof v === 'string' ? (JSON.parse(v) as string[]) : []);
  return {
    id: String(r.id),
    organisationId: String(r.organisation_id),
    name: String(r.name),
    frequency: String(r.frequency),
    isActive: Boolean(r.is_active),
    sources: list(r.sources_watched),
    departements: list(r.departements),
    departementsFollowed: list(r.departements_followed),
    montantMin: r.montant_min === null || r.montant_min === undefined ? null : Number(r.montant_min),
    parsed,
    // Never evaluated: what entered since its creation.
    from: String(r.robot_window_end ?? r.created_at),
    robotSlot: (r.robot_slot as string | null) ?? null,
  };
}

const ALERT_COLUMNS = ['id', 'organisation_id', 'name', 'query', 'frequency', 'is_active', 'sources_watched', 'departements', 'departements_followed', 'montant_min', 'created_at', 'robot_slot', 'robot_window_end'];

/** The active alerts due in `slot` and not yet evaluated in it (a resumed slot skips those done). */
export async function dueAlerts(db: Database, slot: Date): Promise<DueAlert[]> {
  const rows = (await db('alerts').where('is_active', true).orderBy('id').select(ALERT_COLUMNS)) as Record<string, unknown>[];
  return rows.map(toDueAlert).filter((a) => isDue(a.frequency, a.robotSlot, slot));
}

/** Every active alert, due or not (the CLI's evaluation up to now). */
export async function activeAlerts(db: Database): Promise<DueAlert[]> {
  const rows = (await db('alerts').where('is_active', true).orderBy('id').select(ALERT_COLUMNS)) as Record<string, unknown>[];
  return rows.map(toDueAlert);
}

/** One alert, due or not, active or not (the CLI's dry run). */
export async function alertForPreview(db: Database, id: string): Promise<DueAlert | null> {
  const row = (await db('alerts').where('id', id.trim().toLowerCase()).first(ALERT_COLUMNS)) as Record<string, unknown> | undefined;
  return row ? toDueAlert(row) : null;
}

/**
 * An alert that is not stored (alertes.preview): its criteria as planned, with a window
 * opening at `from`. Its id matches no stored event, so no earlier reminder is found.
 */
export function unsavedAlert(
  criteria: { query: string; frequency: string; sourcesWatched: string[]; departements: string[]; departementsFollowed: string[]; montantMin: number | null },
  from: Date,
): DueAlert {
  return toDueAlert({
    id: randomUUID(),
    organisation_id: '',
    name: '',
    query: criteria.query,
    frequency: criteria.frequency,
    is_active: true,
    sources_watched: JSON.stringify(criteria.sourcesWatched),
    departements: JSON.stringify(criteria.departements),
    departements_followed: JSON.stringify(criteria.departementsFollowed),
    montant_min: criteria.montantMin,
    created_at: from.toISOString(),
    robot_slot: null,
    robot_window_end: from.toISOString(),
  });
}

/**
 * A dry run: what the robot would report for this alert, written nowhere (the CLI's
 * `--dry-run` and alertes.preview). `upToNow`: the window closes at `now` rather than
 * an hour before (the margin protects the robot's progress from imports still
 * committing; a dry run records no progress).
 */
export async function dryRun(input: { db: Database; publicUrl: string; now: Date; alert: DueAlert; upToNow?: boolean }): Promise<NewEvent[]> {
  const result = await evaluateAlerts({ db: input.db, publicUrl: input.publicUrl, now: input.now, slot: robotSlotOf(input.now), alerts: [input.alert], claim: null, windowMarginMs: input.upToNow ? 0 : undefined });
  return result.found.get(input.alert.id) ?? [];
}

export interface EvaluationInput {
  db: Database;
  publicUrl: string;
  /** The run's clock: the window, the 45 days, the D-7 and `evaluee` are measured from it. */
  now: Date;
  /** Default WINDOW_MARGIN_MS; only a dry run may close its window later. */
  windowMarginMs?: number;
  slot: Date;
  alerts: DueAlert[];
  /** null: a dry run (nothing written), or, with `eventsOnly`, an evaluation outside the slots. */
  claim: SlotClaim | null;
  /**
   * Writes the events found and nothing else: no window moves, no slot is marked (the
   * operator's `npm run robot -- --now`). The next runs read the same documents again and
   * write no duplicate (the events' unique key), so nothing is lost either.
   */
  eventsOnly?: boolean;
  /** Renews the lease between chunks of a long read. */
  heartbeat?: () => Promise<void>;
}

export interface EvaluationResult {
  alertsEvaluated: number;
  eventsWritten: number;
  /** Events written per alert source, the D-7 reminders under REMINDER_GROUP. */
  bySource: Record<string, number>;
  /** The events found for each alert (dry run: what would be written). */
  found: Map<string, NewEvent[]>;
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const intersects = (a: readonly string[], b: ReadonlySet<string>) => a.some((d) => b.has(d));

/** Whether a document passes an alert's department and amount rules for this source. */
function acceptsDocument(source: string, a: DueAlert, doc: NewDocument): boolean {
  if (doc.ingestedAt <= a.from) return false;
  if (source === 'attribution') {
    if (!intersects(doc.departements, a.departementsFollowed)) return false;
    return a.montantMin === null || (doc.montant !== null && doc.montant !== undefined && doc.montant >= a.montantMin);
  }
  return a.departements.size === 0 || intersects(doc.departements, a.departements);
}

/** Matches one source's new documents against the alerts watching it; adds their events to `found`. */
async function evaluateSource(input: EvaluationInput, reader: SourceReader, to: string, found: Map<string, NewEvent[]>): Promise<void> {
  const { db, now } = input;
  const watching = input.alerts.filter((a) => a.sources.has(reader.source) && (!reader.usesTerms || a.parsed) && a.from < to);
  if (!watching.length) return;
  const from = watching.reduce((min, a) => (a.from < min ? a.from : min), to);
  const percolator = reader.usesTerms ? new Percolator(watching.map((a) => ({ alert: a, parsed: a.parsed as ParsedQuery }))) : null;
  // Sales ignore the terms: the alerts by followed department.
  const byDepartement = new Map<string, DueAlert[]>();
  if (!percolator) for (const a of watching) for (const d of a.departements) byDepartement.set(d, [...(byDepartement.get(d) ?? []), a]);

  const matches = new Map<DueAlert, { key: string; occurredAt: string; dateLimite: string | null; kind?: EventKind; eventKey?: string }[]>();
  const keys = new Set<string>();
  for await (const chunk of reader.read(db, from, to, now)) {
    for (const doc of chunk) {
      const hits = percolator
        ? percolator.match(doc, (q) => acceptsDocument(reader.source, q.alert, doc)).map((q) => q.alert)
        : [...new Set(doc.departements.flatMap((d) => byDepartement.get(d) ?? []))].filter((a) => acceptsDocument(reader.source, a, doc));
      for (const a of hits) {
        const list = matches.get(a) ?? [];
        list.push({ key: doc.key, occurredAt: doc.occurredAt, dateLimite: doc.dateLimite ?? null, kind: doc.kind, eventKey: doc.eventKey });
        matches.set(a, list);
        keys.add(doc.key);
      }
    }
    await input.heartbeat?.();
    await yieldToLoop();
  }
  if (!keys.size) return;
  const records = await reader.records(db, [...keys], { publicUrl: input.publicUrl, now });
  const soon = new Date(now.getTime() + REMINDER_DAYS * 86_400_000).toISOString();
  const nowIso = now.toISOString();
  for (const [a, list] of matches) {
    const events = found.get(a.id) ?? [];
    for (const m of list) {
      const record = records.get(m.key);
      if (!record) continue;
      events.push({ kind: m.kind ?? reader.kind, source: reader.source, occurredAt: m.occurredAt, record, ...(m.eventKey ? { recordKey: m.eventKey } : {}) });
      // A notice reported with its deadline already within 7 days gets its reminder at once.
      if (reader.source === 'marche' && m.dateLimite && m.dateLimite > nowIso && m.dateLimite <= soon)
        events.push({ kind: 'rappel_echeance', source: 'marche', occurredAt: nowIso, record });
    }
    found.set(a.id, events);
  }
}

/**
 * D-7 reminders of notices reported by earlier runs: one per (alert, notice) whose deadline
 * is now at most 7 days ahead and still to come, unless written already.
 */
async function earlierReminders(input: EvaluationInput, found: Map<string, NewEvent[]>): Promise<void> {
  const { db, now } = input;
  const ids = input.alerts.filter((a) => a.sources.has('marche')).map((a) => a.id);
  const nowIso = now.toISOString();
  const soon = new Date(now.getTime() + REMINDER_DAYS * 86_400_000).toISOString();
  const due: { alert_id: string; record_id: string }[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    due.push(
      ...((await db('alert_events as e')
        .join('notices as n', 'n.marche_id', 'e.record_id')
        .whereIn('e.alert_id', ids.slice(i, i + 500))
        .andWhere('e.kind', 'nouveau_marche')
        .andWhere('n.date_limite', '>', nowIso)
        .andWhere('n.date_limite', '<=', soon)
        .whereNotExists(db('alert_events as r').select(db.raw('1')).whereRaw('r.alert_id = e.alert_id').andWhere('r.kind', 'rappel_echeance').whereRaw('r.record_id = e.record_id'))
        .orderBy(['e.alert_id', 'e.seq'])
        .select('e.alert_id', 'e.record_id')) as { alert_id: string; record_id: string }[]),
    );
  }
  if (!due.length) return;
  const notices = new Map<string, EventRecord>();
  const noticeIds = [...new Set(due.map((d) => d.record_id))];
  for (let i = 0; i < noticeIds.length; i += 500) for (const n of await noticesByIds(db, noticeIds.slice(i, i + 500))) notices.set(n.marche_id, noticeRecord(n, input.publicUrl, now));
  for (const d of due) {
    const record = notices.get(d.record_id);
    if (!record) continue;
    const events = found.get(d.alert_id) ?? [];
    events.push({ kind: 'rappel_echeance', source: 'marche', occurredAt: nowIso, record });
    found.set(d.alert_id, events);
  }
}

/**
 * Changes of notices reported by earlier runs: a later notice of the same procedure moved
 * the deadline or cancelled it (`modifie_le` in the window). One `avis_modifie` event per
 * alert, notice the alert reported as new, and later notice that changed it (the event's key
 * is `<marche_id>@<idweb of that later notice>`): a second correction is reported too, the
 * same one never twice.
 */
async function earlierChanges(input: EvaluationInput, to: string, found: Map<string, NewEvent[]>): Promise<void> {
  const { db, now } = input;
  const watching = input.alerts.filter((a) => a.sources.has('marche') && a.from < to);
  if (!watching.length) return;
  const from = watching.reduce((min, a) => (a.from < min ? a.from : min), to);
  const byAlert = new Map(watching.map((a) => [a.id, a]));
  const ids = watching.map((a) => a.id);
  const changed: { alert_id: string; record_id: string; modifie_le: string; modifie_par: string | null }[] = [];
  // The later notice that made the change; its instant when none is named (never so when imported).
  const by = 'coalesce(n.modifie_par, n.modifie_le)';
  for (let i = 0; i < ids.length; i += 500) {
    changed.push(
      ...((await db('alert_events as e')
        .join('notices as n', 'n.marche_id', 'e.record_id')
        .whereIn('e.alert_id', ids.slice(i, i + 500))
        .andWhere('e.kind', 'nouveau_marche')
        .andWhere('n.modifie_le', '>', from)
        .andWhere('n.modifie_le', '<=', to)
        .whereNotExists(db('alert_events as r').select(db.raw('1')).whereRaw('r.alert_id = e.alert_id').andWhere('r.kind', 'avis_modifie').whereRaw(`r.record_id = e.record_id || '@' || ${by}`))
        .orderBy(['e.alert_id', 'e.seq'])
        .select('e.alert_id', 'e.record_id', 'n.modifie_le', 'n.modifie_par')) as { alert_id: string; record_id: string; modifie_le: string; modifie_par: string | null }[]),
    );
  }
  const due = changed.filter((c) => c.modifie_le > (byAlert.get(c.alert_id)?.from ?? to));
  if (!due.length) return;
  const notices = new Map<string, EventRecord>();
  const noticeIds = [...new Set(due.map((d) => d.record_id))];
  for (let i = 0; i < noticeIds.length; i += 500) for (const n of await noticesByIds(db, noticeIds.slice(i, i + 500))) notices.set(n.marche_id, noticeRecord(n, input.publicUrl, now));
  for (const d of due) {
    const record = notices.get(d.record_id);
    if (!record) continue;
    const events = found.get(d.alert_id) ?? [];
    events.push({ kind: 'avis_modifie', source: 'marche', occurredAt: d.modifie_le, record, recordKey: `${d.record_id}@${d.modifie_par ?? d.modifie_le}` });
    found.set(d.alert_id, events);
  }
}

/** The key of the D-7 reminders in the counts per source. */
export const REMINDER_GROUP = 'rappel_echeance';

/** Alerts without events whose progress is written per transaction (each alert's own is atomic). */
const PROGRESS_BATCH = 500;

/** Evaluates the given alerts: reads, matches, then writes each alert's events and progress (unless dry run). */
export async function evaluateAlerts(input: EvaluationInput): Promise<EvaluationResult> {
  const { db, now, slot, claim } = input;
  const to = new Date(now.getTime() - (input.windowMarginMs ?? WINDOW_MARGIN_MS)).toISOString();
  const found = new Map<string, NewEvent[]>();
  for (const reader of SOURCE_READERS) await evaluateSource(input, reader, to, found);
  await earlierReminders(input, found);
  await earlierChanges(input, to, found);

  const result: EvaluationResult = { alertsEvaluated: input.alerts.length, eventsWritten: 0, bySource: {}, found };
  if (!claim && !input.eventsOnly) return result;

  const progress = (a: DueAlert) => ({ robot_slot: slot.toISOString(), robot_window_end: a.from > to ? a.from : to, last_evaluated_at: now.toISOString() });
  const quiet: DueAlert[] = [];
  for (const a of input.alerts) {
    const events = found.get(a.id);
    if (!events?.length) {
      quiet.push(a);
      continue;
    }
    const written = await retryWhileBusy(
      () =>
        db.transaction(async (trx) => {
          if (claim && !(await renewLease(trx, claim, now))) throw new LeaseLostError();
          const counts: Record<string, number> = {};
          // Per source (the D-7 reminders apart), in the order found: the counts of the summary.
          const groupOf = (e: NewEvent) => (e.kind === 'rappel_echeance' ? REMINDER_GROUP : e.source);
          for (const group of [...new Set(events.map(groupOf))]) counts[group] = await appendEvents(trx, a, events.filter((e) => groupOf(e) === group), now);
          if (!input.eventsOnly) await trx('alerts').where('id', a.id).update(progress(a));
          return counts;
        }),
      300_000,
    );
    for (const [source, n] of Object.entries(written)) {
      result.bySource[source] = (result.bySource[source] ?? 0) + n;
      result.eventsWritten += n;
    }
  }
  if (!claim) return result;
  for (let i = 0; i < quiet.length; i += PROGRESS_BATCH) {
    const batch = quiet.slice(i, i + PROGRESS_BATCH);
    await retryWhileBusy(
      () =>
        db.transaction(async (trx) => {
          if (!(await renewLease(trx, claim, now))) throw new LeaseLostError();
          const atEnd = batch.filter((a) => a.from <= to).map((a) => a.id);
          for (let j = 0; j < atEnd.length; j += 400) await trx('alerts').whereIn('id', atEnd.slice(j, j + 400)).update({ robot_slot: slot.toISOString(), robot_window_end: to, last_evaluated_at: now.toISOString() });
          for (const a of batch.filter((x) => x.from > to)) await trx('alerts').where('id', a.id).update(progress(a));
        }),
      300_000,
    );
    await yieldToLoop();
  }
  return result;
}
