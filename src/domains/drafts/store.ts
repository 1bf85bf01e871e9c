// Drafts of an organisation and their kept versions. Every read and write is scoped by
// organisation_id in the query itself (another organisation's id finds nothing: 404, never
// a hint it exists); an update is conditional on the version read and writes the new
// version row in the same transaction, so the history never misses a version.
import type { Database } from '../../platform/db/database.js';

export const DRAFT_KINDS = ['memoire_technique', 'lettre', 'question_acheteur', 'autre'] as const;
export type DraftKind = (typeof DRAFT_KINDS)[number];

/** Versions kept per draft: the oldest beyond are dropped (64 KiB each at most). */
export const KEPT_VERSIONS = 50;

export interface DraftRecord {
  id: string;
  organisationId: string;
  marcheId: string | null;
  responseFileId: string | null;
  kind: DraftKind;
  title: string;
  body: string;
  version: number;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

export interface DraftVersionRecord {
  version: number;
  title: string;
  body: string;
  writtenBy: string;
  writtenAt: string;
}

function toRow(d: DraftRecord): Record<string, unknown> {
  return {
    id: d.id,
    organisation_id: d.organisationId,
    marche_id: d.marcheId,
    response_file_id: d.responseFileId,
    kind: d.kind,
    title: d.title,
    body: d.body,
    version: d.version,
    created_by: d.createdBy,
    created_at: d.createdAt,
    updated_by: d.updatedBy,
    updated_at: d.updatedAt,
  };
}

function fromRow(r: Record<string, unknown>): DraftRecord {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    marcheId: (r.marche_id as string | null) ?? null,
    responseFileId: (r.response_file_id as string | null) ?? null,
    kind: r.kind as DraftKind,
    title: r.title as string,
    body: r.body as string,
    version: Number(r.version),
    createdBy: r.created_by as string,
    createdAt: r.created_at as string,
    updatedBy: r.updated_by as string,
    updatedAt: r.updated_at as string,
  };
}

const versionRow = (d: DraftRecord) => ({ draft_id: d.id, version: d.version, title: d.title, body: d.body, written_by: d.updatedBy, written_at: d.updatedAt });

export async function insertDraft(db: Database, d: DraftRecord): Promise<void> {
  await db.transaction(async (trx) => {
    await trx('drafts').insert(toRow(d));
    await trx('draft_versions').insert(versionRow(d));
  });
}

export async function findDraft(db: Database, organisationId: string, id: string): Promise<DraftRecord | undefined> {
  const row = await db('drafts').where({ organisation_id: organisationId, id }).first();
  return row ? fromRow(row) : undefined;
}

/** Writes the new version if the stored one is still `expectedVersion`, keeps it in the history and drops the oldest beyond `KEPT_VERSIONS`; false when another write came first. */
export async function updateDraft(db: Database, next: DraftRecord, expectedVersion: number): Promise<boolean> {
  return db.transaction(async (trx) => {
    const n = await trx('drafts')
      .where({ id: next.id, organisation_id: next.organisationId, version: expectedVersion })
      .update({ kind: next.kind, title: next.title, body: next.body, version: next.version, updated_by: next.updatedBy, updated_at: next.updatedAt });
    if (!n) return false;
    await trx('draft_versions').insert(versionRow(next));
    await trx('draft_versions').where('draft_id', next.id).andWhere('version', '<=', next.version - KEPT_VERSIONS).delete();
    return true;
  });
}

/** Deletes the draft and its versions in one transaction: the draft as it was and how many versions went; undefined when the organisation has none with this id. */
export async function deleteDraft(db: Database, organisationId: string, id: string): Promise<{ draft: DraftRecord; versions: number } | undefined> {
  return db.transaction(async (trx) => {
    const row = await trx('drafts').where({ organisation_id: organisationId, id }).first();
    if (!row) return undefined;
    const versions = await trx('draft_versions').where('draft_id', id).delete();
    await trx('drafts').where({ organisation_id: organisationId, id }).delete();
    return { draft: fromRow(row), versions };
  });
}

export interface DraftFilters {
  marcheId?: string;
  responseFileId?: string;
  kind?: string;
}

type Page = { offset: number; limit: number; countCap: number };

/** One page of the organisation's drafts, last changed first, and one row more to know if there are others. */
export async function listDrafts(db: Database, organisationId: string, filters: DraftFilters, page: Page): Promise<{ records: DraftRecord[]; hasMore: boolean; total: number }> {
  const base = db('drafts').where('organisation_id', organisationId);
  if (filters.marcheId) base.where('marche_id', filters.marcheId);
  if (filters.responseFileId) base.where('response_file_id', filters.responseFileId);
  if (filters.kind) base.where('kind', filters.kind);
  const counted = await base.clone().count({ n: '*' }).first();
  const rows = await base
    .clone()
    .orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset(page.offset)
    .limit(page.limit + 1);
  return { records: rows.slice(0, page.limit).map(fromRow), hasMore: rows.length > page.limit, total: Number(counted?.n ?? 0) };
}

/** One page of a draft's kept versions, newest first. */
export async function listVersions(db: Database, draftId: string, page: Page): Promise<{ records: DraftVersionRecord[]; hasMore: boolean; total: number }> {
  const base = db('draft_versions').where('draft_id', draftId);
  const counted = await base.clone().count({ n: '*' }).first();
  const rows = await base.clone().orderBy('version', 'desc').offset(page.offset).limit(page.limit + 1);
  return {
    records: rows.slice(0, page.limit).map((r: Record<string, unknown>) => ({
      version: Number(r.version),
      title: r.title as string,
      body: r.body as string,
      writtenBy: r.written_by as string,
      writtenAt: r.written_at as string,
    })),
    hasMore: rows.length > page.limit,
    total: Number(counted?.n ?? 0),
  };
}
