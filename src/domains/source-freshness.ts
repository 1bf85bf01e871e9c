// How fresh each alert source is, from the synchronisation's state of the connectors that
// feed it: what referentiel_sources says and what alertes.create warns of. Read at most once
// a minute per database handle, like the volumes (referentiels.sources answers the admitted
// call of the benchmark: one read of sync_state a minute, not one a call).
import type { Database } from '../platform/db/database.js';
import { parisIso } from '../platform/paris-time.js';
import { syncFreshness, type SourceFreshness, type SyncPlan, type SyncStateLabel } from '../sync/status.js';
import { CONNECTORS, MANUAL_SOURCES } from './connectors.js';
import type { AlertSourceCode } from './source-volumes.js';
import { VOLUME_TTL_MS } from './source-volumes.js';
import type { components } from '../../generated/openapi-types.js';

export type SourceSync = components['schemas']['AlertSource']['synchronisation'];

const WORST_FIRST: SyncStateLabel[] = ['en échec', 'en retard', 'à jour'];

const iso = (value: string | null) => (value ? parisIso(new Date(value)) : null);

/** One alert source's freshness from its connectors' (none: a source fed by imports only). */
export function sourceSync(code: string, connectors: SourceFreshness[], plan: SyncPlan): SourceSync {
  const listed = connectors.map((c) => ({ nom: c.source, libelle: c.label, etat: c.state, raison: c.reason, derniere_synchronisation: iso(c.lastSuccessAt), dernier_echec: iso(c.lastFailureAt) }));
  if (!connectors.length) {
    const manual = (MANUAL_SOURCES as readonly string[]).includes(code);
    return { etat: 'import manuel', raison: manual ? 'aucun producteur national : les données viennent des imports' : null, derniere_synchronisation: null, connecteurs: [] };
  }
  const running = connectors.filter((c) => WORST_FIRST.includes(c.state));
  if (!running.length) {
    const state = plan.enabled ? 'désactivée' : 'import manuel';
    return { etat: state, raison: [...new Set(connectors.map((c) => c.reason).filter(Boolean))].join(' ; ') || null, derniere_synchronisation: null, connecteurs: listed };
  }
  const state = WORST_FIRST.find((s) => running.some((c) => c.state === s)) as SyncStateLabel;
  const reasons = connectors.filter((c) => c.state !== 'à jour' && c.reason).map((c) => `${c.source} : ${c.reason}`);
  const successes = running.map((c) => c.lastSuccessAt);
  const oldest = successes.includes(null) ? null : (successes as string[]).sort()[0] ?? null;
  return { etat: state, raison: reasons.length ? reasons.join(' ; ') : null, derniere_synchronisation: iso(oldest), connecteurs: listed };
}

const cache = new WeakMap<Database, { at: number; value: Promise<Map<string, SourceSync>> }>();

async function readAll(db: Database, plan: SyncPlan, now: Date): Promise<Map<string, SourceSync>> {
  const states = await syncFreshness(db, CONNECTORS, plan, now);
  const codes = new Set<string>([...states.map((s) => s.alertSource), ...MANUAL_SOURCES]);
  return new Map([...codes].map((code) => [code, sourceSync(code, states.filter((s) => s.alertSource === code), plan)]));
}

/** Every alert source's freshness, read at most once per VOLUME_TTL_MS; a failed read is not kept. */
export function sourcesFreshness(db: Database, plan: SyncPlan, nowMs: number): Promise<Map<string, SourceSync>> {
  const cached = cache.get(db);
  if (cached && nowMs - cached.at < VOLUME_TTL_MS) return cached.value;
  const value = readAll(db, plan, new Date(nowMs));
  value.catch(() => cache.delete(db));
  cache.set(db, { at: nowMs, value });
  return value;
}

/** The freshness of a source the contract lists but no connector feeds nor is manual (none today). */
export const UNKNOWN_SYNC: SourceSync = { etat: 'import manuel', raison: null, derniere_synchronisation: null, connecteurs: [] };

export type { AlertSourceCode };

/** Forgets the states read (a test, or a sync run in this process that must show at once). */
export function forgetSourcesFreshness(db: Database): void {
  cache.delete(db);
}
