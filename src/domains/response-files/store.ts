// Response files of an organisation and the documents attached to their items. Every read
// and write is scoped by organisation_id in the query itself (another organisation's id
// finds nothing: 404, never a hint it exists); an update rewrites the file under the
// version read and its documents in the same transaction (all or nothing).
import type { Database } from '../../platform/db/database.js';

export const ITEM_STATUSES = ['a_fournir', 'en_cours', 'pret', 'sans_objet'] as const;
export type ItemStatus = (typeof ITEM_STATUSES)[number];
export type OriginKind = 'rc' | 'dce' | 'defaut' | 'ajout';

export interface ChecklistItem {
  id: string;
  label: string;
  code: string | null;
  status: ItemStatus;
  origin: { kind: OriginKind; piece: string | null; page: number | null; excerpt: string | null };
}

export interface ResponseFileRecord {
  id: string;
  organisationId: string;
  marcheId: string;
  title: string;
  sourceKind: 'rc' | 'defaut';
  sourceDceId: string | null;
  sourceRc: string | null;
  items: ChecklistItem[];
  nextItem: number;
  version: number;
  createdBy: string;
  createdAt: string;
  updatedBy: string;
  updatedAt: string;
}

export interface DocumentRecord {
  id: string;
  responseFileId: string;
  itemId: string;
  /** Attachment order within the file; set when stored. */
  seq: number;
  filename: string;
  contentType: string;
  size: number;
  objectKey: string;
  createdBy: string;
  createdAt: string;
}

function toRow(f: ResponseFileRecord): Record<string, unknown> {
  return {
    id: f.id,
    organisation_id: f.organisationId,
    marche_id: f.marcheId,
    title: f.title,
    source_kind: f.sourceKind,
    source_dce_id: f.sourceDceId,
    source_rc: f.sourceRc,
    items: JSON.stringify(f.items),
    next_item: f.nextItem,
    version: f.version,
    created_by: f.createdBy,
    created_at: f.createdAt,
    updated_by: f.updatedBy,
    updated_at: f.updatedAt,
  };
}

function fromRow(r: Record<string, unknown>): ResponseFileRecord {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    marcheId: r.marche_id as string,
    title: r.title as string,
    sourceKind: r.source_kind as 'rc' | 'defaut',
    sourceDceId: (r.source_dce_id as string | null) ?? null,
    sourceRc: (r.source_rc as string | null) ?? null,
    items: JSON.parse(r.items as string) as ChecklistItem[],
    nextItem: Number(r.next_item),
    version: Number(r.version),
    createdBy: r.created_by as string,
    createdAt: r.created_at as string,
    updatedBy: r.updated_by as string,
    updatedAt: r.updated_at as string,
  };
}

const documentRow = (d: DocumentRecord) => ({
  id: d.id,
  response_file_id: d.responseFileId,
  item_id: d.itemId,
  seq: d.seq,
  filename: d.filename,
  content_type: d.contentType,
  size: d.size,
  object_key: d.objectKey,
  created_by: d.createdBy,
  created_at: d.createdAt,
});

function documentFromRow(r: Record<string, unknown>): DocumentRecord {
  return {
    id: r.id as string,
    responseFileId: r.response_file_id as string,
    itemId: r.item_id as string,
    seq: Number(r.seq),
    filename: r.filename as string,
    contentType: r.content_type as string,
    size: Number(r.size),
    objectKey: r.object_key as string,
    createdBy: r.created_by as string,
    createdAt: r.created_at as string,
  };
}

/** Inserts the file; the existing one when the organisation already has a file for that notice. */
export async function insertResponseFile(db: Database, f: ResponseFileRecord): Promise<{ inserted: true } | { inserted: false; existingId: string }> {
  const done = await db('response_files').insert(toRow(f)).onConflict(['organisation_id', 'marche_id']).ignore().returning('id');
  if (done.length) return { inserted: true };
  const existing = await db('response_files').where({ organisation_id: f.organisationId, marche_id: f.marcheId }).first('id');
  if (!existing) throw new Error('dossier disparu pendant sa création');
  return { inserted: false, existingId: existing.id as string };
}

export async function findResponseFile(db: Database, organisationId: string, id: string): Promise<ResponseFileRecord | undefined> {
  const row = await db('response_files').where({ organisation_id: organisationId, id }).first();
  return row ? fromRow(row) : undefined;
}

/** The notice of one of the organisation's response files; undefined when it has none with this id. */
export async function responseFileNotice(db: Database, organisationId: string, id: string): Promise<string | undefined> {
  const row = await db('response_files').where({ organisation_id: organisationId, id }).first('marche_id');
  return (row?.marche_id as string | undefined) ?? undefined;
}

/** The documents of these files, in the order they were attached. */
export async function documentsOf(db: Database, fileIds: string[]): Promise<DocumentRecord[]> {
  if (!fileIds.length) return [];
  const rows = await db('response_file_documents').whereIn('response_file_id', fileIds).orderBy([{ column: 'response_file_id' }, { column: 'seq' }]);
  return rows.map(documentFromRow);
}

/**
 * Writes the new state if the stored version is still `expectedVersion`, with the documents
 * added and removed, in one transaction; false when another write came first.
 */
export async function updateResponseFile(db: Database, next: ResponseFileRecord, expectedVersion: number, added: DocumentRecord[], removedIds: string[]): Promise<boolean> {
  return db.transaction(async (trx) => {
    const n = await trx('response_files')
      .where({ id: next.id, organisation_id: next.organisationId, version: expectedVersion })
      .update({ title: next.title, items: JSON.stringify(next.items), next_item: next.nextItem, version: next.version, updated_by: next.updatedBy, updated_at: next.updatedAt });
    if (!n) return false;
    if (removedIds.length) await trx('response_file_documents').where('response_file_id', next.id).whereIn('id', removedIds).delete();
    if (added.length) {
      // Numbered after the file's last document: the version check above serialises writers of one file.
      const last = await trx('response_file_documents').where('response_file_id', next.id).max({ n: 'seq' }).first();
      const start = Number(last?.n ?? 0) + 1;
      await trx('response_file_documents').insert(added.map((d, i) => documentRow({ ...d, seq: start + i })));
    }
    return true;
  });
}

type Page = { offset: number; limit: number; countCap: number };

/** One page of the organisation's response files, last changed first, and one row more to know if there are others. */
export async function listResponseFiles(db: Database, organisationId: string, marcheId: string | undefined, page: Page): Promise<{ records: ResponseFileRecord[]; hasMore: boolean; total: number }> {
  const base = db('response_files').where('organisation_id', organisationId);
  if (marcheId) base.where('marche_id', marcheId);
  const counted = await base.clone().count({ n: '*' }).first();
  const rows = await base
    .clone()
    .orderBy([{ column: 'updated_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset(page.offset)
    .limit(page.limit + 1);
  return { records: rows.slice(0, page.limit).map(fromRow), hasMore: rows.length > page.limit, total: Number(counted?.n ?? 0) };
}

/** A file by id only, for its export link (the link was signed for a member of its organisation). */
export async function responseFileById(db: Database, id: string): Promise<ResponseFileRecord | undefined> {
  const row = await db('response_files').where('id', id).first();
  return row ? fromRow(row) : undefined;
}
