// The organisation's plan and its subscription requests. A request is started through the
// API by any member who may write (abonnement.subscribe) and confirmed on the account page by
// an administrator (confirmSubscription): the confirmation is the one place the plan turns to
// subscribed from the service itself, the seam where a payment provider would plug in.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Database } from '../../platform/db/database.js';
import type { Plan } from '../../access/caller.js';

/** A request not confirmed within this delay expires; a new call starts another. */
export const REQUEST_TTL_DAYS = 7;

export interface SubscriptionRequest {
  id: string;
  organisationId: string;
  requestedBy: string;
  requestedAt: string;
  expiresAt: string;
  confirmedBy: string | null;
  confirmedAt: string | null;
}

export interface PlanLimitsRow {
  plan: Plan;
  callsPerMinute: number;
  callsPerDay: number;
  filesPerDay: number;
}

const toRequest = (r: Record<string, unknown>): SubscriptionRequest => ({
  id: String(r.id),
  organisationId: String(r.organisation_id),
  requestedBy: String(r.requested_by),
  requestedAt: String(r.requested_at),
  expiresAt: String(r.expires_at),
  confirmedBy: (r.confirmed_by as string | null) ?? null,
  confirmedAt: (r.confirmed_at as string | null) ?? null,
});

const isPending = (r: SubscriptionRequest, now: Date) => r.confirmedAt === null && r.expiresAt > now.toISOString();

async function requestOf(db: Knex | Knex.Transaction, organisationId: string): Promise<SubscriptionRequest | null> {
  const row = (await db('subscription_requests').where('organisation_id', organisationId).first()) as Record<string, unknown> | undefined;
  return row ? toRequest(row) : null;
}

/** The organisation's request awaiting an administrator, if any. */
export async function pendingRequest(db: Database, organisationId: string, now: Date): Promise<SubscriptionRequest | null> {
  const r = await requestOf(db, organisationId);
  return r && isPending(r, now) ? r : null;
}

export async function requestById(db: Database, id: string): Promise<SubscriptionRequest | null> {
  const row = (await db('subscription_requests').where('id', id).first()) as Record<string, unknown> | undefined;
  return row ? toRequest(row) : null;
}

export async function organisationPlan(db: Database | Knex.Transaction, organisationId: string): Promise<{ name: string; plan: Plan } | null> {
  const row = (await db('organisations').where('id', organisationId).first('name', 'plan')) as { name: string; plan: Plan } | undefined;
  return row ?? null;
}

export async function memberCount(db: Database, organisationId: string): Promise<number> {
  const row = (await db('memberships').where('organisation_id', organisationId).count<{ n: number | string }[]>('* as n')) as { n: number | string }[];
  return Number(row[0]?.n ?? 0);
}

export async function planLimits(db: Database): Promise<PlanLimitsRow[]> {
  const rows = (await db('plan_limits').orderBy('calls_per_day').select()) as Record<string, unknown>[];
  return rows.map((r) => ({ plan: r.plan as Plan, callsPerMinute: Number(r.calls_per_minute), callsPerDay: Number(r.calls_per_day), filesPerDay: Number(r.files_per_day) }));
}

export type StartOutcome = { kind: 'subscribed' } | { kind: 'pending'; request: SubscriptionRequest; created: boolean };

/**
 * Starts a request, or gives back the one awaiting confirmation (a replay, or another member's):
 * one per organisation, so two calls that cross each other get the same request.
 */
export async function startSubscription(db: Database, organisationId: string, userId: string, now: Date): Promise<StartOutcome> {
  return db.transaction(async (trx) => {
    const org = await organisationPlan(trx, organisationId);
    if (org?.plan === 'subscribed') return { kind: 'subscribed' } as const;
    const current = await requestOf(trx, organisationId);
    if (current && isPending(current, now)) return { kind: 'pending', request: current, created: false } as const;
    // An expired request, or one confirmed before the plan went back to free: replaced.
    if (current) await trx('subscription_requests').where({ organisation_id: organisationId, id: current.id }).delete();
    const id = randomUUID();
    await trx('subscription_requests')
      .insert({
        organisation_id: organisationId,
        id,
        requested_by: userId,
        requested_at: now.toISOString(),
        expires_at: new Date(now.getTime() + REQUEST_TTL_DAYS * 86_400_000).toISOString(),
        confirmed_by: null,
        confirmed_at: null,
      })
      .onConflict('organisation_id')
      .ignore();
    const request = (await requestOf(trx, organisationId)) as SubscriptionRequest;
    return { kind: 'pending', request, created: request.id === id } as const;
  });
}

export type ConfirmOutcome = 'confirmed' | 'not_found' | 'not_admin' | 'expired' | 'already_subscribed';

/**
 * An administrator of the request's organisation confirms: the plan becomes subscribed and the
 * organisation's alerts active again, in one transaction with the request's confirmation.
 * A payment provider would be called here (or its confirmation would call this) before the
 * plan changes.
 */
export async function confirmSubscription(db: Database, requestId: string, userId: string, now: Date): Promise<ConfirmOutcome> {
  return db.transaction(async (trx) => {
    const row = (await trx('subscription_requests').where('id', requestId).first()) as Record<string, unknown> | undefined;
    if (!row) return 'not_found';
    const request = toRequest(row);
    const membership = (await trx('memberships').where({ user_id: userId, organisation_id: request.organisationId }).first('role')) as { role: string } | undefined;
    // Another organisation's request is not found, never a hint it exists.
    if (!membership) return 'not_found';
    if (membership.role !== 'admin') return 'not_admin';
    const org = await organisationPlan(trx, request.organisationId);
    if (org?.plan === 'subscribed') return 'already_subscribed';
    if (!isPending(request, now)) return 'expired';
    await trx('organisations').where('id', request.organisationId).update({ plan: 'subscribed' });
    await trx('alerts').where('organisation_id', request.organisationId).update({ is_active: true });
    await trx('subscription_requests').where('id', requestId).update({ confirmed_by: userId, confirmed_at: now.toISOString() });
    return 'confirmed';
  });
}
