// Alerts of an organisation. Uniqueness of a name is the database's unique index; the cap
// of 200 alerts is one conditional update of the organisation's counter, so both hold when
// calls race, on SQLite and PostgreSQL.
import type { Database } from '../../platform/db/database.js';
import { endAlertSubscriptions } from '../events/store.js';

export const MAX_ALERTS_PER_ORGANISATION = 200;

export interface AlertRecord {
  id: string;
  organisationId: string;
  createdBy: string;
  name: string;
  query: string;
  frequency: 'realtime' | 'daily' | 'weekly';
  sources: string[];
  sourcesWatched: string[];
  departements: string[];
  departementsFollowed: string[];
  departement: string | null;
  montantMin: number | null;
  isActive: boolean;
  kind: 'mots_cles' | 'territoire';
  criteria: string;
  createdAt: string;
  lastEvaluatedAt: string | null;
}

function toRow(a: AlertRecord): Record<string, unknown> {
  return {
    id: a.id,
    organisation_id: a.organisationId,
    created_by: a.createdBy,
    name: a.name,
    query: a.query,
    frequency: a.frequency,
    sources: JSON.stringify(a.sources),
    sources_watched: JSON.stringify(a.sourcesWatched),
    departements: JSON.stringify(a.departements),
    departements_followed: JSON.stringify(a.departementsFollowed),
    departement: a.departement,
    montant_min: a.montantMin,
    is_active: a.isActive,
    kind: a.kind,
    criteria: a.criteria,
    created_at: a.createdAt,
    last_evaluated_at: a.lastEvaluatedAt,
  };
}

function fromRow(r: Record<string, unknown>): AlertRecord {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    createdBy: r.created_by as string,
    name: r.name as string,
    query: r.query as string,
    frequency: r.frequency as AlertRecord['frequency'],
    sources: JSON.parse(r.sources as string) as string[],
    sourcesWatched: JSON.parse(r.sources_watched as string) as string[],
    departements: JSON.parse(r.departements as string) as string[],
    departementsFollowed: JSON.parse(r.departements_followed as string) as string[],
    departement: (r.departement as string | null) ?? null,
    montantMin: r.montant_min === null || r.montant_min === undefined ? null : Number(r.montant_min),
    isActive: Boolean(r.is_active),
    kind: r.kind as AlertRecord['kind'],
    criteria: r.criteria as string,
    createdAt: r.created_at as string,
    lastEvaluatedAt: (r.last_evaluated_at as string | null) ?? null,
  };
}

export async function findAlertByName(db: Database, organisationId: string, name: string): Promise<AlertRecord | undefined> {
  const row = await db('alerts').where({ organisation_id: organisationId, name }).first();
  return row ? fromRow(row) : undefined;
}

export type InsertOutcome = { kind: 'inserted' } | { kind: 'name_taken'; existing: AlertRecord } | { kind: 'cap_reached' };

class NameTaken extends Error {}

/** Inserts the alert unless its name is taken in the organisation or the organisation is full. */
export async function insertAlert(db: Database, alert: AlertRecord): Promise<InsertOutcome> {
  const before = await findAlertByName(db, alert.organisationId, alert.name);
  if (before) return { kind: 'name_taken', existing: before };
  try {
    return await db.transaction(async (trx) => {
      // The write comes first: it takes the write lock before anything is read.
      const counted = await trx('organisations')
        .where('id', alert.organisationId)
        .andWhere('alert_count', '<', MAX_ALERTS_PER_ORGANISATION)
        .increment('alert_count', 1);
      if (!counted) return { kind: 'cap_reached' } as const;
      const inserted = await trx('alerts').insert(toRow(alert)).onConflict(['organisation_id', 'name']).ignore().returning('id');
      // Another call took the name meanwhile: undo the count, give its alert.
      if (!inserted.length) throw new NameTaken();
      return { kind: 'inserted' } as const;
    });
  } catch (err) {
    if (!(err instanceof NameTaken)) throw err;
    const existing = await findAlertByName(db, alert.organisationId, alert.name);
    if (!existing) throw new Error('alerte disparue pendant sa création', { cause: err });
    return { kind: 'name_taken', existing };
  }
}

class NothingRemoved extends Error {}

/**
 * Deletes an alert of this organisation and ends its event subscriptions (their places given
 * back); false when there is none (or it is another's).
 */
export async function deleteAlert(db: Database, organisationId: string, id: string): Promise<boolean> {
  try {
    return await db.transaction(async (trx) => {
      // The organisation's row first, as subscribing takes it: no subscription can land on
      // the alert while it goes, so the subscription counters stay exact.
      await trx('organisations').where('id', organisationId).decrement('alert_count', 1);
      await endAlertSubscriptions(trx, organisationId, id);
      const removed = await trx('alerts').where({ id, organisation_id: organisationId }).delete();
      if (!removed) throw new NothingRemoved();
      return true;
    });
  } catch (err) {
    if (err instanceof NothingRemoved) return false;
    throw err;
  }
}

/** The organisation's alerts, newest first. */
export async function listAlerts(db: Database, organisationId: string, limit: number): Promise<AlertRecord[]> {
  const rows = await db('alerts').where('organisation_id', organisationId).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
  return rows.map(fromRow);
}
