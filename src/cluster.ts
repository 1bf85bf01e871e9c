// Every core of the machine (WORKERS ≥ 2, node:cluster): the primary has run the migrations
// and the start's one-time work; it forks WORKERS processes that serve the API on one port
// (connections handed out in turn), and runs the background roles itself, once per machine.
// Quotas, revocations, robot slots, sync runs and e-mail claims hold across processes in the
// database: nothing is shared in memory between workers. A worker that dies is replaced;
// SIGHUP replaces them one by one (a new one listens before an old one stops taking
// connections and finishes its calls in flight); SIGTERM or SIGINT stops them all gracefully.
import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.js';
import type { Logger } from './log.js';
import { createLogger, errorSummary } from './log.js';
import type { Database } from './platform/db/database.js';
import type { ObjectStore } from './platform/files/object-store.js';
import { ProcessMetrics } from './platform/metrics.js';
import { answerClusterMetrics, clusterWorkerMetrics } from './platform/metrics-cluster.js';
import { exitOnSignal, logSearchCache, startBackground, startService, type BackgroundWork, type PrepareStart } from './server.js';

const LISTENING = 'batidata:listening';
const STOP = 'batidata:stop';
/** The primary's start's one-time work is done (or its step under way): each worker's /readyz follows it. */
const READY = 'batidata:ready';
const PREPARING = 'batidata:preparing';
/** Set in a worker's environment when it is forked while the start's one-time work runs. */
const PREPARING_ENV = 'BATIDATA_PREPARING';
/** A new worker must listen within this delay, or the start (or the rolling restart) fails. */
const START_DELAY_MS = 120_000;
/** A retiring worker's idle keep-alive connections stay open this long for a last call. */
const DRAIN_GRACE_MS = 1000;

interface Message {
  type?: string;
  url?: string;
  step?: string;
}

/** A worker: the API only (the primary runs the background roles), until the primary or a signal says stop. */
export async function runClusterWorker(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  const metrics = new ProcessMetrics({ node: !!config.metricsToken });
  const shared = clusterWorkerMetrics(metrics);
  // Its idle connections stay open a second once told to stop: a client's next call on one is answered with Connection: close, not cut.
  const service = await startService(
    { ...config, roles: ['api'] },
    { logger, migrate: false, metrics, readMetrics: shared.read, drainGraceMs: DRAIN_GRACE_MS, preparing: process.env[PREPARING_ENV] || undefined },
  );
  const stop = async () => {
    await service.stop();
    shared.stop();
  };
  let stopping = false;
  const stopAndExit = () => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => {
        logSearchCache(logger);
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err: errorSummary(err) }, 'arrêt du processus en échec');
        process.exit(1);
      },
    );
  };
  process.on('message', (message: Message) => {
    if (message?.type === STOP) stopAndExit();
    else if (message?.type === PREPARING && typeof message.step === 'string') service.readiness.preparing(message.step);
    else if (message?.type === READY) service.readiness.done();
  });
  // A signal to the whole process group (Ctrl-C) reaches the workers too: they stop as the primary asks.
  process.on('SIGTERM', stopAndExit);
  process.on('SIGINT', stopAndExit);
  process.on('SIGHUP', () => undefined);
  process.send?.({ type: LISTENING, url: service.url });
}

/** Forks a worker and resolves with its address once it listens; rejects if it dies or takes too long first. `preparing`: the step its /readyz reports until told ready. */
function forkWorker(preparing: string | null = null): { worker: Worker; listening: Promise<string> } {
  const worker = cluster.fork(preparing ? { [PREPARING_ENV]: preparing } : {});
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`processus ${worker.id} : pas à l'écoute après ${START_DELAY_MS / 1000} s`)), START_DELAY_MS);
    const onMessage = (message: Message) => {
      if (message?.type !== LISTENING || typeof message.url !== 'string') return;
      clearTimeout(timer);
      worker.off('exit', onExit);
      resolve(message.url);
    };
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      reject(new Error(`processus ${worker.id} arrêté avant d'écouter (code ${code ?? signal})`));
    };
    worker.on('message', onMessage);
    worker.once('exit', onExit);
  });
  return { worker, listening };
}

/** Asks a worker to stop taking connections and finish its calls, and waits for its exit (killed past `graceMs`). */
function retire(worker: Worker, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve();
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), graceMs);
    worker.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      worker.send({ type: STOP });
    } catch {
      worker.process.kill('SIGTERM');
    }
  });
}

export async function runClusterPrimary(config: Config, start: { db: Database; dceStore: ObjectStore; logger: Logger; prepare?: PrepareStart }): Promise<void> {
  const { db, dceStore, logger, prepare } = start;
  /** The start's one-time work's step while it runs: workers forked meanwhile start not ready. */
  let preparing: string | null = prepare ? 'démarrage' : null;
  // A worker finishing its calls: the longest a call may last, and some margin.
  const graceMs = config.limits.operationTimeoutMs + config.limits.bodyTimeoutMs + 5000;
  const metrics = new ProcessMetrics({ node: !!config.metricsToken });
  metrics.watchPool('background', db);
  const stopAnswering = answerClusterMetrics(metrics);
  /** The workers serving now; a retired or dead one leaves the set. */
  const serving = new Set<Worker>();
  let stopping = false;
  let rolling: Promise<void> | null = null;
  let quickDeaths = 0;

  const replaceDead = (worker: Worker, code: number | null, signal: string | null) => {
    if (!serving.delete(worker) || stopping) return;
    logger.error({ worker: worker.id, code, signal }, 'processus d’API arrêté de façon inattendue : remplacé');
    // A worker that dies at once again and again (a broken database) is replaced ever more slowly.
    const delay = Math.min(30_000, 1000 * quickDeaths);
    quickDeaths += 1;
    setTimeout(() => {
      if (stopping) return;
      const next = forkWorker(preparing);
      watch(next.worker);
      next.listening.then(
        () => {
          quickDeaths = 0;
        },
        (err: unknown) => logger.error({ err: errorSummary(err) }, 'processus d’API de remplacement en échec'),
      );
    }, delay).unref();
  };
  const watch = (worker: Worker) => {
    serving.add(worker);
    worker.once('exit', (code, signal) => replaceDead(worker, code, signal));
  };

  let forked: { worker: Worker; listening: Promise<string> }[] = [];
  let url: string;
  try {
    forked = Array.from({ length: config.workers }, () => forkWorker(preparing));
    url = (await Promise.all(forked.map((f) => f.listening)))[0] as string;
  } catch (err) {
    stopping = true;
    logger.error({ err: errorSummary(err) }, 'démarrage des processus d’API en échec');
    console.error(`Démarrage en échec : ${errorSummary(err).message ?? 'processus d’API arrêté'}`);
    await Promise.all(forked.map((f) => retire(f.worker, 5000)));
    await db.destroy();
    process.exit(1);
  }
  for (const f of forked) watch(f.worker);
  const tell = (message: Message) => {
    for (const worker of serving) {
      try {
        worker.send(message);
      } catch {
        // A worker exiting: its replacement is forked with the current state.
      }
    }
  };
  // From here a signal stops the workers gracefully, the start's one-time work included.
  let background: BackgroundWork | null = null;
  exitOnSignal(logger, async () => {
    stopping = true;
    await rolling;
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
    await Promise.all(all.map((w) => retire(w, graceMs)));
    stopAnswering();
    await background?.stop();
    await db.destroy();
  });
  if (prepare) {
    logger.info({ url, workers: config.workers }, 'service à l’écoute, préparation du premier démarrage');
    console.log(`Service à l'écoute : ${url}`);
    await prepare({
      db,
      dceStore,
      logger,
      url,
      preparing: (step) => {
        preparing = step;
        tell({ type: PREPARING, step });
      },
    });
    preparing = null;
    tell({ type: READY });
    logger.info('service prêt (/readyz)');
  }
  if (stopping) return;
  background = startBackground(config, { db, control: db, url, logger, dceStore, metrics });
  logger.info({ url, workers: config.workers, roles: background.running }, 'service démarré');
  if (!prepare) console.log(`Service à l'écoute : ${url}`);

  /** Rolling restart: each worker of the moment is replaced by a new one that listens first. */
  const roll = async () => {
    const old = [...serving];
    logger.info({ workers: old.length }, 'redémarrage progressif : début');
    for (const worker of old) {
      if (stopping) return;
      const next = forkWorker(preparing);
      try {
        await next.listening;
      } catch (err) {
        logger.error({ err: errorSummary(err) }, 'redémarrage progressif interrompu : le nouveau processus n’écoute pas, l’ancien reste');
        return;
      }
      watch(next.worker);
      serving.delete(worker);
      await retire(worker, graceMs);
    }
    logger.info('redémarrage progressif : terminé');
  };
  process.on('SIGHUP', () => {
    if (stopping) return;
    if (rolling) {
      logger.info('SIGHUP : redémarrage progressif déjà en cours');
      return;
    }
    rolling = roll()
      .catch((err: unknown) => logger.error({ err: errorSummary(err) }, 'redémarrage progressif en échec'))
      .finally(() => {
        rolling = null;
      });
  });
}
