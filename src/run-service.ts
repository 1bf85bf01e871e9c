// Runs the service as configured: one process doing everything (WORKERS=1), a cluster's
// primary and its API workers (cluster.ts), or the background roles alone. Apart from
// server.ts, which starts one process' pieces and which cluster.ts uses: no import cycle.
import cluster from 'node:cluster';
import type { Config } from './config.js';
import { runClusterPrimary, runClusterWorker } from './cluster.js';
import { createLogger } from './log.js';
import { openDatabase } from './platform/db/database.js';
import { openObjectStore } from './platform/files/object-store.js';
import { backgroundDatabase, exitOnSignal, migrateAtStart, startBackground, startService, type PrepareStart } from './server.js';

/**
 * Runs the service until SIGTERM or SIGINT, then lets the calls in flight finish and exits.
 * The migrations run once, before any process serves; `prepare` runs once, when the API
 * listens (/readyz answers 503 until it is done) or, without the api role, before the
 * background roles start. By WORKERS and SERVICE_ROLES: one process serving the API with
 * every background role (WORKERS=1); a primary forking WORKERS API processes on one port and
 * running the background roles itself; or, without the api role, the background roles alone.
 */
export async function runService(config: Config, prepare?: PrepareStart): Promise<void> {
  if (cluster.isWorker) return runClusterWorker(config);
  const logger = createLogger(config.logLevel);
  const db = openDatabase(config.databaseUrl, backgroundDatabase(config.limits.operationTimeoutMs));
  await migrateAtStart(db);
  const dceStore = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  if (!config.roles.includes('api')) {
    await prepare?.({ db, dceStore, logger, url: config.publicUrl, preparing: () => undefined });
    const background = startBackground(config, { db, control: db, url: config.publicUrl, logger, dceStore });
    logger.info({ roles: background.running }, 'travail de fond démarré');
    console.log(`Travail de fond démarré : ${background.running.join(', ') || 'aucun rôle actif'}`);
    exitOnSignal(logger, async () => {
      await background.stop();
      await db.destroy();
    });
    process.on('SIGHUP', () => logger.info('SIGHUP : aucun processus d’API à remplacer ici'));
    return;
  }
  if (config.workers > 1) return runClusterPrimary(config, { db, dceStore, logger, prepare });
  await db.destroy();
  const service = await startService(config, { logger, migrate: false, preparing: prepare ? 'démarrage' : undefined });
  service.logger.info({ url: service.url }, 'service démarré');
  console.log(`Service à l'écoute : ${service.url}`);
  exitOnSignal(service.logger, service.stop);
  await prepare?.({ db: service.db, dceStore: service.dceStore, logger: service.logger, url: service.url, preparing: (step) => service.readiness.preparing(step) });
  service.readiness.done();
  if (prepare) service.logger.info('service prêt (/readyz)');
  process.on('SIGHUP', () => service.logger.info('SIGHUP : un seul processus (WORKERS=1), rien à remplacer ; un redémarrage progressif demande WORKERS=2 ou plus'));
}
