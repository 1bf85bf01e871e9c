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
  'dce_modifie',
  'avis_modifie',
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
  /**
   * What makes the event unique for its alert and kind, when it is not the record's id: a
   * new version of a consultation file is reported once per version (`<id>@v<version>`), a
   * notice's change once per later notice that made it (`<id>@<idweb>`).
   */
  recordKey?: string;
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
      record_id: e.recordKey ?? e.record.id,
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

// ---------------------------------------------------------------------------------------
// Subscriptions: polled, at least once. A subscription's checkpoint is the seq up to which
// every event of its alert is acknowledged; acknowledgements above it wait in `event_acks`
// until the prefix reaches them. Every change of an organisation's subscriptions (and the
// deletion of one of its alerts) takes the organisation's row first, so they run one at a
// time per organisation: the counters stay exact and no subscription lands on an alert being
// deleted, on SQLite and PostgreSQL alike.

/** Active subscriptions per account and per organisation (spec, Limits). */
export const MAX_SUBSCRIPTIONS = 20;

export interface SubscriptionRecord {
  id: string;
  organisationId: string;
  alertId: string;
  createdBy: string;
  key: string;
  checkpoint: number;
  createdAt: string;
}

/** A subscription with what its alert says of it. */
export interface SubscriptionView extends SubscriptionRecord {
  alertName: string;
  alertActive: boolean;
}

export interface StoredEvent {
  seq: number;
  id: string;
  kind: EventKind;
  alertId: string;
  source: string;
  occurredAt: string;
  record: EventRecord;
}

type Db = Knex | Knex.Transaction;

function subscriptionOf(r: Record<string, unknown>): SubscriptionRecord {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    alertId: r.alert_id as string,
    createdBy: r.created_by as string,
    key: r.key as string,
    // PostgreSQL gives bigints as text.
    checkpoint: Number(r.checkpoint),
    createdAt: r.created_at as string,
  };
}

const viewOf = (r: Record<string, unknown>): SubscriptionView => ({ ...subscriptionOf(r), alertName: r.alert_name as string, alertActive: Boolean(r.alert_active) });

const withAlert = (db: Db) =>
  db('event_subscriptions as s').join('alerts as a', 'a.id', 's.alert_id').select('s.*', 'a.name as alert_name', 'a.is_active as alert_active');

/** A subscription of this organisation, with its alert's name and state. */
export async function findSubscription(db: Db, organisationId: string, id: string): Promise<SubscriptionView | undefined> {
  const row = await withAlert(db).where({ 's.id': id, 's.organisation_id': organisationId }).first();
  return row ? viewOf(row) : undefined;
}

async function findByKey(db: Db, organisationId: string, alertId: string, key: string): Promise<SubscriptionView | undefined> {
  const row = await withAlert(db).where({ 's.alert_id': alertId, 's.key': key, 's.organisation_id': organisationId }).first();
  return row ? viewOf(row) : undefined;
}

/** The organisation's subscriptions, newest first. */
export async function listSubscriptions(db: Db, organisationId: string): Promise<SubscriptionView[]> {
  const rows = await withAlert(db)
    .where('s.organisation_id', organisationId)
    .orderBy([{ column: 's.created_at', order: 'desc' }, { column: 's.id', order: 'desc' }])
    .limit(MAX_SUBSCRIPTIONS);
  return rows.map(viewOf);
}

export type SubscribeOutcome =
  | { kind: 'created' | 'exists'; subscription: SubscriptionRecord }
  | { kind: 'alert_not_found' | 'alert_inactive' | 'organisation_full' | 'account_full' };

class Refused extends Error {
  constructor(readonly outcome: SubscribeOutcome | { kind: 'key_taken' }) {
    super(outcome.kind);
  }
}

async function alertState(db: Db, organisationId: string, alertId: string): Promise<{ active: boolean } | undefined> {
  const row = await db('alerts').where({ id: alertId, organisation_id: organisationId }).first('is_active');
  return row ? { active: Boolean(row.is_active) } : undefined;
}

/**
 * Subscribes to an active alert of the organisation, at the head of its event log (future
 * events only). The same key on the same alert gives the existing subscription.
 */
export async function subscribe(db: Knex, s: Omit<SubscriptionRecord, 'checkpoint'>): Promise<SubscribeOutcome> {
  const existing = await findByKey(db, s.organisationId, s.alertId, s.key);
  if (existing) return { kind: 'exists', subscription: existing };
  const alert = await alertState(db, s.organisationId, s.alertId);
  if (!alert) return { kind: 'alert_not_found' };
  if (!alert.active) return { kind: 'alert_inactive' };
  try {
    return await db.transaction(async (trx) => {
      // The organisation's row first (see above), counted only below the cap.
      const inOrganisation = await trx('organisations')
        .where('id', s.organisationId)
        .andWhere('event_subscription_count', '<', MAX_SUBSCRIPTIONS)
        .increment('event_subscription_count', 1);
      if (!inOrganisation) throw new Refused({ kind: 'organisation_full' });
      const forAccount = await trx('users').where('id', s.createdBy).andWhere('event_subscription_count', '<', MAX_SUBSCRIPTIONS).increment('event_subscription_count', 1);
      if (!forAccount) throw new Refused({ kind: 'account_full' });
      // Read again under the organisation's row: it may have gone or been paused meanwhile.
      const now = await alertState(trx, s.organisationId, s.alertId);
      if (!now) throw new Refused({ kind: 'alert_not_found' });
      if (!now.active) throw new Refused({ kind: 'alert_inactive' });
      const head = await trx('alert_events').where('alert_id', s.alertId).max({ seq: 'seq' }).first();
      const subscription: SubscriptionRecord = { ...s, checkpoint: Number(head?.seq ?? 0) };
      const inserted = (await trx('event_subscriptions')
        .insert({
          id: subscription.id,
          organisation_id: s.organisationId,
          alert_id: s.alertId,
          created_by: s.createdBy,
          key: s.key,
          checkpoint: subscription.checkpoint,
          created_at: s.createdAt,
        })
        .onConflict(['alert_id', 'key'])
        .ignore()
        .returning('id')) as unknown[];
      if (!inserted.length) throw new Refused({ kind: 'key_taken' });
      return { kind: 'created', subscription } as const;
    });
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    // A call with the same key may have won the race (or taken the last place): its subscription is the answer.
    const winner = await findByKey(db, s.organisationId, s.alertId, s.key);
    if (winner) return { kind: 'exists', subscription: winner };
    if (err.outcome.kind === 'key_taken') throw new Error('abonnement disparu pendant sa création', { cause: err });
    return err.outcome as SubscribeOutcome;
  }
}

/** Gives back the counted places of deleted subscriptions (the organisation's row is the caller's to have taken first). */
async function uncount(trx: Knex.Transaction, organisationId: string, creators: string[]): Promise<void> {
  if (!creators.length) return;
  await trx('organisations').where('id', organisationId).decrement('event_subscription_count', creators.length);
  const perAccount = new Map<string, number>();
  for (const c of creators) perAccount.set(c, (perAccount.get(c) ?? 0) + 1);
  for (const [account, n] of [...perAccount].sort(([a], [b]) => (a < b ? -1 : 1))) await trx('users').where('id', account).decrement('event_subscription_count', n);
}

class NothingRemoved extends Error {}

/**
 * Deletes subscriptions and gives their creators. Read, then deleted (SQLite's Knex has no
 * RETURNING on delete): exact, since the organisation's row is held and nothing else can
 * add one meanwhile.
 */
async function deleteSubscriptions(trx: Knex.Transaction, where: Record<string, string>): Promise<string[]> {
  const rows = (await trx('event_subscriptions').where(where).select('created_by')) as { created_by: string }[];
  if (rows.length) await trx('event_subscriptions').where(where).delete();
  return rows.map((r) => r.created_by);
}

/** Deletes a subscription of the organisation; false when there is none (or it is another's). */
export async function unsubscribe(db: Knex, organisationId: string, id: string): Promise<boolean> {
  try {
    return await db.transaction(async (trx) => {
      // The organisation's row first (see above): a write that changes nothing but takes it.
      await trx('organisations').where('id', organisationId).update({ event_subscription_count: trx.raw('event_subscription_count') });
      const creators = await deleteSubscriptions(trx, { id, organisation_id: organisationId });
      if (!creators.length) throw new NothingRemoved();
      await uncount(trx, organisationId, creators);
      return true;
    });
  } catch (err) {
    if (err instanceof NothingRemoved) return false;
    throw err;
  }
}

/**
 * Ends the subscriptions of an alert about to be deleted, giving back their places. The
 * caller has taken the organisation's row first, in the same transaction.
 */
export async function endAlertSubscriptions(trx: Knex.Transaction, organisationId: string, alertId: string): Promise<number> {
  const creators = await deleteSubscriptions(trx, { alert_id: alertId, organisation_id: organisationId });
  await uncount(trx, organisationId, creators);
  return creators.length;
}

/**
 * The subscription's events after its checkpoint that are not acknowledged, oldest first:
 * at most `limit`, and whether more follow. Purged events are simply not there any more.
 */
export async function pendingEvents(db: Db, subscription: SubscriptionRecord, limit: number): Promise<{ events: StoredEvent[]; hasMore: boolean }> {
  const rows = (await db('alert_events as e')
    .where('e.alert_id', subscription.alertId)
    .andWhere('e.seq', '>', subscription.checkpoint)
    .whereNotExists(db('event_acks as k').select(db.raw('1')).where('k.subscription_id', subscription.id).andWhereRaw('k.seq = e.seq'))
    .orderBy('e.seq')
    .limit(limit + 1)
    .select('e.seq', 'e.id', 'e.kind', 'e.alert_id', 'e.source', 'e.occurred_at', 'e.record')) as Record<string, unknown>[];
  const events = rows.slice(0, limit).map((r) => ({
    seq: Number(r.seq),
    id: r.id as string,
    kind: r.kind as EventKind,
    alertId: r.alert_id as string,
    source: r.source as string,
    occurredAt: r.occurred_at as string,
    record: JSON.parse(r.record as string) as EventRecord,
  }));
  return { events, hasMore: rows.length > limit };
}

const ADVANCE_BATCH = 500;

/**
 * Acknowledges the event `seq` of a subscription of the organisation and moves the
 * checkpoint over the acknowledged prefix. Acknowledging again changes nothing. Returns the
 * checkpoint after it, or undefined when the subscription is not the organisation's.
 */
export async function acknowledge(db: Knex, organisationId: string, subscriptionId: string, seq: number, now: Date): Promise<{ checkpoint: number } | undefined> {
  return db.transaction(async (trx) => {
    // The subscription's row first: acknowledgements of one subscription run one at a time,
    // each seeing the others', so the checkpoint only moves forward over a true prefix.
    const held = await trx('event_subscriptions').where({ id: subscriptionId, organisation_id: organisationId }).update({ last_acked_at: now.toISOString() });
    if (!held) return undefined;
    const row = await trx('event_subscriptions').where('id', subscriptionId).first('checkpoint', 'alert_id');
    const start = Number(row.checkpoint);
    if (seq <= start) return { checkpoint: start };
    await trx('event_acks').insert({ subscription_id: subscriptionId, seq }).onConflict(['subscription_id', 'seq']).ignore();
    let checkpoint = start;
    for (;;) {
      const batch = (await trx('alert_events as e')
        .leftJoin('event_acks as k', function () {
          this.on('k.seq', '=', 'e.seq').andOn('k.subscription_id', '=', trx.raw('?', [subscriptionId]));
        })
        .where('e.alert_id', row.alert_id)
        .andWhere('e.seq', '>', checkpoint)
        .orderBy('e.seq')
        .limit(ADVANCE_BATCH)
        .select('e.seq', 'k.seq as acked')) as { seq: unknown; acked: unknown }[];
      let gap = false;
      for (const r of batch) {
        if (r.acked === null || r.acked === undefined) {
          gap = true;
          break;
        }
        checkpoint = Number(r.seq);
      }
      if (gap || batch.length < ADVANCE_BATCH) break;
    }
    if (checkpoint > start) {
      await trx('event_subscriptions').where('id', subscriptionId).update({ checkpoint });
      await trx('event_acks').where('subscription_id', subscriptionId).andWhere('seq', '<=', checkpoint).delete();
    }
    return { checkpoint };
  });
}
