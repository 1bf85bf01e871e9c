// The operator's page of the sources (/compte/sources, administrators): each publisher's
// connector with its state, its last success and failure (with the publisher's answer), its
// last run's counts, and what the service holds of each alert source. The same states as
// referentiel_sources, read fresh (never the minute's cache: an operator watching a run).
import type { Database } from '../platform/db/database.js';
import { syncFreshness, type SyncPlan } from '../sync/status.js';
import { CONNECTORS, MANUAL_SOURCES } from '../domains/connectors.js';
import { sourceVolumes } from '../domains/source-volumes.js';
import { escapeHtml, page } from './pages.js';

const dateFr = (iso: string | null) => (iso ? new Intl.DateTimeFormat('fr-FR', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Paris' }).format(new Date(iso)) : 'jamais');
const number = new Intl.NumberFormat('fr-FR');

export async function sourcesPageHtml(db: Database, plan: SyncPlan, now: Date): Promise<string> {
  const [states, volumes] = await Promise.all([syncFreshness(db, CONNECTORS, plan, now), sourceVolumes(db, now.getTime())]);
  const rows = states
    .map(
      (s) => `<tr>
  <td><strong>${escapeHtml(s.source)}</strong><br><span class="muted">${escapeHtml(s.label)}</span></td>
  <td>${escapeHtml(s.alertSource)}</td>
  <td><strong>${escapeHtml(s.state)}</strong>${s.running ? '<br><span class="muted">synchronisation en cours</span>' : ''}${s.reason ? `<br><span class="muted">${escapeHtml(s.reason)}</span>` : ''}</td>
  <td>${escapeHtml(dateFr(s.lastSuccessAt))}</td>
  <td>${escapeHtml(dateFr(s.lastFailureAt))}</td>
  <td>${number.format(s.run.read)} lus, ${number.format(s.run.added)} ajoutés, ${number.format(s.run.updated)} mis à jour, ${number.format(s.run.skipped)} écartés<br><span class="muted">commencée ${escapeHtml(dateFr(s.run.startedAt))}</span></td>
</tr>`,
    )
    .join('\n');
  const held = [...volumes]
    .map(([code, v]) => `<tr><td>${escapeHtml(code)}</td><td>${number.format(v.records)}</td><td>${escapeHtml(dateFr(v.lastIngestedAt))}</td></tr>`)
    .join('\n');
  return page(
    'Sources et synchronisation',
    `<h1>Sources et synchronisation</h1>
<p>${plan.enabled ? 'La synchronisation avec les producteurs est active (SYNC=on).' : 'La synchronisation automatique est désactivée (SYNC=off) : les données viennent des imports (npm run import, npm run sync).'}</p>
<table><thead><tr><th>Connecteur</th><th>Source d’alerte</th><th>État</th><th>Dernière réussite</th><th>Dernier échec</th><th>Dernière exécution</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Sans producteur national, par import seulement : ${MANUAL_SOURCES.map(escapeHtml).join(', ')}.</p>
<h2>Données détenues</h2>
<table><thead><tr><th>Source d’alerte</th><th>Enregistrements</th><th>Dernière entrée</th></tr></thead><tbody>${held}</tbody></table>
<p><a href="/compte">Compte</a></p>`,
    true,
  );
}
