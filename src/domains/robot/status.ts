// The robot's state as an operator watches it (the metrics): its latest slot, its latest
// finished run, and how long a due slot has been waiting, read from `robot_runs`.
import type { Database } from '../../platform/db/database.js';
import { nextRobotSlot } from './schedule.js';

export interface RobotStatus {
  /** Start of the latest slot claimed, finished or not. */
  lastSlot: Date | null;
  /** A runner holds the latest slot's lease now. */
  running: boolean;
  /** The latest finished run. */
  lastFinished: { slot: Date; startedAt: Date; finishedAt: Date; alerts: number; events: number } | null;
  /**
   * Seconds since the first slot after the latest finished one began, while that slot is
   * not finished: 0 when the robot is up to date; growing when slots are missed. Null
   * before any finished run.
   */
  lagSeconds: number | null;
}

interface RunRow {
  slot_start: string;
  lease_until: string;
  started_at: string;
  finished_at: string | null;
  alerts_evaluated: number | string;
  events_written: number | string;
}

export async function robotStatus(db: Database, now: Date): Promise<RobotStatus> {
  const latest = (await db('robot_runs').orderBy('slot_start', 'desc').first()) as RunRow | undefined;
  const finished = (await db('robot_runs').whereNotNull('finished_at').orderBy('slot_start', 'desc').first()) as RunRow | undefined;
  const lastFinished = finished
    ? {
        slot: new Date(finished.slot_start),
        startedAt: new Date(finished.started_at),
        finishedAt: new Date(finished.finished_at as string),
        alerts: Number(finished.alerts_evaluated),
        events: Number(finished.events_written),
      }
    : null;
  const due = lastFinished ? nextRobotSlot(lastFinished.slot) : null;
  return {
    lastSlot: latest ? new Date(latest.slot_start) : null,
    running: !!latest && !latest.finished_at && latest.lease_until >= now.toISOString(),
    lastFinished,
    lagSeconds: due ? Math.max(0, (now.getTime() - due.getTime()) / 1000) : null,
  };
}
