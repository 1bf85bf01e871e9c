// Attaching a consultation file: its archives and files are staged (streamed to a temporary
// folder, hashed on the way, every archive checked before anything is kept), each piece's
// text extracted in the extraction thread, then the pieces are put in the object store and
// the file written in one transaction. The same content imported again changes nothing; a
// new content replaces the old as the next version, dated. A refused piece (hostile archive,
// encrypted or corrupt document) refuses the whole import: nothing is stored half.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Database } from '../../platform/db/database.js';
import { ArchiveError, ARCHIVE_LIMITS, readArchive, type ArchiveLimits } from '../../platform/files/archive.js';
import { stageStream, type ObjectStore, type StoredObject } from '../../platform/files/object-store.js';
import { ExtractionError, formatOf } from '../../platform/extract/document-text.js';
import type { Extractor } from '../../platform/extract/extractor.js';
import { documentText, readingPages } from '../../platform/extract/reading-pages.js';
import { deleteSearchDocuments, upsertSearchDocuments } from '../../platform/search/full-text.js';
import { maskContactDetails } from '../../import/contact-details.js';
import { contentTypeOf, docTypeOf, lotOf } from './doc-types.js';
import { DCE_SEARCH, pageKey } from './search-index.js';

/** Why an import is refused, in French: the file at fault and the reason. */
export class DceImportError extends Error {}

export interface DceImportLimits extends ArchiveLimits {
  /** Bytes of one file given (an archive or a piece). */
  maxFileBytes: number;
  /** Pieces of one consultation file. */
  maxPieces: number;
}

export const DCE_IMPORT_LIMITS: Readonly<DceImportLimits> = { ...ARCHIVE_LIMITS, maxFileBytes: 500 * 1024 * 1024, maxPieces: 500 };

/** A file given to the import: an archive or a piece, and the name the piece keeps (its path in a folder given). */
export interface DceInput {
  path: string;
  name: string;
}

/** Whom the file belongs to: a notice by its marche_id (must exist) or annonce_id (matched now or later), or nobody. */
export type DceTarget = { marcheId: string } | { annonceId: string } | null;

export interface DceImportReport {
  id: string;
  outcome: 'added' | 'replaced' | 'unchanged';
  version: number;
  marcheId: string | null;
  pieces: { filename: string; docType: string; lot: number | null; readingPages: number; scannedPages: number }[];
  bytes: number;
  /** Contact details (telephone numbers, e-mail and web addresses) masked in the pieces' text. */
  contactDetailsMasked: number;
}

interface StagedPiece {
  filename: string;
  path: string;
  object: StoredObject;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `-` for none, a UUID for a marche_id, anything else for an annonce_id. */
export function parseTarget(given: string): DceTarget {
  const value = given.trim();
  if (value === '-') return null;
  if (UUID.test(value)) return { marcheId: value.toLowerCase() };
  if (!value || value.length > 100 || /\p{Cc}/u.test(value)) throw new DceImportError(`identifiant d'avis invalide : « ${value.slice(0, 100)} » (un marche_id, un annonce_id ou « - »)`);
  return { annonceId: value };
}

/** Stages every piece of the inputs: archives unpacked (one level of archive inside an archive), plain files as they are. */
async function stagePieces(inputs: readonly DceInput[], staging: string, limits: DceImportLimits): Promise<StagedPiece[]> {
  const pieces: StagedPiece[] = [];
  const add = (piece: StagedPiece) => {
    if (pieces.some((p) => p.filename === piece.filename)) throw new DceImportError(`deux pièces portent le même nom : « ${piece.filename} »`);
    pieces.push(piece);
    if (pieces.length > limits.maxPieces) throw new DceImportError(`plus de ${limits.maxPieces} pièces dans le dossier`);
  };
  const unpack = async (archive: string, label: string, prefix: string, depth: number): Promise<void> => {
    const { entries, close } = await readArchive(archive, label, limits);
    try {
      for (const entry of entries) {
        const name = `${prefix}${entry.name}`;
        if (/\.zip$/i.test(entry.name)) {
          if (depth >= 1) throw new DceImportError(`${label} : l'archive « ${entry.name} » est dans une archive elle-même dans une archive (un seul niveau admis)`);
          const inner = await stageStream(await entry.open(), staging, limits.maxEntryBytes);
          await unpack(inner.path, `${label} › ${entry.name}`, `${name.replace(/\.zip$/i, '')}/`, depth + 1);
          continue;
        }
        const staged = await stageStream(await entry.open(), staging, limits.maxEntryBytes).catch((err: unknown) => {
          // yauzl checks the real size against the declared one: a lying entry fails here.
          throw new DceImportError(`${label} : l'entrée « ${entry.name} » est illisible (${err instanceof RangeError ? 'plus grande que déclarée' : 'données corrompues'})`);
        });
        add({ filename: name, ...staged });
      }
    } finally {
      close();
    }
  };
  for (const input of inputs) {
    let size: number;
    try {
      const info = await stat(input.path);
      if (!info.isFile()) throw new Error('not a file');
      size = info.size;
    } catch {
      throw new DceImportError(`fichier introuvable ou illisible : ${input.name}`);
    }
    if (size > limits.maxFileBytes) throw new DceImportError(`${input.name} : ${size} octets, plus que les ${limits.maxFileBytes} admis`);
    // An archive in a folder given unpacks under the folder's path (« Lot 2/lot2.zip » → « Lot 2/… »).
    const folder = input.name.includes('/') ? `${input.name.slice(0, input.name.lastIndexOf('/'))}/` : '';
    if (/\.zip$/i.test(input.name)) await unpack(input.path, input.name, folder, 0);
    else add({ filename: input.name, ...(await stageStream(createReadStream(input.path), staging, limits.maxFileBytes)) });
  }
  if (!pieces.length) throw new DceImportError('aucune pièce à importer (archive vide ?)');
  return pieces;
}

/** The content's identity: the pieces' names and bytes, in name order. */
function contentSha(pieces: readonly StagedPiece[]): string {
  const hash = createHash('sha256');
  for (const p of [...pieces].sort((a, b) => (a.filename < b.filename ? -1 : 1))) hash.update(`${p.filename}\u0000${p.object.key}\n`);
  return hash.digest('hex');
}

export async function importDce(
  deps: { db: Database; store: ObjectStore; extractor: Extractor; now: () => Date },
  target: DceTarget,
  given: readonly (string | DceInput)[],
  limits: DceImportLimits = DCE_IMPORT_LIMITS,
): Promise<DceImportReport> {
  const { db, store, extractor } = deps;
  const inputs: DceInput[] = given.map((g) => (typeof g === 'string' ? { path: g, name: basename(g) } : g));
  let marcheId: string | null = null;
  let annonceId: string | null = null;
  if (target && 'marcheId' in target) {
    const notice = await db('notices').where('marche_id', target.marcheId).first('marche_id', 'annonce_id');
    if (!notice) throw new DceImportError(`aucun avis de marche_id ${target.marcheId} : importer l'avis d'abord, ou donner « - »`);
    marcheId = notice.marche_id;
    annonceId = notice.annonce_id;
  } else if (target) {
    annonceId = target.annonceId;
    marcheId = ((await db('notices').where('annonce_id', annonceId).first('marche_id')) as { marche_id: string } | undefined)?.marche_id ?? null;
  }
  const staging = await mkdtemp(join(tmpdir(), 'dce-import-'));
  try {
    let pieces: StagedPiece[];
    try {
      pieces = await stagePieces(inputs, staging, limits);
    } catch (err) {
      if (err instanceof ArchiveError) throw new DceImportError(err.message);
      throw err;
    }
    const sha = contentSha(pieces);
    const existing = (await (annonceId ? db('dce_files').where('annonce_id', annonceId) : db('dce_files').whereNull('annonce_id').andWhere('content_sha', sha)).first(
      'id',
      'version',
      'content_sha',
    )) as { id: string; version: number; content_sha: string } | undefined;
    const label = inputs.map((i) => i.name).join(', ').slice(0, 300);
    let contactDetailsMasked = 0;
    const summary = async (id: string, outcome: DceImportReport['outcome'], version: number): Promise<DceImportReport> => {
      const rows = await db('dce_pieces').where('dce_id', id).orderBy('position').select('filename', 'doc_type', 'lot', 'reading_pages', 'scanned_pages');
      return {
        id,
        outcome,
        version,
        marcheId,
        bytes: pieces.reduce((n, p) => n + p.object.size, 0),
        contactDetailsMasked,
        pieces: rows.map((r) => ({ filename: r.filename, docType: r.doc_type, lot: r.lot === null ? null : Number(r.lot), readingPages: Number(r.reading_pages), scannedPages: Number(r.scanned_pages) })),
      };
    };
    if (existing && existing.content_sha === sha) return summary(existing.id, 'unchanged', Number(existing.version));

    // Text of every piece, in the extraction thread, before anything is kept.
    const extracted: { piece: StagedPiece; format: ReturnType<typeof formatOf>; pages: string[]; sourcePages: number; scanned: number }[] = [];
    for (const piece of pieces) {
      const format = formatOf(piece.filename);
      let pages: string[] = [];
      let sourcePages = 0;
      let scanned = 0;
      if (format) {
        try {
          const document = await extractor.extract(piece.path, format);
          // The buyer's telephone numbers, e-mail and web addresses never enter the text kept
          // (nor the search index): the piece itself stays the buyer's exact bytes.
          const { text, masked } = maskContactDetails(documentText(document.pages));
          contactDetailsMasked += masked;
          pages = readingPages(text);
          sourcePages = document.pages.length;
          scanned = document.pages.filter((p) => p.scanned).length;
        } catch (err) {
          if (err instanceof ExtractionError) throw new DceImportError(`${piece.filename} : ${err.message}`);
          throw err;
        }
      }
      extracted.push({ piece, format, pages, sourcePages, scanned });
    }
    for (const piece of pieces) await store.put(piece.path, piece.object);

    const id = existing?.id ?? randomUUID();
    const version = existing ? Number(existing.version) + 1 : 1;
    const now = deps.now().toISOString();
    await db.transaction(async (trx) => {
      if (existing) {
        const oldKeys = (await trx('dce_pages').where('dce_id', id).select('position', 'page')).map((r: { position: number; page: number }) => pageKey(id, Number(r.position), Number(r.page)));
        await deleteSearchDocuments(trx, DCE_SEARCH, oldKeys);
        await trx('dce_pages').where('dce_id', id).delete();
        await trx('dce_pieces').where('dce_id', id).delete();
        // A new version is new: it enters again (the alert robot reads by ingested_at).
        await trx('dce_files').where('id', id).update({ marche_id: marcheId, label, version, content_sha: sha, pieces: pieces.length, bytes: pieces.reduce((n, p) => n + p.object.size, 0), ingested_at: now, updated_at: now });
      } else {
        await trx('dce_files').insert({ id, marche_id: marcheId, annonce_id: annonceId, label, version, content_sha: sha, pieces: pieces.length, bytes: pieces.reduce((n, p) => n + p.object.size, 0), ingested_at: now, updated_at: now });
      }
      const ordered = [...extracted].sort((a, b) => (a.piece.filename < b.piece.filename ? -1 : 1));
      const pieceRows = ordered.map((e, position) => ({
        dce_id: id,
        position,
        filename: e.piece.filename,
        doc_type: docTypeOf(e.piece.filename, e.pages[0] ?? ''),
        lot: lotOf(e.piece.filename),
        content_type: contentTypeOf(e.piece.filename),
        size: e.piece.object.size,
        object_key: e.piece.object.key,
        source_pages: e.sourcePages,
        scanned_pages: e.scanned,
        reading_pages: e.format ? e.pages.length : 0,
      }));
      for (let i = 0; i < pieceRows.length; i += 50) await trx('dce_pieces').insert(pieceRows.slice(i, i + 50));
      const pageRows = ordered.flatMap((e, position) => (e.format ? e.pages.map((text, n) => ({ dce_id: id, position, page: n + 1, search_key: pageKey(id, position, n + 1), text })) : []));
      for (let i = 0; i < pageRows.length; i += 100) await trx('dce_pages').insert(pageRows.slice(i, i + 100));
      await upsertSearchDocuments(
        trx,
        DCE_SEARCH,
        pageRows.map((p) => ({ key: p.search_key, fields: { texte: p.text, piece: (pieceRows[p.position]?.filename ?? '').replace(/[_.\-/]+/g, ' ') } })),
      );
    });
    return summary(id, existing ? 'replaced' : 'added', version);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
