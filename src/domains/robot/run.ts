// One robot run: claim the slot of the moment, evaluate the alerts due in it, purge the
// events past their retention, mark the slot finished. The service ticks it on its schedule
// and at start (a slot missed while the service was down is run once, since only the slot
// of the moment is ever claimed); `npm run robot -- --once` runs it from the command line.
import type { Database } from '../../platform/db/database.js';
import { retryWhileBusy } from '../../platform/db/busy.js';
import { purgeEvents } from '../events/store.js';
import { activeAlerts, dueAlerts, evaluateAlerts, type EvaluationResult } from './evaluate.js';
import { robotSlotOf } from './schedule.js';
import { claimSlot, finishSlot, renewLease, PROCESS_OWNER, type SlotClaim } from './slot-lease.js';

export interface RobotDeps {
  db: Database;
  publicUrl: string;
  now: () => Date;
  /** The process claiming the slot (one per process by default). */
  owner?: string;
}

export type RunOutcome =
  | { ran: false; slot: Date; reason: 'finished' | 'held' }
  | ({ ran: true; slot: Date; resumed: boolean; purged: number; seconds: number } & Omit<EvaluationResult, 'found'>);

/** The lease is renewed at most this often during the reads (every write renews it too). */
const HEARTBEAT_MS = 15_000;

export async function runRobotSlot(deps: RobotDeps): Promise<RunOutcome> {
  const { db } = deps;
  const started = Date.now();
  const now = deps.now();
  const slot = robotSlotOf(now);
  const claim: SlotClaim | null = await retryWhileBusy(() => claimSlot(db, slot, now, deps.owner ?? PROCESS_OWNER), 60_000);
  if (!claim) {
    const row = (await db('robot_runs').where('slot_start', slot.toISOString()).first('finished_at')) as { finished_at: string | null } | undefined;
    return { ran: false, slot, reason: row?.finished_at ? 'finished' : 'held' };
  }
  let lastBeat = Date.now();
  const heartbeat = async () => {
    if (Date.now() - lastBeat < HEARTBEAT_MS) return;
    lastBeat = Date.now();
    await retryWhileBusy(() => renewLease(db, claim, deps.now()), 60_000);
  };
  const result = await evaluateAlerts({ db, publicUrl: deps.publicUrl, now, slot, alerts: await dueAlerts(db, slot), claim, heartbeat });
  const purged = await retryWhileBusy(() => purgeEvents(db, now), 60_000);
  await retryWhileBusy(() => finishSlot(db, claim, deps.now(), result), 60_000);
  const { found: _found, ...counts } = result;
  return { ran: true, slot, resumed: claim.resumed, purged, seconds: (Date.now() - started) / 1000, ...counts };
}

/**
 * What was just imported, evaluated now (`npm run robot -- --now`): every active alert, or
 * the one named, due or not, its window closing at `now` itself rather than an hour before.
 * Only the events are written: windows and slots stay as the scheduled runs left them, so
 * those runs read the same documents again (writing no duplicate) and nothing an import was
 * still committing is lost. `now` must be the real clock: a window never closes past it.
 */
export async function evaluateUpToNow(deps: RobotDeps & { alertId?: string }): Promise<Omit<EvaluationResult, 'found'> & { seconds: number }> {
  const started = Date.now();
  const now = deps.now();
  const alerts = (await activeAlerts(deps.db)).filter((a) => !deps.alertId || a.id === deps.alertId);
  const { found: _found, ...counts } = await evaluateAlerts({ db: deps.db, publicUrl: deps.publicUrl, now, slot: robotSlotOf(now), alerts, claim: null, eventsOnly: true, windowMarginMs: 0 });
  return { ...counts, seconds: (Date.now() - started) / 1000 };
}
