// The robot inside the service: node-cron at every slot start on the Paris clock
// (0 */3 * * *, Europe/Paris), a check every ten minutes that resumes a slot whose runner
// died (its lease passed), and one run at start (the slot missed while the service was
// down, once). Runs never overlap in a process; across processes the slot's claim decides.
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from '../../log.js';
import { errorSummary } from '../../log.js';
import { runRobotSlot, type RobotDeps } from './run.js';

export const ROBOT_CRON = '0 */3 * * *';
const RESUME_CRON = '*/10 * * * *';
export const ROBOT_TIMEZONE = 'Europe/Paris';

export interface RobotScheduler {
  /** The run in progress, if any (tests wait for it). */
  current: () => Promise<void> | null;
  stop: () => Promise<void>;
}

export function startRobotScheduler(deps: RobotDeps, logger: Logger): RobotScheduler {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return running;
    running = runRobotSlot(deps)
      .then((outcome) => {
        // Counts only: no alert name, no query, no record.
        if (outcome.ran)
          logger.info(
            { slot: outcome.slot.toISOString(), alertes: outcome.alertsEvaluated, evenements: outcome.eventsWritten, par_source: outcome.bySource, purges: outcome.purged, secondes: outcome.seconds, reprise: outcome.resumed },
            'robot : créneau évalué',
          );
      })
      .catch((err: unknown) => logger.error({ err: errorSummary(err) }, "robot : évaluation interrompue (reprise au prochain passage)"))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const tasks: ScheduledTask[] = [ROBOT_CRON, RESUME_CRON].map((expression) => cron.schedule(expression, () => void tick(), { timezone: ROBOT_TIMEZONE, noOverlap: true, name: `robot ${expression}` }));
  void tick();
  return {
    current: () => running,
    stop: async () => {
      stopped = true;
      for (const task of tasks) await task.destroy();
      await running;
    },
  };
}
