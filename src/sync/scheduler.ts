// The synchronisation inside the service (`SYNC=on`): each scheduled source runs at its
// publisher's cadence (node-cron on the Paris clock), and once soon after the start when it
// is late or has never run. Runs of one source never overlap in a process; across processes
// the source's lease decides (engine.ts).
import cron, { type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import type { Database } from '../platform/db/database.js';
import type { Connector } from './connector.js';
import { runSync, type SyncDeps } from './engine.js';
import { scheduledConnectors, syncFreshness, type SyncPlan } from './status.js';

export const SYNC_TIMEZONE = 'Europe/Paris';

/** Delay of the catch-up runs after the start (the start's own work first). */
const CATCH_UP_AFTER_MS = 30_000;

export interface SyncScheduler {
  /** The runs in progress (tests wait for them). */
  current: () => Promise<void>[];
  /** Runs a source now (the scheduled path, for tests and the catch-up); resolves when it ends. */
  runNow: (source: string) => Promise<void>;
  stop: () => Promise<void>;
}

export interface SyncSchedulerOptions {
  db: Database;
  connectors: readonly Connector[];
  plan: SyncPlan;
  logger: Logger;
  deps?: Partial<Omit<SyncDeps, 'db' | 'settings'>>;
  /** 0 turns the catch-up off (tests drive runs with runNow). */
  catchUpAfterMs?: number;
}

export function startSyncScheduler(options: SyncSchedulerOptions): SyncScheduler {
  const { db, plan, logger } = options;
  const connectors = scheduledConnectors(options.connectors, plan);
  const running = new Map<string, Promise<void>>();
  let stopped = false;
  const run = (connector: Connector): Promise<void> => {
    const inFlight = running.get(connector.name);
    if (inFlight || stopped) return inFlight ?? Promise.resolve();
    const p = runSync({ db, settings: plan.settings, ...options.deps }, connector)
      .then((outcome) => {
        // Counts and the publisher's answer only: never a record, a URL's query or a secret.
        if (outcome.status === 'done') logger.info({ source: outcome.source, pages: outcome.pages, lus: outcome.read, ajoutes: outcome.added, mis_a_jour: outcome.updated, ecartes: outcome.skipped, requetes: outcome.requests, secondes: outcome.seconds }, 'synchronisation terminée');
        else if (outcome.status === 'failed') logger.error({ source: outcome.source, raison: outcome.reason, lus: outcome.read, reprise: outcome.retryAt }, 'synchronisation en échec : reprise au prochain passage');
      })
      .catch((err: unknown) => logger.error({ source: connector.name, err: (err as { code?: string }).code ?? 'inconnue' }, 'synchronisation interrompue : reprise au prochain passage'))
      .finally(() => running.delete(connector.name));
    running.set(connector.name, p);
    return p;
  };
  const tasks: ScheduledTask[] = connectors.flatMap((connector) =>
    connector.schedule.map((expression) => cron.schedule(expression, () => void run(connector), { timezone: SYNC_TIMEZONE, noOverlap: true, name: `sync ${connector.name} ${expression}` })),
  );
  // After the start: the sources that are late or never ran catch up once.
  const catchUpAfter = options.catchUpAfterMs ?? CATCH_UP_AFTER_MS;
  const catchUp =
    catchUpAfter > 0
      ? setTimeout(() => {
          syncFreshness(db, connectors, plan, new Date())
            .then((states) => {
              for (const state of states) if (state.state !== 'à jour') void run(connectors.find((c) => c.name === state.source) as Connector);
            })
            .catch(() => logger.error('synchronisation : lecture des états impossible au démarrage'));
        }, catchUpAfter)
      : null;
  catchUp?.unref();
  return {
    current: () => [...running.values()],
    runNow: (source) => {
      const connector = connectors.find((c) => c.name === source);
      return connector ? run(connector) : Promise.resolve();
    },
    stop: async () => {
      stopped = true;
      if (catchUp) clearTimeout(catchUp);
      for (const task of tasks) await task.destroy();
      await Promise.all(running.values());
    },
  };
}
