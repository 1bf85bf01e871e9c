// npm run sync -- --source NAME [--since YYYY-MM-DD] [--until YYYY-MM-DD]
// npm run sync -- --status
// Synchronises sources from their publishers now, into the database of DATABASE_URL (the
// running service's: its runs and this one never overlap, the source's lease decides), and
// prints a French summary; or prints each source's state. Exit code 1 when a run failed.
import { loadConfig } from '../src/config.js';
import { CONNECTORS, MANUAL_SOURCES } from '../src/domains/connectors.js';
import { runSync, type SyncOutcome } from '../src/sync/engine.js';
import { isDay } from '../src/sync/days.js';
import { syncFreshness } from '../src/sync/status.js';
import { fail, parseCommandLine, withDatabase } from './lib/cli.js';

const HELP = `Synchronisation des sources avec leurs producteurs.

  npm run sync -- --source NOM [--since AAAA-MM-JJ] [--until AAAA-MM-JJ]
  npm run sync -- --source all
  npm run sync -- --status

  --source NOM   une source (${CONNECTORS.map((c) => c.name).join(', ')}), plusieurs séparées par des virgules, ou all
  --since JOUR   relit depuis ce jour (inclus), quel que soit le curseur
  --until JOUR   jusqu'à ce jour (inclus) ; aujourd'hui par défaut
  --status       l'état de chaque source (dernière synchronisation, échec, comptes)

Adresses et identifiants : BOAMP_API_URL, BODACC_API_URL, DECP_API_URL, SIRENE_API_URL, SIRENE_STOCK_URL,
RGE_API_URL, RNE_API_URL, RATIOS_API_URL, DVF_FILES_URL, SITADEL_API_URL, INSEE_API_KEY, INPI_USERNAME, INPI_PASSWORD.`;

const args = parseCommandLine({
  command: 'npm run sync',
  help: HELP,
  options: { source: { type: 'string' }, since: { type: 'string' }, until: { type: 'string' }, status: { type: 'boolean' } },
}).values as { source?: string; since?: string; until?: string; status?: boolean };
for (const [name, value] of [['--since', args.since], ['--until', args.until]] as const) if (value !== undefined && !isDay(value)) fail(`${name} attend un jour AAAA-MM-JJ (reçu : ${value}).`);
if (args.since && args.until && args.since > args.until) fail('--since est après --until.');

const config = loadConfig();

function summary(o: SyncOutcome): string {
  if (o.status === 'disabled') return `${o.source} : désactivée (${o.reason}).`;
  if (o.status === 'held') return `${o.source} : une synchronisation est déjà en cours (un autre processus) ; rien n'a été fait.`;
  const counts = `${o.read} lus, ${o.added} ajoutés, ${o.updated} mis à jour, ${o.skipped} écartés, en ${o.pages} pages et ${o.requests} requêtes, ${o.seconds.toFixed(1)} s`;
  const lines = [o.status === 'done' ? `${o.source} : à jour. ${counts}.` : `${o.source} : en échec (${o.reason}). Déjà écrit : ${counts} ; la prochaine synchronisation reprend là sans doublon.`];
  for (const [note, n] of Object.entries(o.notes)) lines.push(`  ${note} : ${n}.`);
  for (const p of o.problems.slice(0, 10)) lines.push(`  écarté, enregistrement ${p.position} : ${p.reason}`);
  if (o.skipped > 10) lines.push(`  … et ${o.skipped - 10} autres écartés.`);
  return lines.join('\n');
}

const date = (iso: string | null) => (iso ? iso.replace('T', ' ').slice(0, 16) + ' UTC' : 'jamais');

if (args.status) {
  await withDatabase(async (db) => {
    for (const s of await syncFreshness(db, CONNECTORS, config.sync, new Date())) {
      console.log(`${s.source} (${s.label}) : ${s.state}${s.reason ? ` — ${s.reason}` : ''}${s.running ? ' ; synchronisation en cours' : ''}`);
      console.log(`  dernière réussite : ${date(s.lastSuccessAt)} ; dernier échec : ${date(s.lastFailureAt)} ; dernière exécution : ${s.run.read} lus, ${s.run.added} ajoutés, ${s.run.updated} mis à jour, ${s.run.skipped} écartés`);
    }
    console.log(`Import manuel seulement (aucun producteur national) : ${MANUAL_SOURCES.join(', ')}.`);
  }, { queue: false });
  process.exit(0);
}

if (!args.source) fail('--source ou --status attendu.');
const names = args.source === 'all' ? CONNECTORS.map((c) => c.name) : args.source.split(',').map((s) => s.trim()).filter(Boolean);
const unknown = names.filter((n) => !CONNECTORS.some((c) => c.name === n));
if (unknown.length) fail(`source inconnue : ${unknown.join(', ')}. Sources : ${CONNECTORS.map((c) => c.name).join(', ')}.`);

let failed = false;
await withDatabase(async (db) => {
  for (const name of names) {
    const connector = CONNECTORS.find((c) => c.name === name);
    if (!connector) continue;
    const outcome = await runSync({ db, settings: config.sync.settings, leaseMs: config.sync.leaseMs }, connector, { since: args.since ?? null, until: args.until ?? null });
    console.log(summary(outcome));
    if (outcome.status === 'failed') failed = true;
  }
  // A long writer: it makes room for the others between its pages rather than waiting in their line.
}, { queue: false });
if (failed) process.exit(1);
