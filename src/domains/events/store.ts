// The event log: the robot appends what it found for an alert, subscriptions read it. An
// event is unique per (alert, kind, record): appending it again is ignored, so a robot run
// replayed after a crash writes no duplicate.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Kinds of event, one per thing an alert can report (listed in the contract). */
export const EVENT_KINDS = [
  'nouveau_marche',
  'rappel_echeance',
  'nouveau_dce',
  'attribution',
  'permis',
  'publication',
  'deliberation',
  'annonce_bodacc',
  'entreprise',
  'contact',
  'vente',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Events are kept this long after they are written, then purged with the robot. */
export const EVENT_RETENTION_DAYS = 30;

/** A record as every search returns it (never contact details: the searches drop them). */
export interface EventRecord {
  id: string;
  titre: string;
  resume: string;
  fields: Record<string, unknown>;
}

export interface NewEvent {
  kind: EventKind;
  /** The alert source that found it (`marche`, `dce`, …). */
  source: string;
  occurredAt: string;
  record: EventRecord;
}

/**
 * Appends an alert's events in the given transaction, in the order given; those already
 * written for this alert (same kind and record) are skipped. Returns how many were new.
 */
export async function appendEvents(trx: Knex | Knex.Transaction, alert: { id: string; organisationId: string }, events: readonly NewEvent[], now: Date): Promise<number> {
  let added = 0;
  const createdAt = now.toISOString();
  for (let i = 0; i < events.length; i += 100) {
    const rows = events.slice(i, i + 100).map((e) => ({
      id: randomUUID(),
      alert_id: alert.id,
      organisation_id: alert.organisationId,
      kind: e.kind,
      source: e.source,
      record_id: e.record.id,
      occurred_at: e.occurredAt,
      created_at: createdAt,
      record: JSON.stringify(e.record),
    }));
    const inserted = (await trx('alert_events').insert(rows).onConflict(['alert_id', 'kind', 'record_id']).ignore().returning('seq')) as unknown[];
    added += inserted.length;
  }
  return added;
}

/** Deletes the events written more than EVENT_RETENTION_DAYS ago; returns how many. */
export async function purgeEvents(db: Knex, now: Date): Promise<number> {
  const before = new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  return Number(await db('alert_events').where('created_at', '<', before).delete());
}
