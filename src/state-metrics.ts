// The metrics of the work that runs in the background, read from the database at each scrape
// (so any API process answers them, wherever the robot, the synchronisation and the delivery
// run): the robot's last run and lag, each source's last run, duration and lag, the e-mail
// queue. Labels: the connectors' names only.
import { Gauge, Registry } from 'prom-client';
import type { Config } from './config.js';
import { CONNECTORS } from './domains/connectors.js';
import { emailQueue } from './domains/emails/store.js';
import { robotStatus } from './domains/robot/status.js';
import { errorSummary, type Logger } from './log.js';
import type { Database } from './platform/db/database.js';
import { METRIC_PREFIX } from './platform/metrics.js';
import { syncFreshness } from './sync/status.js';

const seconds = (at: string | Date | null | undefined): number | null => (at ? new Date(at).getTime() / 1000 : null);

export async function stateMetricsText(db: Database, sync: Config['sync'], logger: Logger, now: Date = new Date()): Promise<string> {
  const registry = new Registry();
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name: `${METRIC_PREFIX}${name}`, help, labelNames, registers: [registry] });
  const readOk = gauge('state_read_ok', 'La lecture de l’état du robot, des synchronisations et de la file des courriels a réussi (1) ou non (0).');
  try {
    const [robot, sources, queue] = await Promise.all([robotStatus(db, now), syncFreshness(db, CONNECTORS, sync, now), emailQueue(db, now)]);

    const set = (g: Gauge, value: number | null, labels: Record<string, string> = {}) => {
      if (value !== null) g.set(labels, value);
    };
    set(gauge('robot_last_slot_timestamp_seconds', 'Début du dernier créneau du robot pris en charge (secondes Unix).'), seconds(robot.lastSlot));
    set(gauge('robot_running', 'Un processus évalue un créneau en ce moment (1) ou non (0).'), robot.running ? 1 : 0);
    set(gauge('robot_last_finished_slot_timestamp_seconds', 'Début du dernier créneau évalué jusqu’au bout (secondes Unix).'), seconds(robot.lastFinished?.slot));
    set(gauge('robot_last_run_finished_timestamp_seconds', 'Fin de la dernière évaluation complète (secondes Unix).'), seconds(robot.lastFinished?.finishedAt));
    set(
      gauge('robot_last_run_duration_seconds', 'Durée de la dernière évaluation complète (reprises comprises).'),
      robot.lastFinished ? (robot.lastFinished.finishedAt.getTime() - robot.lastFinished.startedAt.getTime()) / 1000 : null,
    );
    set(gauge('robot_last_run_alerts', 'Alertes évaluées par la dernière évaluation complète.'), robot.lastFinished?.alerts ?? null);
    set(gauge('robot_last_run_events', 'Événements écrits par la dernière évaluation complète.'), robot.lastFinished?.events ?? null);
    set(gauge('robot_lag_seconds', 'Depuis combien de temps un créneau dû attend son évaluation complète (0 : à jour).'), robot.lagSeconds);

    const success = gauge('sync_last_success_timestamp_seconds', 'Dernière synchronisation réussie, par source (secondes Unix).', ['source']);
    const failure = gauge('sync_last_failure_timestamp_seconds', 'Dernier échec de synchronisation, par source (secondes Unix).', ['source']);
    const duration = gauge('sync_last_run_duration_seconds', 'Durée de la dernière synchronisation réussie, par source.', ['source']);
    const lag = gauge('sync_lag_seconds', 'Temps écoulé depuis la dernière synchronisation réussie, par source.', ['source']);
    const staleAfter = gauge('sync_stale_after_seconds', 'Au-delà de cet âge, la source est dite « en retard » aux utilisateurs.', ['source']);
    const running = gauge('sync_running', 'Une synchronisation de la source tient son bail en ce moment (1) ou non (0).', ['source']);
    const late = gauge('sync_late', 'Source planifiée en retard ou en échec (1), à jour (0) ; absente pour une source non planifiée.', ['source']);
    const read = gauge('sync_last_run_records', 'Enregistrements lus par la dernière synchronisation (ou celle en cours), par source.', ['source']);
    for (const state of sources) {
      const labels = { source: state.source };
      const connector = CONNECTORS.find((c) => c.name === state.source);
      set(success, seconds(state.lastSuccessAt), labels);
      set(failure, seconds(state.lastFailureAt), labels);
      const started = seconds(state.run.startedAt);
      const succeeded = seconds(state.lastSuccessAt);
      set(duration, started !== null && succeeded !== null && succeeded >= started ? succeeded - started : null, labels);
      set(lag, succeeded !== null ? now.getTime() / 1000 - succeeded : null, labels);
      set(staleAfter, connector ? connector.staleAfterHours * 3600 : null, labels);
      set(running, state.running ? 1 : 0, labels);
      set(read, state.run.read, labels);
      if (state.state !== 'désactivée' && state.state !== 'import manuel') set(late, state.state === 'à jour' ? 0 : 1, labels);
    }

    set(gauge('email_queue_messages', 'Courriels en attente de remise (premier envoi ou nouvel essai).'), queue.waiting);
    set(gauge('email_queue_due_messages', 'Courriels dont la remise est due maintenant.'), queue.due);
    set(gauge('email_queue_oldest_due_seconds', 'Attente du plus ancien courriel dû (0 : aucun).'), queue.oldestDueSeconds);
    readOk.set(1);
  } catch (err) {
    logger.error({ err: errorSummary(err) }, 'métriques : lecture de l’état en échec');
    readOk.set(0);
  }
  return registry.metrics();
}
