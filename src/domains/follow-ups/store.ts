// Follow-ups of an organisation. Every read and write is scoped by organisation_id in the
// query itself, so another organisation's id finds nothing (404, never a hint it exists);
// updates are conditional on the version read (optimistic concurrency).
import type { Database } from '../../platform/db/database.js';

export const FOLLOW_UP_STATUSES = ['a_etudier', 'en_cours', 'depose', 'gagne', 'perdu', 'abandonne'] as const;
export type FollowUpStatus = (typeof FOLLOW_UP_STATUSES)[number];
export const TARGET_KINDS = ['marche', 'dce', 'entreprise', 'acheteur'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export interface FollowUpRecord {
  id: string;
  organisationId: string;
  targetKind: TargetKind;
  targetId: string;
  marcheId: string | null;
  deadlineSeen: string | null;
  status: FollowUpStatus;
  ownerId: string | null;
  dueDate: string | null;
  notes: string;
  tags: string[];
  version: number;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

function toRow(f: FollowUpRecord): Record<string, unknown> {
  return {
    id: f.id,
    organisation_id: f.organisationId,
    target_kind: f.targetKind,
    target_id: f.targetId,
    marche_id: f.marcheId,
    deadline_seen: f.deadlineSeen,
    status: f.status,
    owner_id: f.ownerId,
    due_date: f.dueDate,
    notes: f.notes,
    tags: JSON.stringify(f.tags),
    version: f.version,
    created_by: f.createdBy,
    created_at: f.createdAt,
    updated_by: f.updatedBy,
    updated_at: f.updatedAt,
  };
}

function fromRow(r: Record<string, unknown>): FollowUpRecord {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    targetKind: r.target_kind as TargetKind,
    targetId: r.target_id as string,
    marcheId: (r.marche_id as string | null) ?? null,
    deadlineSeen: (r.deadline_seen as string | null) ?? null,
    status: r.status as FollowUpStatus,
    ownerId: (r.owner_id as string | null) ?? null,
    dueDate: (r.due_date as string | null) ?? null,
    notes: r.notes as string,
    tags: JSON.parse(r.tags as string) as string[],
    version: Number(r.version),
    createdBy: r.created_by as string,
    createdAt: r.created_at as string,
    updatedBy: r.updated_by as string,
    updatedAt: r.updated_at as string,
  };
}

/** Inserts the follow-up; the existing one when the organisation already follows that target. */
export async function insertFollowUp(db: Database, f: FollowUpRecord): Promise<{ inserted: true } | { inserted: false; existing: FollowUpRecord }> {
  const done = await db('follow_ups').insert(toRow(f)).onConflict(['organisation_id', 'target_kind', 'target_id']).ignore().returning('id');
  if (done.length) return { inserted: true };
  const existing = await db('follow_ups').where({ organisation_id: f.organisationId, target_kind: f.targetKind, target_id: f.targetId }).first();
  if (!existing) throw new Error('suivi disparu pendant sa création');
  return { inserted: false, existing: fromRow(existing) };
}

export async function findFollowUp(db: Database, organisationId: string, id: string): Promise<FollowUpRecord | undefined> {
  const row = await db('follow_ups').where({ organisation_id: organisationId, id }).first();
  return row ? fromRow(row) : undefined;
}

/** Writes the new state if the stored version is still `expectedVersion`; false when another write came first. */
export async function updateFollowUp(db: Database, next: FollowUpRecord, expectedVersion: number): Promise<boolean> {
  const row = toRow(next);
  // What never changes after creation stays out of the update.
  const changes = Object.fromEntries(Object.entries(row).filter(([k]) => !['id', 'organisation_id', 'created_by', 'created_at', 'target_kind', 'target_id', 'marche_id'].includes(k)));
  const n = await db('follow_ups').where({ id: next.id, organisation_id: next.organisationId, version: expectedVersion }).update(changes);
  return n > 0;
}

/** Deletes and returns the follow-up, in one transaction; undefined when the organisation has none with this id. */
export async function deleteFollowUp(db: Database, organisationId: string, id: string): Promise<FollowUpRecord | undefined> {
  return db.transaction(async (trx) => {
    const row = await trx('follow_ups').where({ organisation_id: organisationId, id }).first();
    if (!row) return undefined;
    await trx('follow_ups').where({ organisation_id: organisationId, id }).delete();
    return fromRow(row);
  });
}

export interface FollowUpFilters {
  statuses?: string[];
  kind?: string;
  ownerId?: string;
  tag?: string;
  marcheId?: string;
  dueBefore?: string;
}

/** One page of the organisation's follow-ups, newest first, and one row more to know if there are others. */
export async function listFollowUps(
  db: Database,
  organisationId: string,
  filters: FollowUpFilters,
  page: { offset: number; limit: number; countCap: number },
): Promise<{ records: FollowUpRecord[]; hasMore: boolean; total: number }> {
  const base = db('follow_ups').where('organisation_id', organisationId);
  if (filters.statuses?.length) base.whereIn('status', filters.statuses);
  if (filters.kind) base.where('target_kind', filters.kind);
  if (filters.ownerId) base.where('owner_id', filters.ownerId);
  if (filters.marcheId) base.where('marche_id', filters.marcheId);
  if (filters.dueBefore) base.whereNotNull('due_date').andWhere('due_date', '<=', filters.dueBefore);
  // Tags are stored as a JSON list of lower-cased strings: match the quoted element.
  if (filters.tag) base.whereRaw(`tags like ? escape '!'`, [`%${JSON.stringify(filters.tag.toLowerCase()).replace(/[!%_]/g, (c) => `!${c}`)}%`]);
  const counted = await base.clone().count({ n: '*' }).first();
  const rows = await base
    .clone()
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset(page.offset)
    .limit(page.limit + 1);
  return { records: rows.slice(0, page.limit).map(fromRow), hasMore: rows.length > page.limit, total: Number(counted?.n ?? 0) };
}

/** Whether the account is a member of the organisation. */
export async function isMember(db: Database, organisationId: string, accountId: string): Promise<boolean> {
  return (await db('memberships').where({ organisation_id: organisationId, user_id: accountId }).first('user_id')) !== undefined;
}
