// Drafts (issue 16): texts a bid team or an assistant writes for a notice (a section of the
// technical proposal, a letter, a question to the buyer), attached to a notice or to one of
// the organisation's response files, versioned: every update keeps the previous text.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../access/caller.js';
import { ConflictError, InvalidArgumentsError, NotFoundError } from '../../errors.js';
import { parisIso } from '../../platform/paris-time.js';
import { pagedSearch } from '../../platform/search/cursor.js';
import type { Database } from '../../platform/db/database.js';
import type { Services } from '../context.js';
import { noticeById } from '../notices/store.js';
import { responseFileNotice } from '../response-files/store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { deleteDraft, findDraft, insertDraft, listDrafts, listVersions, updateDraft, type DraftRecord } from './store.js';

type DraftActions = Pick<HandlerMap<Caller>, 'brouillons.create' | 'brouillons.update' | 'brouillons.delete' | 'brouillons.list'>;
type DraftOut = OperationResults['brouillons.create']['brouillon'];

/** 64 KiB of UTF-8: the contract's maxLength counts characters, the promise counts bytes. */
export const MAX_DRAFT_BYTES = 64 * 1024;

function checkSize(body: string): void {
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > MAX_DRAFT_BYTES)
    throw new InvalidArgumentsError(`L'argument « contenu » fait ${bytes} octets en UTF-8 : un brouillon en admet ${MAX_DRAFT_BYTES} (64 Kio) au plus ; le découper en plusieurs brouillons.`);
}

/** A title trimmed; a blank one is refused. */
function titleOf(value: string): string {
  const title = value.trim();
  if (!title) throw new InvalidArgumentsError(`L'argument « titre » est vide.`);
  return title;
}

const draftId = (id: string) => id.trim().toLowerCase();
const notFound = () => new NotFoundError(`Brouillon introuvable dans l'organisation.`);
const noResponseFile = () => new NotFoundError(`Dossier de réponse introuvable dans l'organisation.`);

/** The notice a `marche_id` argument names (marche_id or annonce_id); 404 when the service does not have it. */
async function noticeOf(db: Database, given: string): Promise<string> {
  const notice = await noticeById(db, given.trim());
  if (!notice) throw new NotFoundError(`Avis de marché introuvable : « ${given.trim().slice(0, 100)} ».`);
  return notice.marche_id;
}

/** The drafts as answered, with their notice's subject read now. */
async function present(db: Database, records: DraftRecord[]): Promise<DraftOut[]> {
  const ids = [...new Set(records.map((d) => d.marcheId).filter((id): id is string => id !== null))];
  const subjects = new Map<string, string | null>();
  if (ids.length) for (const r of await db('notices').whereIn('marche_id', ids).select(['marche_id', 'objet'])) subjects.set(r.marche_id as string, (r.objet as string | null) ?? null);
  return records.map((d) => ({
    id: d.id,
    nature: d.kind,
    titre: d.title,
    contenu: d.body,
    taille: Buffer.byteLength(d.body, 'utf8'),
    marche_id: d.marcheId,
    dossier_id: d.responseFileId,
    avis_objet: d.marcheId ? (subjects.get(d.marcheId) ?? null) : null,
    version: d.version,
    cree_par: d.createdBy,
    cree_le: parisIso(new Date(d.createdAt)),
    modifie_par: d.updatedBy,
    modifie_le: parisIso(new Date(d.updatedAt)),
  }));
}

export function draftActions({ db, now, cursorKey }: Services): DraftActions {
  return {
    'brouillons.create': async (args, caller) => {
      // Writes have been checked to have an organisation (call path).
      const organisationId = caller.organisationId as string;
      checkSize(args.contenu);
      if (args.marche_id === undefined && args.dossier_id === undefined)
        throw new InvalidArgumentsError(`Un brouillon se rattache à un avis (« marche_id ») ou à un dossier de réponse (« dossier_id ») : donner l'un des deux.`);
      let marcheId = args.marche_id !== undefined ? await noticeOf(db, args.marche_id) : null;
      let responseFileId: string | null = null;
      if (args.dossier_id !== undefined) {
        responseFileId = args.dossier_id.toLowerCase();
        const fileNotice = await responseFileNotice(db, organisationId, responseFileId);
        if (fileNotice === undefined) throw noResponseFile();
        if (marcheId !== null && marcheId !== fileNotice)
          throw new InvalidArgumentsError(`Les arguments « marche_id » et « dossier_id » désignent deux avis différents : le dossier de réponse répond à l'avis ${fileNotice}.`);
        marcheId = fileNotice;
      }
      const at = now().toISOString();
      const record: DraftRecord = {
        id: randomUUID(),
        organisationId,
        marcheId,
        responseFileId,
        kind: args.nature,
        title: titleOf(args.titre),
        body: args.contenu,
        version: 1,
        createdBy: caller.accountId,
        createdAt: at,
        updatedBy: caller.accountId,
        updatedAt: at,
      };
      await insertDraft(db, record);
      const [out] = await present(db, [record]);
      return { action: 'creation', brouillon: out as DraftOut };
    },
    'brouillons.update': async (args, caller) => {
      const organisationId = caller.organisationId as string;
      const current = await findDraft(db, organisationId, draftId(args.id));
      if (!current) throw notFound();
      if (current.version !== args.version)
        throw new ConflictError(`Le brouillon a changé depuis sa lecture (version actuelle ${current.version}, version donnée ${args.version}) : le relire puis rejouer la modification.`);
      if (args.contenu !== undefined) checkSize(args.contenu);
      const next: DraftRecord = {
        ...current,
        kind: args.nature ?? current.kind,
        title: args.titre !== undefined ? titleOf(args.titre) : current.title,
        body: args.contenu ?? current.body,
        version: current.version + 1,
        updatedBy: caller.accountId,
        updatedAt: now().toISOString(),
      };
      if (!(await updateDraft(db, next, current.version))) {
        // Another write came between the read and this one (or a deletion).
        if (!(await findDraft(db, organisationId, current.id))) throw notFound();
        throw new ConflictError(`Le brouillon a été modifié en même temps par un autre appel : le relire puis rejouer la modification.`);
      }
      const [out] = await present(db, [next]);
      return { action: 'modification', brouillon: out as DraftOut };
    },
    'brouillons.delete': async (args, caller) => {
      const removed = await deleteDraft(db, caller.organisationId as string, draftId(args.id));
      if (!removed) throw notFound();
      const [out] = await present(db, [removed.draft]);
      return { action: 'suppression', supprime: out as DraftOut, versions_supprimees: removed.versions };
    },
    'brouillons.list': async (args, caller) => {
      const organisationId = caller.organisationId;
      if (args.id !== undefined) {
        const draft = organisationId ? await findDraft(db, organisationId, draftId(args.id)) : undefined;
        if (!draft) throw notFound();
        const page = await pagedSearch('brouillons.list', args, cursorKey, (window) => listVersions(db, draft.id, window));
        const [out] = await present(db, [draft]);
        return {
          action: 'list',
          total: page.total_estimated,
          items: [],
          brouillon: out as DraftOut,
          versions: page.results.map((v) => ({
            version: v.version,
            titre: v.title,
            contenu: v.body,
            taille: Buffer.byteLength(v.body, 'utf8'),
            ecrit_par: v.writtenBy,
            ecrit_le: parisIso(new Date(v.writtenAt)),
          })),
          next_cursor: page.next_cursor,
        };
      }
      if (!organisationId) return { action: 'list', total: 0, items: [], next_cursor: null };
      // An unknown notice filters to nothing rather than failing: a list answers what there is.
      const marcheId = args.marche_id !== undefined ? ((await noticeById(db, args.marche_id.trim()))?.marche_id ?? args.marche_id.trim()) : undefined;
      const page = await pagedSearch('brouillons.list', args, cursorKey, (window) =>
        listDrafts(db, organisationId, { marcheId, responseFileId: args.dossier_id?.toLowerCase(), kind: args.nature }, window),
      );
      return { action: 'list', total: page.total_estimated, items: await present(db, page.results), next_cursor: page.next_cursor };
    },
  };
}
