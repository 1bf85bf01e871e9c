// Response files (issue 16): for one notice, the checklist of what the organisation must
// provide, read in the consultation file's RC (each item says which RC page named it) or a
// default list; items renamed, added, removed, moved through their statuses; the
// organisation's own documents attached to items (kept in the consultation files' object
// store); an export link to one zip of the checklist and the documents.
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '../../access/caller.js';
import { ConflictError, InvalidArgumentsError, NotFoundError } from '../../errors.js';
import { parisIso, parisIsoOf } from '../../platform/paris-time.js';
import { pagedSearch } from '../../platform/search/cursor.js';
import type { Database } from '../../platform/db/database.js';
import type { ObjectStore } from '../../platform/files/object-store.js';
import type { Services } from '../context.js';
import { contentTypeOf } from '../dce/doc-types.js';
import { piecesOf, pagesOf } from '../dce/store.js';
import { noticeById } from '../notices/store.js';
import type { HandlerMap, OperationArgs, OperationResults } from '../../../generated/handler-map.js';
import { DEFAULT_CODES, defaultChecklist, formsOfDce, piecesNamedByRc, type Draft, type ItemCode } from './checklist.js';
import { EXPORT_LINK_PATH, EXPORT_LINK_TTL_SECONDS, safeName, signExportLink, STATUS_LABELS } from './export.js';
import {
  documentsOf,
  findResponseFile,
  insertResponseFile,
  listResponseFiles,
  updateResponseFile,
  type ChecklistItem,
  type DocumentRecord,
  type ResponseFileRecord,
} from './store.js';

type ResponseFileActions = Pick<HandlerMap<Caller>, 'dossiers.create' | 'dossiers.get' | 'dossiers.list' | 'dossiers.update' | 'dossiers.export'>;
type ResponseFileOut = OperationResults['dossiers.get']['dossier'];

export const MAX_ITEMS = 100;
export const MAX_DOCUMENTS = 50;
/** 2 MiB decoded: its base64 (about 2.7 MiB) still fits the 3 MiB request body. */
export const MAX_DOCUMENT_BYTES = 2 * 1024 * 1024;

const fileId = (id: string) => id.trim().toLowerCase();
const notFound = () => new NotFoundError(`Dossier de réponse introuvable dans l'organisation.`);

/** The notice's consultation file (the newest when several), its RC read: the checklist, and where it came from. */
async function readChecklist(db: Database, marcheId: string): Promise<{ drafts: Draft[]; kind: 'rc' | 'defaut'; dceId: string | null; rc: string | null }> {
  const file = (await db('dce_files').where('marche_id', marcheId).orderBy('updated_at', 'desc').first('id')) as { id: string } | undefined;
  if (!file) return { drafts: defaultChecklist(), kind: 'defaut', dceId: null, rc: null };
  const pieces = await piecesOf(db, file.id);
  const rc = pieces.find((p) => p.doc_type === 'rc');
  const named = rc ? piecesNamedByRc(rc.filename, (await pagesOf(db, file.id)).filter((p) => p.position === rc.position)) : [];
  // An RC naming nothing we know (a scan without text, say) gives the default list, its name kept.
  if (!named.length) return { drafts: [...defaultChecklist(), ...formsOfDce(pieces, new Set(DEFAULT_CODES))], kind: 'defaut', dceId: file.id, rc: rc?.filename ?? null };
  const codes = new Set(named.map((d) => d.code).filter((c): c is ItemCode => c !== null));
  return { drafts: [...named, ...formsOfDce(pieces, codes)], kind: 'rc', dceId: file.id, rc: rc?.filename ?? null };
}

/** The files as answered: items with their documents and counts, the notice read now. */
async function present(db: Database, records: ResponseFileRecord[]): Promise<ResponseFileOut[]> {
  const [documents, notices] = await Promise.all([
    documentsOf(
      db,
      records.map((f) => f.id),
    ),
    records.length ? db('notices').whereIn('marche_id', [...new Set(records.map((f) => f.marcheId))]).select(['marche_id', 'objet', 'date_limite']) : Promise.resolve([]),
  ]);
  const byNotice = new Map(notices.map((n: Record<string, unknown>) => [n.marche_id as string, n]));
  return records.map((f) => {
    const notice = byNotice.get(f.marcheId);
    const mine = documents.filter((d) => d.responseFileId === f.id);
    const count = (status: ChecklistItem['status']) => f.items.filter((i) => i.status === status).length;
    return {
      id: f.id,
      marche_id: f.marcheId,
      avis: { present: notice !== undefined, objet: (notice?.objet as string | null | undefined) ?? null, date_limite: parisIsoOf(notice?.date_limite as string | null | undefined) },
      titre: f.title,
      source: { type: f.sourceKind, dce_id: f.sourceDceId, rc: f.sourceRc },
      pieces: f.items.map((i) => ({
        id: i.id,
        libelle: i.label,
        code: i.code,
        statut: i.status,
        statut_libelle: STATUS_LABELS[i.status] as string,
        origine: { type: i.origin.kind, piece: i.origin.piece, page: i.origin.page, extrait: i.origin.excerpt },
        documents: mine
          .filter((d) => d.itemId === i.id)
          .map((d) => ({ id: d.id, nom: d.filename, taille: d.size, content_type: d.contentType, ajoute_par: d.createdBy, ajoute_le: parisIso(new Date(d.createdAt)) })),
      })),
      compteurs: { a_fournir: count('a_fournir'), en_cours: count('en_cours'), pret: count('pret'), sans_objet: count('sans_objet'), documents: mine.length },
      version: f.version,
      cree_par: f.createdBy,
      cree_le: parisIso(new Date(f.createdAt)),
      modifie_par: f.updatedBy,
      modifie_le: parisIso(new Date(f.updatedAt)),
    };
  });
}

/** The document's bytes from base64, refused when it is not base64, empty, too large or of a type DCE pieces cannot have. */
function decodeDocument(name: string, content: string, index: number): { bytes: Buffer; contentType: string } {
  const where = `joindre[${index}]`;
  const contentType = contentTypeOf(name);
  if (contentType === 'application/octet-stream')
    throw new InvalidArgumentsError(`L'argument « ${where}.nom » (« ${name.slice(0, 100)} ») n'a pas une extension admise : pdf, docx, xlsx, odt, ods, doc, xls, txt, csv, dwg, dxf, jpg, jpeg, png, zip.`);
  const compact = content.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1)
    throw new InvalidArgumentsError(`L'argument « ${where}.contenu_base64 » n'est pas du base64.`);
  const bytes = Buffer.from(compact, 'base64');
  if (!bytes.length) throw new InvalidArgumentsError(`L'argument « ${where}.contenu_base64 » est vide.`);
  if (bytes.length > MAX_DOCUMENT_BYTES)
    throw new InvalidArgumentsError(`Le document « ${where} » fait ${bytes.length} octets : un document joint en admet ${MAX_DOCUMENT_BYTES} (2 Mio) au plus.`);
  return { bytes, contentType };
}

/** Keeps the bytes in the object store (by SHA-256, like consultation files' pieces). */
async function keep(store: ObjectStore, bytes: Buffer): Promise<string> {
  const key = createHash('sha256').update(bytes).digest('hex');
  if (await store.has(key)) return key;
  const dir = await mkdtemp(join(tmpdir(), 'dossier-'));
  try {
    const path = join(dir, 'document');
    await writeFile(path, bytes);
    await store.put(path, { key, size: bytes.length });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  return key;
}

/** A label trimmed; a blank one is refused, naming the argument. */
function labelOf(value: string, argument: string): string {
  const label = value.trim();
  if (!label) throw new InvalidArgumentsError(`L'argument « ${argument} » est vide.`);
  return label;
}

const unknownItem = (argument: string, id: string) => new InvalidArgumentsError(`L'argument « ${argument} » désigne une pièce absente du dossier : « ${id} » (voir les « id » de « pieces »).`);

/** The new checklist after the update's item changes, checked against the limits; the documents to detach with removed items. */
function applyItemChanges(file: ResponseFileRecord, args: OperationArgs['dossiers.update']): { items: ChecklistItem[]; nextItem: number; removedItems: Set<string> } {
  let items = file.items.map((i) => ({ ...i, origin: { ...i.origin } }));
  const removedItems = new Set<string>();
  for (const id of args.retirer ?? []) {
    if (!items.some((i) => i.id === id)) throw unknownItem('retirer', id);
    removedItems.add(id);
    items = items.filter((i) => i.id !== id);
  }
  (args.modifier ?? []).forEach((change, index) => {
    const item = items.find((i) => i.id === change.piece);
    if (!item) throw unknownItem(`modifier[${index}].piece`, change.piece);
    if (change.libelle !== undefined) item.label = labelOf(change.libelle, `modifier[${index}].libelle`);
    if (change.statut !== undefined) item.status = change.statut;
  });
  let nextItem = file.nextItem;
  for (const [index, added] of (args.ajouter ?? []).entries()) {
    items.push({ id: `p${nextItem++}`, label: labelOf(added.libelle, `ajouter[${index}].libelle`), code: null, status: added.statut ?? 'a_fournir', origin: { kind: 'ajout', piece: null, page: null, excerpt: null } });
  }
  if (items.length > MAX_ITEMS) throw new InvalidArgumentsError(`Un dossier de réponse a ${MAX_ITEMS} pièces au plus : celui-ci en aurait ${items.length}.`);
  return { items, nextItem, removedItems };
}

export function responseFileActions({ db, now, cursorKey, publicUrl, dceLinkKey, dceStore }: Services): ResponseFileActions {
  const presentOne = async (f: ResponseFileRecord) => (await present(db, [f]))[0] as ResponseFileOut;
  return {
    'dossiers.create': async (args, caller) => {
      // Writes have been checked to have an organisation (call path).
      const organisationId = caller.organisationId as string;
      const notice = await noticeById(db, args.marche_id.trim());
      if (!notice) throw new NotFoundError(`Avis de marché introuvable : « ${args.marche_id.trim().slice(0, 100)} ».`);
      const checklist = await readChecklist(db, notice.marche_id);
      const at = now().toISOString();
      const record: ResponseFileRecord = {
        id: randomUUID(),
        organisationId,
        marcheId: notice.marche_id,
        title: (args.titre !== undefined ? labelOf(args.titre, 'titre') : notice.objet || `Réponse à l'avis ${notice.marche_id}`).slice(0, 200),
        sourceKind: checklist.kind,
        sourceDceId: checklist.dceId,
        sourceRc: checklist.rc,
        items: checklist.drafts.slice(0, MAX_ITEMS).map((d, i) => ({ id: `p${i + 1}`, label: d.label, code: d.code, status: 'a_fournir', origin: d.origin })),
        nextItem: Math.min(checklist.drafts.length, MAX_ITEMS) + 1,
        version: 1,
        createdBy: caller.accountId,
        createdAt: at,
        updatedBy: caller.accountId,
        updatedAt: at,
      };
      const outcome = await insertResponseFile(db, record);
      if (!outcome.inserted)
        throw new ConflictError(`L'organisation a déjà un dossier de réponse pour cet avis (dossier ${outcome.existingId}) : le modifier plutôt que le recréer.`);
      return { action: 'creation', dossier: await presentOne(record) };
    },
    'dossiers.get': async (args, caller) => {
      const file = caller.organisationId ? await findResponseFile(db, caller.organisationId, fileId(args.id)) : undefined;
      if (!file) throw notFound();
      return { action: 'lecture', dossier: await presentOne(file) };
    },
    'dossiers.list': async (args, caller) => {
      if (!caller.organisationId) return { action: 'list', total: 0, items: [], next_cursor: null };
      const organisationId = caller.organisationId;
      // An unknown notice filters to nothing rather than failing: a list answers what there is.
      const marcheId = args.marche_id !== undefined ? ((await noticeById(db, args.marche_id.trim()))?.marche_id ?? args.marche_id.trim()) : undefined;
      const page = await pagedSearch('dossiers.list', args, cursorKey, (window) => listResponseFiles(db, organisationId, marcheId, window));
      return { action: 'list', total: page.total_estimated, items: await present(db, page.results), next_cursor: page.next_cursor };
    },
    'dossiers.update': async (args, caller) => {
      const organisationId = caller.organisationId as string;
      const current = await findResponseFile(db, organisationId, fileId(args.id));
      if (!current) throw notFound();
      if (current.version !== args.version)
        throw new ConflictError(`Le dossier a changé depuis sa lecture (version actuelle ${current.version}, version donnée ${args.version}) : le relire puis rejouer la modification.`);
      const changes = [args.titre, args.ajouter, args.modifier, args.retirer, args.joindre, args.detacher].filter((c) => c !== undefined && (!Array.isArray(c) || c.length > 0));
      if (!changes.length) throw new InvalidArgumentsError(`Rien à modifier : donner « titre », « ajouter », « modifier », « retirer », « joindre » ou « detacher ».`);
      const { items, nextItem, removedItems } = applyItemChanges(current, args);
      const existing = await documentsOf(db, [current.id]);
      const detached = new Set(existing.filter((d) => removedItems.has(d.itemId)).map((d) => d.id));
      for (const id of args.detacher ?? []) {
        const lower = id.toLowerCase();
        if (!existing.some((d) => d.id === lower)) throw new InvalidArgumentsError(`L'argument « detacher » désigne un document absent du dossier : « ${id} ».`);
        detached.add(lower);
      }
      const decoded = (args.joindre ?? []).map((j, index) => {
        if (!items.some((i) => i.id === j.piece)) throw unknownItem(`joindre[${index}].piece`, j.piece);
        return { ...j, ...decodeDocument(j.nom, j.contenu_base64, index) };
      });
      const remaining = existing.length - detached.size + decoded.length;
      if (remaining > MAX_DOCUMENTS) throw new InvalidArgumentsError(`Un dossier de réponse a ${MAX_DOCUMENTS} documents joints au plus : celui-ci en aurait ${remaining}.`);
      const at = now().toISOString();
      // The bytes are kept before the transaction: an object no row names is harmless (content-addressed), a row naming no object is not.
      const added: DocumentRecord[] = [];
      for (const d of decoded) {
        added.push({
          id: randomUUID(),
          responseFileId: current.id,
          itemId: d.piece,
          seq: 0,
          filename: safeName(d.nom, 'document'),
          contentType: d.contentType,
          size: d.bytes.length,
          objectKey: await keep(dceStore, d.bytes),
          createdBy: caller.accountId,
          createdAt: at,
        });
      }
      const next: ResponseFileRecord = {
        ...current,
        title: args.titre !== undefined ? labelOf(args.titre, 'titre') : current.title,
        items,
        nextItem,
        version: current.version + 1,
        updatedBy: caller.accountId,
        updatedAt: at,
      };
      if (!(await updateResponseFile(db, next, current.version, added, [...detached]))) {
        // Another write came between the read and this one.
        throw new ConflictError(`Le dossier a été modifié en même temps par un autre appel : le relire puis rejouer la modification.`);
      }
      return { action: 'modification', dossier: await presentOne(next) };
    },
    'dossiers.export': async (args, caller) => {
      const file = caller.organisationId ? await findResponseFile(db, caller.organisationId, fileId(args.id)) : undefined;
      if (!file) throw notFound();
      const documents = await documentsOf(db, [file.id]);
      const expires = Math.floor(now().getTime() / 1000) + EXPORT_LINK_TTL_SECONDS;
      const token = signExportLink(dceLinkKey, { account: caller.accountId, organisation: file.organisationId, file: file.id, expires });
      return {
        action: 'export',
        id: file.id,
        filename: `${safeName(file.title, 'dossier')}.zip`,
        download_url: `${publicUrl}${EXPORT_LINK_PATH}${token}`,
        content_type: 'application/zip',
        expires_in: EXPORT_LINK_TTL_SECONDS,
        documents: documents.length,
      };
    },
  };
}
