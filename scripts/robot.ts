// npm run robot -- --once                  evaluates the alerts due now (the slot of the moment,
//                                          claimed like the service does: one run per slot)
// npm run robot -- --now [--alert ID]      evaluates every active alert (or one) up to now,
//                                          without the one-hour margin: the events only, the
//                                          windows and slots left to the scheduled runs
// npm run robot -- --alert ID --dry-run    what this alert would find now; writes nothing
// --at 2026-11-24T09:05:00Z                the run's clock for --once and --dry-run (replays):
//                                          never later than the real clock, so that no window
//                                          ever closes in the future
// On the database of DATABASE_URL; the permalinks of the records use the service's address
// (PUBLIC_URL, HOST/PORT, else the one the service recorded in the database), said first.
import { parisIso } from '../src/platform/paris-time.js';
import { alertForPreview, dryRun, REMINDER_GROUP } from '../src/domains/robot/evaluate.js';
import { evaluateUpToNow, runRobotSlot } from '../src/domains/robot/run.js';
import { fail, parseCommandLine, sayAddress, serviceAddress, withDatabase } from './lib/cli.js';

const { values } = parseCommandLine({
  command: 'npm run robot',
  options: { once: { type: 'boolean' }, now: { type: 'boolean' }, alert: { type: 'string' }, 'dry-run': { type: 'boolean' }, at: { type: 'string' } },
  help: `Le robot des alertes, sur la base de DATABASE_URL (le service le fait tourner lui-même toutes les
3 heures, à 0 h, 3 h, 6 h… heure de Paris).

  npm run robot -- --once                    évalue les alertes dues dans le créneau du moment, comme le
                                             service (un seul passage par créneau)
  npm run robot -- --now [--alert ID]        évalue tout de suite ce qui vient d'entrer, jusqu'à maintenant
  npm run robot -- --alert ID --dry-run      ce que cette alerte trouverait maintenant ; n'écrit rien

  --once      le passage du créneau en cours ; s'il a déjà eu lieu (le service l'a fait), rien à faire.
              Sa fenêtre s'arrête une heure avant le passage : un import encore en cours a le temps
              de finir d'écrire ; ce qui est entré dans la dernière heure vient au passage suivant.
  --now       évalue chaque alerte active (ou celle de --alert), due ou non, jusqu'à maintenant, sans
              l'heure de marge : la façon de voir tout de suite les événements de ce qui vient d'être
              importé (lancer après la fin de l'import). N'écrit que les événements : les fenêtres et
              les créneaux restent ceux des passages réguliers, qui ne les écriront pas une seconde fois.
  --alert ID  une alerte (avec --dry-run ou --now)
  --dry-run   essai à blanc, jusqu'à maintenant, rien n'est écrit
  --at DATE   horloge du passage pour --once ou --dry-run (rejouer un créneau passé), en ISO 8601,
              par exemple 2026-11-24T09:05:00Z ; jamais plus tard que maintenant : une fenêtre
              d'alerte ne se ferme jamais dans le futur.

Les liens des événements (permaliens) prennent l'adresse du service : PUBLIC_URL, sinon http://HOST:PORT,
sinon celle que le service a enregistrée dans la base à son démarrage ; elle est affichée d'abord.`,
});

const realNow = new Date();
let at: Date | null = null;
if (typeof values.at === 'string') {
  at = new Date(values.at);
  if (Number.isNaN(at.getTime())) fail(`date invalide pour --at : ${values.at} (attendu : ISO 8601, par exemple 2026-11-24T09:05:00Z).`);
  // A window that closed in the future would hide every document entering before that time.
  if (at.getTime() > realNow.getTime())
    fail(`--at ${values.at} est dans le futur : les fenêtres des alertes se fermeraient après l'heure réelle et ce qui entrera d'ici là ne serait jamais signalé. Pour évaluer tout de suite ce qui vient d'être importé : npm run robot -- --now.`);
  if (values.now) fail('--at et --now s’excluent : --now évalue jusqu’à l’heure réelle.');
}
const now = () => at ?? new Date();

const modes = [values.once, values.now, values['dry-run']].filter(Boolean).length;
if (modes !== 1) fail('choisir une des façons : --once, --now, ou --alert ID --dry-run.');
if (values['dry-run'] && typeof values.alert !== 'string') fail('--dry-run va avec --alert ID.');
if (values.once && values.alert !== undefined) fail('--once évalue les alertes dues ; pour une seule alerte : --now --alert ID ou --alert ID --dry-run.');

const address = await serviceAddress(undefined);
sayAddress(address, 'Adresse des liens (permaliens)');
const publicUrl = address.url;

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
          ? `Créneau du ${slot} déjà évalué : rien à faire avant le prochain créneau. Pour évaluer tout de suite ce qui vient d'être importé : npm run robot -- --now.`
          : `Créneau du ${slot} en cours d'évaluation par un autre processus : rien à faire.`,
      );
      return;
    }
    console.log(`Créneau du ${slot}${outcome.resumed ? ' (repris après un passage interrompu)' : ''} :`);
    console.log(`  alertes évaluées : ${outcome.alertsEvaluated}`);
    console.log(`  événements écrits : ${outcome.eventsWritten} (${perSource(outcome.bySource)})`);
    console.log(`  événements de plus de 30 jours purgés : ${outcome.purged}`);
    console.log(`  durée : ${outcome.seconds.toFixed(1)} s`);
    console.log("  (fenêtre close une heure avant le passage : ce qui est entré depuis vient au passage suivant, ou tout de suite avec --now)");
  });
} else if (values.now) {
  const alertId = typeof values.alert === 'string' ? values.alert.trim().toLowerCase() : undefined;
  await withDatabase(async (db) => {
    if (alertId) {
      const alert = await alertForPreview(db, alertId);
      if (!alert) fail(`alerte inconnue : ${alertId}.`);
      if (!alert.isActive) fail(`l'alerte « ${alert.name} » est inactive : le robot ne l'évalue pas.`);
    }
    const outcome = await evaluateUpToNow({ db, publicUrl, now: () => new Date(), alertId });
    console.log(`Évaluation jusqu'à maintenant (${parisIso(new Date())}), sans l'heure de marge :`);
    console.log(`  alertes évaluées : ${outcome.alertsEvaluated}`);
    console.log(`  événements écrits : ${outcome.eventsWritten} (${perSource(outcome.bySource)}) ; déjà signalés : écartés`);
    console.log(`  durée : ${outcome.seconds.toFixed(1)} s`);
    console.log('  (fenêtres et créneaux inchangés : les passages réguliers continuent sans réécrire ces événements)');
  });
} else {
  const id = String(values.alert);
  await withDatabase(
    async (db) => {
      const alert = await alertForPreview(db, id);
      if (!alert) fail(`alerte inconnue : ${id}.`);
      const events = await dryRun({ db, publicUrl, now: now(), alert, upToNow: true });
      console.log(`Alerte « ${alert.name} » (${alert.frequency}${alert.isActive ? '' : ', inactive : le robot ne l’évalue pas'}), essai à blanc, rien n'est écrit :`);
      console.log(`  fenêtre : entrés dans le service après le ${parisIso(new Date(alert.from))}, jusqu'au ${parisIso(now())}`);
      console.log(`  ${events.length} événement${events.length > 1 ? 's' : ''} (déjà signalés compris : l'écriture les écarterait)`);
      for (const e of events.slice(0, 200)) console.log(`  ${e.kind} ${e.record.id} — ${e.record.titre}`);
      if (events.length > 200) console.log(`  … et ${events.length - 200} autres.`);
    },
    { queue: false },
  );
}
