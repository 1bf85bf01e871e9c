// How fresh each synchronised source is, from its state row: what users read in
// referentiels.sources and the alerts' warnings, and what the operator's page and
// `npm run sync -- --status` show.
import type { Database } from '../platform/db/database.js';
import type { Connector } from './connector.js';
import { missingSettings, type SyncSettings } from './engine.js';

export type SyncStateLabel = 'à jour' | 'en retard' | 'en échec' | 'désactivée' | 'import manuel';

export interface SyncPlan {
  /** `SYNC=on`: the service synchronises by itself. */
  enabled: boolean;
  /** `SYNC_SOURCES`: the sources chosen; null for every source whose credentials are present. */
  sources: string[] | null;
  settings: SyncSettings;
}

export interface SourceFreshness {
  source: string;
  label: string;
  alertSource: string;
  state: SyncStateLabel;
  /** Why the source is disabled, failing or late, in French; null when up to date. */
  reason: string | null;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  /** A run holds the source's lease now. */
  running: boolean;
  /** The last run's (or the run in progress') counts. */
  run: { startedAt: string | null; read: number; added: number; updated: number; skipped: number };
}

interface StateRow {
  source: string;
  lease_until: string | null;
  run_started_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  last_failure_reason: string | null;
  run_read: number | string;
  run_added: number | string;
  run_updated: number | string;
  run_skipped: number | string;
}

/** Why a source does not run by itself under this plan, or null when it does. */
export function whyNotScheduled(connector: Connector, plan: SyncPlan): { state: 'désactivée' | 'import manuel'; reason: string } | null {
  if (!plan.enabled) return { state: 'import manuel', reason: 'synchronisation automatique désactivée (SYNC=off) : les données viennent des imports' };
  if (plan.sources && !plan.sources.includes(connector.name)) return { state: 'désactivée', reason: 'source absente de SYNC_SOURCES' };
  const missing = missingSettings(connector, plan.settings);
  return missing ? { state: 'désactivée', reason: missing } : null;
}

/** The connectors that run by themselves under this plan. */
export function scheduledConnectors(connectors: readonly Connector[], plan: SyncPlan): Connector[] {
  return connectors.filter((c) => !whyNotScheduled(c, plan));
}

export async function syncFreshness(db: Database, connectors: readonly Connector[], plan: SyncPlan, now: Date): Promise<SourceFreshness[]> {
  const rows = (await db('sync_state').select('*')) as StateRow[];
  const byName = new Map(rows.map((r) => [r.source, r]));
  return connectors.map((connector) => {
    const row = byName.get(connector.name);
    const base = {
      source: connector.name,
      label: connector.label,
      alertSource: connector.alertSource,
      lastSuccessAt: row?.last_success_at ?? null,
      lastFailureAt: row?.last_failure_at ?? null,
      running: !!row?.lease_until && row.lease_until >= now.toISOString(),
      run: { startedAt: row?.run_started_at ?? null, read: Number(row?.run_read ?? 0), added: Number(row?.run_added ?? 0), updated: Number(row?.run_updated ?? 0), skipped: Number(row?.run_skipped ?? 0) },
    };
    const off = whyNotScheduled(connector, plan);
    if (off) return { ...base, ...off };
    if (row?.last_failure_at && (!row.last_success_at || row.last_failure_at > row.last_success_at)) {
      return { ...base, state: 'en échec', reason: row.last_failure_reason ?? 'échec' };
    }
    const staleBefore = new Date(now.getTime() - connector.staleAfterHours * 3600_000).toISOString();
    if (!row?.last_success_at) return { ...base, state: 'en retard', reason: 'jamais synchronisée' };
    if (row.last_success_at < staleBefore) return { ...base, state: 'en retard', reason: `aucune synchronisation réussie depuis plus de ${connector.staleAfterHours} h` };
    return { ...base, state: 'à jour', reason: null };
  });
}
