// What each alert source holds in the service, so that referentiel_sources and the alerts
// say truthfully what can be watched: a source without any record cannot raise anything.
// Counted at most once a minute per database handle (a count over a million companies
// takes tens of milliseconds on SQLite: not on every call of a reference list).
import type { Database } from '../platform/db/database.js';
import { tableVolume, type TableVolume } from '../platform/db/volume.js';
import type { components } from '../../generated/openapi-types.js';

export type AlertSourceCode = components['schemas']['AlertSourceCode'];

/** Each source's records; null for a source the service does not hold yet. */
const VOLUMES: Record<AlertSourceCode, ((db: Database) => Promise<TableVolume>) | null> = {
  marche: (db) => tableVolume(db, 'notices'),
  dce: (db) => tableVolume(db, 'dce_files'),
  attribution: (db) => tableVolume(db, 'awards'),
  permis: (db) => tableVolume(db, 'permits'),
  reseaux_sociaux: (db) => tableVolume(db, 'publications'),
  mairie: (db) => tableVolume(db, 'deliberations'),
  bodacc: (db) => tableVolume(db, 'announcements'),
  entreprise: (db) => tableVolume(db, 'companies'),
  contact: (db) => tableVolume(db, 'contacts'),
  dvf: (db) => tableVolume(db, 'sales'),
};

const EMPTY: TableVolume = { records: 0, lastIngestedAt: null };
export const VOLUME_TTL_MS = 60_000;

const cache = new WeakMap<Database, { at: number; volumes: Promise<Map<AlertSourceCode, TableVolume>> }>();

async function countAll(db: Database): Promise<Map<AlertSourceCode, TableVolume>> {
  const entries = await Promise.all(
    (Object.entries(VOLUMES) as [AlertSourceCode, ((db: Database) => Promise<TableVolume>) | null][]).map(async ([code, volume]) => [code, volume ? await volume(db) : EMPTY] as const),
  );
  return new Map(entries);
}

/** Every source's volume, counted at most once per VOLUME_TTL_MS; a failed count is not kept. */
export function sourceVolumes(db: Database, nowMs: number): Promise<Map<AlertSourceCode, TableVolume>> {
  const cached = cache.get(db);
  if (cached && nowMs - cached.at < VOLUME_TTL_MS) return cached.volumes;
  const volumes = countAll(db);
  volumes.catch(() => cache.delete(db));
  cache.set(db, { at: nowMs, volumes });
  return volumes;
}

/** Forgets the counts (after an import in the same process, e.g. the demo data at start). */
export function forgetSourceVolumes(db: Database): void {
  cache.delete(db);
}
