// npm run robot -- --once                  evaluates the alerts due now (the slot of the moment,
//                                          claimed like the service does: one run per slot)
// npm run robot -- --alert ID --dry-run    what this alert would find now; writes nothing
// --at 2026-11-24T09:05:00Z                the run's clock (replays, tests): the slot, the
//                                          windows, the 45 days and the D-7 are measured from it
// On the database of DATABASE_URL; PUBLIC_URL gives the records' permalinks.
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { parisIso } from '../src/platform/paris-time.js';
import { alertForPreview, dryRun, REMINDER_GROUP } from '../src/domains/robot/evaluate.js';
import { runRobotSlot } from '../src/domains/robot/run.js';
import { fail, withDatabase } from './lib/cli.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { once: { type: 'boolean' }, alert: { type: 'string' }, 'dry-run': { type: 'boolean' }, at: { type: 'string' } },
  strict: false,
});

const at = typeof values.at === 'string' ? new Date(values.at) : null;
if (at && Number.isNaN(at.getTime())) fail(`date invalide pour --at : ${String(values.at)} (attendu : ISO 8601, par exemple 2026-11-24T09:05:00Z).`);
const now = () => at ?? new Date();
const publicUrl = loadConfig().publicUrl;

const LABELS: Record<string, string> = {
  marche: 'avis de marché',
  [REMINDER_GROUP]: 'rappels J-7',
  dce: 'dossiers de consultation',
  attribution: 'attributions',
  permis: 'permis',
  reseaux_sociaux: 'publications',
  mairie: 'délibérations',
  bodacc: 'annonces BODACC',
  entreprise: 'entreprises',
  contact: 'contacts',
  dvf: 'ventes',
};

const perSource = (counts: Record<string, number>) =>
  Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([source, n]) => `${LABELS[source] ?? source} ${n}`)
    .join(', ') || 'aucun';

if (values.once) {
  await withDatabase(async (db) => {
    const outcome = await runRobotSlot({ db, publicUrl, now });
    const slot = parisIso(outcome.slot);
    if (!outcome.ran) {
      console.log(
        outcome.reason === 'finished'
          ? `Créneau du ${slot} déjà évalué : rien à faire avant le prochain créneau.`
          : `Créneau du ${slot} en cours d'évaluation par un autre processus : rien à faire.`,
      );
      return;
    }
    console.log(`Créneau du ${slot}${outcome.resumed ? ' (repris après un passage interrompu)' : ''} :`);
    console.log(`  alertes évaluées : ${outcome.alertsEvaluated}`);
    console.log(`  événements écrits : ${outcome.eventsWritten} (${perSource(outcome.bySource)})`);
    console.log(`  événements de plus de 30 jours purgés : ${outcome.purged}`);
    console.log(`  durée : ${outcome.seconds.toFixed(1)} s`);
  });
} else if (typeof values.alert === 'string' && values['dry-run']) {
  const id = values.alert;
  await withDatabase(async (db) => {
    const alert = await alertForPreview(db, id);
    if (!alert) fail(`alerte inconnue : ${id}.`);
    const events = await dryRun({ db, publicUrl, now: now(), alert });
    console.log(`Alerte « ${alert.name} » (${alert.frequency}${alert.isActive ? '' : ', inactive : le robot ne l’évalue pas'}), essai à blanc, rien n'est écrit :`);
    console.log(`  fenêtre : entrés dans le service après le ${parisIso(new Date(alert.from))}`);
    console.log(`  ${events.length} événement${events.length > 1 ? 's' : ''} (déjà signalés compris : l'écriture les écarterait)`);
    for (const e of events.slice(0, 200)) console.log(`  ${e.kind} ${e.record.id} — ${e.record.titre}`);
    if (events.length > 200) console.log(`  … et ${events.length - 200} autres.`);
  });
} else {
  fail('usage : npm run robot -- --once, ou npm run robot -- --alert ID --dry-run (option : --at DATE).');
}
