// Claiming a robot slot: exactly one run per slot across every process on one database.
// The slot row's primary key decides who starts a slot (an insert that conflicts is lost);
// a runner renews its lease while it works, and a slot whose lease has passed without
// `finished_at` (its runner died) is taken over by one conditional update: both are single
// statements, atomic on SQLite and PostgreSQL alike. On PostgreSQL the claim also runs under
// a transaction-scoped advisory lock, so that claims are serialised rather than raced.
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { kindOf, type Database } from '../../platform/db/database.js';

/** How long a claim holds without renewal; the runner renews it at every alert batch. */
export const ROBOT_LEASE_MS = 2 * 60_000;

/** The advisory lock of the robot's claims (any constant bigint, the same in every process). */
const ADVISORY_KEY = 7_015_015_015;

/** A random id per process: a lease is the process', not the slot's. */
export const PROCESS_OWNER = `${process.pid}-${randomUUID()}`;

export interface SlotClaim {
  slotStart: string;
  owner: string;
  /** true when the slot had been started by a runner whose lease passed. */
  resumed: boolean;
}

async function underClaimLock<T>(db: Database, run: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return db.transaction(async (trx) => {
    if (kindOf(trx) === 'postgres') await trx.raw('select pg_advisory_xact_lock(?)', [ADVISORY_KEY]);
    return run(trx);
  });
}

/**
 * Claims the slot starting at `slotStart` for `owner`: null when it is finished, or held by a
 * live lease of another runner. A slot is never claimed twice while its lease runs.
 */
export async function claimSlot(db: Database, slotStart: Date, now: Date, owner: string = PROCESS_OWNER): Promise<SlotClaim | null> {
  const slot = slotStart.toISOString();
  const at = now.toISOString();
  const lease = new Date(now.getTime() + ROBOT_LEASE_MS).toISOString();
  return underClaimLock(db, async (trx) => {
    const inserted = (await trx('robot_runs')
      .insert({ slot_start: slot, owner, lease_until: lease, started_at: at })
      .onConflict('slot_start')
      .ignore()
      .returning('slot_start')) as unknown[];
    if (inserted.length) return { slotStart: slot, owner, resumed: false };
    const taken = await trx('robot_runs')
      .where('slot_start', slot)
      .whereNull('finished_at')
      .andWhere('lease_until', '<', at)
      .update({ owner, lease_until: lease, takeovers: trx.raw('takeovers + 1') });
    return taken ? { slotStart: slot, owner, resumed: true } : null;
  });
}

/** Extends the lease; false when the slot is no longer this runner's (it must stop writing). */
export async function renewLease(trx: Knex | Knex.Transaction, claim: SlotClaim, now: Date): Promise<boolean> {
  const updated = await trx('robot_runs')
    .where({ slot_start: claim.slotStart, owner: claim.owner })
    .whereNull('finished_at')
    .update({ lease_until: new Date(now.getTime() + ROBOT_LEASE_MS).toISOString() });
  return updated === 1;
}

export interface RunCounters {
  alertsEvaluated: number;
  eventsWritten: number;
  bySource: Record<string, number>;
}

/** Marks the slot finished with what the run did; false when the lease had been lost. */
export async function finishSlot(db: Database, claim: SlotClaim, now: Date, counters: RunCounters): Promise<boolean> {
  const updated = await db('robot_runs')
    .where({ slot_start: claim.slotStart, owner: claim.owner })
    .whereNull('finished_at')
    .update({
      finished_at: now.toISOString(),
      lease_until: now.toISOString(),
      alerts_evaluated: counters.alertsEvaluated,
      events_written: counters.eventsWritten,
      counters: JSON.stringify(counters.bySource),
    });
  return updated === 1;
}

/** The slot rows, newest first (the CLI's summary and the tests). */
export async function slotRuns(db: Database, limit = 20): Promise<{ slot_start: string; owner: string; finished_at: string | null; takeovers: number; alerts_evaluated: number; events_written: number }[]> {
  const rows = (await db('robot_runs').orderBy('slot_start', 'desc').limit(limit)) as Record<string, unknown>[];
  return rows.map((r) => ({
    slot_start: String(r.slot_start),
    owner: String(r.owner),
    finished_at: (r.finished_at as string | null) ?? null,
    takeovers: Number(r.takeovers),
    alerts_evaluated: Number(r.alerts_evaluated),
    events_written: Number(r.events_written),
  }));
}
