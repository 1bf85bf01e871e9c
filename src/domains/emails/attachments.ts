// Attachments of a send: documents of the organisation's response files, named by the
// caller, checked when the send is recorded (found in the organisation, within the size
// limit) and read from the object store only when the message is delivered.
import type { Readable } from 'node:stream';
import { InvalidArgumentsError, NotFoundError } from '../../errors.js';
import type { Database } from '../../platform/db/database.js';
import { ObjectMissingError, type ObjectStore } from '../../platform/files/object-store.js';
import { MAX_ATTACHMENT_BYTES } from './rules.js';
import type { AttachmentRecord } from './store.js';

export interface AttachmentRef {
  dossier_id: string;
  document_id: string;
}

const MIB = 1024 * 1024;
/** Sizes as the caller reads them: « 10,4 Mio ». */
export const mebibytes = (bytes: number) => `${(Math.ceil((bytes / MIB) * 10) / 10).toLocaleString('fr-FR')} Mio`;

/**
 * The documents named, in the order given (a document named twice is joined once). Another
 * organisation's document is looked up with the caller's organisation in the query itself:
 * it is not found, exactly like an unknown one.
 */
export async function resolveAttachments(db: Database, organisationId: string, refs: readonly AttachmentRef[]): Promise<AttachmentRecord[]> {
  const wanted: { fileId: string; documentId: string; index: number }[] = [];
  const seen = new Set<string>();
  refs.forEach((ref, index) => {
    const fileId = ref.dossier_id.trim().toLowerCase();
    const documentId = ref.document_id.trim().toLowerCase();
    if (seen.has(`${fileId}/${documentId}`)) return;
    seen.add(`${fileId}/${documentId}`);
    wanted.push({ fileId, documentId, index });
  });
  if (!wanted.length) return [];
  const rows = (await db('response_file_documents as d')
    .join('response_files as f', 'f.id', 'd.response_file_id')
    .where('f.organisation_id', organisationId)
    .whereIn(
      'd.id',
      wanted.map((w) => w.documentId),
    )
    .select(['d.id', 'd.response_file_id', 'd.filename', 'd.content_type', 'd.size', 'd.object_key'])) as Record<string, unknown>[];
  const byId = new Map(rows.map((r) => [r.id as string, r]));
  const out = wanted.map((w) => {
    const row = byId.get(w.documentId);
    if (!row || row.response_file_id !== w.fileId)
      throw new NotFoundError(`Pièce jointe introuvable dans les dossiers de réponse de l'organisation (pieces_jointes[${w.index}]).`);
    return {
      responseFileId: w.fileId,
      documentId: w.documentId,
      filename: row.filename as string,
      contentType: row.content_type as string,
      size: Number(row.size),
      objectKey: row.object_key as string,
    };
  });
  const total = out.reduce((sum, a) => sum + a.size, 0);
  if (total > MAX_ATTACHMENT_BYTES)
    throw new InvalidArgumentsError(
      `Pièces jointes trop volumineuses : ${mebibytes(total)} (${total} octets) au total, ${mebibytes(MAX_ATTACHMENT_BYTES)} au plus par message (argument « pieces_jointes »).`,
    );
  return out;
}

async function bytesOf(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** An attachment whose bytes left the object store: the message cannot be sent as asked. */
export class AttachmentMissingError extends Error {
  constructor(readonly filename: string) {
    super('pièce jointe absente du stockage');
  }
}

/** The attachments' bytes, for nodemailer; `AttachmentMissingError` when one is no longer kept. */
export async function readAttachments(store: ObjectStore, attachments: readonly AttachmentRecord[]): Promise<{ filename: string; contentType: string; content: Buffer }[]> {
  const out: { filename: string; contentType: string; content: Buffer }[] = [];
  // One at a time: at most 10 MiB in memory, the store never asked for ten objects at once.
  for (const a of attachments) {
    let stream: Readable;
    try {
      stream = await store.open(a.objectKey);
    } catch (err) {
      if (err instanceof ObjectMissingError) throw new AttachmentMissingError(a.filename);
      throw err;
    }
    out.push({ filename: a.filename, contentType: a.contentType, content: await bytesOf(stream) });
  }
  return out;
}
