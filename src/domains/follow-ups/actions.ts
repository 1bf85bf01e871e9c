// Follow-ups (issue 16): what the team follows (a notice, a consultation file, a company,
// a buyer) with a status that moves along a documented state machine, an owner among the
// organisation's members, a due date, notes and tags. A followed notice is compared with
// the notices table at read time: a moved deadline or a cancellation shows in `avis`.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../access/caller.js';
import { ConflictError, InvalidArgumentsError, NotFoundError } from '../../errors.js';
import { parisIso, parisIsoOf } from '../../platform/paris-time.js';
import { pagedSearch } from '../../platform/search/cursor.js';
import type { Database } from '../../platform/db/database.js';
import type { Services } from '../context.js';
import { noticeById } from '../notices/store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import {
  deleteFollowUp,
  findFollowUp,
  insertFollowUp,
  isMember,
  listFollowUps,
  updateFollowUp,
  type FollowUpRecord,
  type FollowUpStatus,
  type TargetKind,
} from './store.js';

type FollowUpActions = Pick<HandlerMap<Caller>, 'suivis.create' | 'suivis.update' | 'suivis.delete' | 'suivis.list'>;
type FollowUpOut = OperationResults['suivis.create']['suivi'];

/** The state machine: from each status, the statuses it may move to. `gagne` and `perdu` are final. */
export const TRANSITIONS: Record<FollowUpStatus, readonly FollowUpStatus[]> = {
  a_etudier: ['en_cours', 'abandonne'],
  en_cours: ['a_etudier', 'depose', 'abandonne'],
  depose: ['gagne', 'perdu', 'abandonne'],
  gagne: [],
  perdu: [],
  abandonne: ['a_etudier'],
};

export const STATUS_LABELS: Record<FollowUpStatus, string> = {
  a_etudier: 'à étudier',
  en_cours: 'en cours',
  depose: 'déposé',
  gagne: 'gagné',
  perdu: 'perdu',
  abandonne: 'abandonné',
};

const KIND_LABELS: Record<TargetKind, string> = { marche: 'Avis de marché', dce: 'Dossier de consultation', entreprise: 'Entreprise', acheteur: 'Acheteur' };

/** Refuses a move the state machine does not allow; staying on the same status is no move. */
export function checkTransition(from: FollowUpStatus, to: FollowUpStatus): void {
  if (from === to || TRANSITIONS[from].includes(to)) return;
  const possible = TRANSITIONS[from];
  throw new ConflictError(
    `Transition impossible : un suivi « ${STATUS_LABELS[from]} » ne peut pas passer à « ${STATUS_LABELS[to]} » ; ` +
      (possible.length ? `statuts possibles : ${possible.map((s) => `${s} (« ${STATUS_LABELS[s]} »)`).join(', ')}.` : 'ce statut est définitif.'),
  );
}

interface Target {
  kind: TargetKind;
  id: string;
  label: string | null;
  marcheId: string | null;
  deadline: string | null;
  /** The state of the notice behind it, read with it: what the answer shows, without reading it again. */
  notice: NoticeState | null;
}

/** A notice by marche_id or annonce_id, with what a follow-up shows of it, in one read. */
async function followedNotice(db: Database, id: string): Promise<{ marcheId: string; objet: string | null; state: NoticeState } | null> {
  const q = db('notices').first(['marche_id', 'objet', 'date_limite', 'etat', 'nature', 'modification']);
  const row = (await (UUID.test(id) ? q.where('marche_id', id.toLowerCase()) : q.where('annonce_id', id))) as Record<string, unknown> | undefined;
  return row ? { marcheId: row.marche_id as string, objet: (row.objet as string | null) ?? null, state: noticeStateOf(row) } : null;
}

/** A company's names: its SIRENE unit's, else the register's (a company known by the RNE alone). */
const companyNames = (db: Database) =>
  db('companies as c').leftJoin('company_registers as g', 'g.siren', 'c.siren').select('c.siren', 'c.denomination', 'c.denomination_usuelle', 'c.nom_personne', 'g.denomination as register_name');
const companyLabel = (r: Record<string, unknown>) => ((r.denomination ?? r.denomination_usuelle ?? r.nom_personne ?? r.register_name ?? null) as string | null);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The target as the service knows it (canonical id, label, notice behind it); 404 when it does not exist. */
async function resolveTarget(db: Database, kind: TargetKind, given: string): Promise<Target> {
  const id = given.trim();
  const missing = () => new NotFoundError(`${KIND_LABELS[kind]} introuvable : « ${id.slice(0, 100)} ».`);
  if (kind === 'marche') {
    const notice = await followedNotice(db, id);
    if (!notice) throw missing();
    return { kind, id: notice.marcheId, label: notice.objet, marcheId: notice.marcheId, deadline: notice.state.deadline, notice: notice.state };
  }
  if (kind === 'dce') {
    const q = db('dce_files').orderBy('updated_at', 'desc');
    if (UUID.test(id)) q.where((w) => w.where('id', id.toLowerCase()).orWhere('marche_id', id.toLowerCase()));
    else q.where('annonce_id', id);
    const file = await q.first(['id', 'label', 'marche_id']);
    if (!file) throw missing();
    const notice = file.marche_id ? await followedNotice(db, file.marche_id as string) : null;
    return { kind, id: file.id as string, label: file.label as string, marcheId: (file.marche_id as string | null) ?? null, deadline: notice?.state.deadline ?? null, notice: notice?.state ?? null };
  }
  if (kind === 'entreprise') {
    if (!/^[0-9]{9}$/.test(id)) throw new InvalidArgumentsError(`L'argument « cible.id » doit être un SIREN (9 chiffres) pour une cible entreprise.`);
    const company = await companyNames(db).where('c.siren', id).first();
    if (!company) throw missing();
    return { kind, id, label: companyLabel(company), marcheId: null, deadline: null, notice: null };
  }
  const buyer = await db('buyers').where('id', id).first(['id', 'nom']);
  if (!buyer) throw missing();
  return { kind, id, label: buyer.nom as string, marcheId: null, deadline: null, notice: null };
}

/** A deadline as a date (AAAA-MM-JJ), when it is one. */
const deadlineDate = (deadline: string | null): string | null => (deadline && /^\d{4}-\d{2}-\d{2}/.test(deadline) ? deadline.slice(0, 10) : null);

/** Tags trimmed, lower-cased, without duplicates; an empty one is refused. */
function normaliseTags(tags: string[] | undefined): string[] | undefined {
  if (!tags) return undefined;
  const out = [...new Set(tags.map((t) => t.trim().toLowerCase()))];
  if (out.some((t) => !t)) throw new InvalidArgumentsError(`L'argument « tags » contient une étiquette vide.`);
  return out;
}

async function checkOwner(db: Database, organisationId: string, owner: string | null | undefined): Promise<void> {
  if (!owner) return;
  if (!(await isMember(db, organisationId, owner.toLowerCase())))
    throw new InvalidArgumentsError(`L'argument « responsable » doit désigner un membre de l'organisation (identifiant de compte).`);
}

interface NoticeState {
  deadline: string | null;
  cancelled: boolean;
  etat: string | null;
  /** What a later notice of the procedure (correction, cancellation) changed. */
  modification: string | null;
}

function noticeStateOf(r: Record<string, unknown>): NoticeState {
  return {
    deadline: (r.date_limite as string | null) ?? null,
    cancelled: /ANNUL/i.test(`${(r.etat as string | null) ?? ''} ${(r.nature as string | null) ?? ''}`),
    etat: (r.etat as string | null) ?? null,
    modification: (r.modification as string | null) ?? null,
  };
}

/** The current state of the notices behind these follow-ups, read now. */
async function noticeStates(db: Database, records: FollowUpRecord[]): Promise<Map<string, NoticeState>> {
  const ids = [...new Set(records.map((r) => r.marcheId).filter((id): id is string => id !== null))];
  if (!ids.length) return new Map();
  const rows = await db('notices').whereIn('marche_id', ids).select(['marche_id', 'date_limite', 'etat', 'nature', 'modification']);
  return new Map(
    rows.map((r) => [
      r.marche_id as string,
      noticeStateOf(r),
    ]),
  );
}

async function labels(db: Database, records: FollowUpRecord[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  const byKind = (k: TargetKind) => [...new Set(records.filter((r) => r.targetKind === k).map((r) => r.targetId))];
  const put = (kind: TargetKind, rows: Record<string, unknown>[], key: string, label: (r: Record<string, unknown>) => unknown) => {
    for (const r of rows) out.set(`${kind}:${r[key] as string}`, (label(r) as string | null) ?? null);
  };
  const marches = byKind('marche');
  if (marches.length) put('marche', await db('notices').whereIn('marche_id', marches).select(['marche_id', 'objet']), 'marche_id', (r) => r.objet);
  const files = byKind('dce');
  if (files.length) put('dce', await db('dce_files').whereIn('id', files).select(['id', 'label']), 'id', (r) => r.label);
  const sirens = byKind('entreprise');
  if (sirens.length)
    put('entreprise', await companyNames(db).whereIn('c.siren', sirens), 'siren', companyLabel);
  const buyers = byKind('acheteur');
  if (buyers.length) put('acheteur', await db('buyers').whereIn('id', buyers).select(['id', 'nom']), 'id', (r) => r.nom);
  return out;
}

/** The follow-ups as answered, with their targets' labels and their notices' state read now. */
/** `known`: the notice states and labels already read (a creation): nothing read again. */
async function present(db: Database, records: FollowUpRecord[], known?: { states: Map<string, NoticeState>; names: Map<string, string | null> }): Promise<FollowUpOut[]> {
  const [states, names] = known ? [known.states, known.names] : await Promise.all([noticeStates(db, records), labels(db, records)]);
  return records.map((f) => {
    const state = f.marcheId ? states.get(f.marcheId) : undefined;
    return {
      id: f.id,
      cible: { type: f.targetKind, id: f.targetId, libelle: names.get(`${f.targetKind}:${f.targetId}`) ?? null },
      statut: f.status,
      statut_libelle: STATUS_LABELS[f.status],
      transitions_possibles: [...TRANSITIONS[f.status]],
      responsable: f.ownerId,
      echeance: f.dueDate,
      notes: f.notes,
      tags: f.tags,
      avis: f.marcheId
        ? {
            marche_id: f.marcheId,
            present: state !== undefined,
            // Compared as stored, answered in Paris time like every moment of the service.
            date_limite: parisIsoOf(state?.deadline),
            date_limite_suivie: parisIsoOf(f.deadlineSeen),
            date_limite_modifiee: state !== undefined && state.deadline !== f.deadlineSeen,
            annule: state?.cancelled ?? false,
            etat: state?.etat ?? null,
            modification: state?.modification ?? null,
          }
        : null,
      version: f.version,
      cree_par: f.createdBy,
      cree_le: parisIso(new Date(f.createdAt)),
      modifie_par: f.updatedBy,
      modifie_le: parisIso(new Date(f.updatedAt)),
    };
  });
}

const followUpId = (id: string) => id.trim().toLowerCase();
const notFound = () => new NotFoundError(`Suivi introuvable dans l'organisation.`);

export function followUpActions({ db, now, cursorKey }: Services): FollowUpActions {
  return {
    'suivis.create': async (args, caller) => {
      // Writes have been checked to have an organisation (call path).
      const organisationId = caller.organisationId as string;
      const target = await resolveTarget(db, args.cible.type, args.cible.id);
      await checkOwner(db, organisationId, args.responsable);
      const at = now().toISOString();
      const record: FollowUpRecord = {
        id: randomUUID(),
        organisationId,
        targetKind: target.kind,
        targetId: target.id,
        marcheId: target.marcheId,
        deadlineSeen: target.deadline,
        status: args.statut ?? 'a_etudier',
        ownerId: args.responsable?.toLowerCase() ?? null,
        dueDate: args.echeance ?? deadlineDate(target.deadline),
        notes: args.notes ?? '',
        tags: normaliseTags(args.tags) ?? [],
        version: 1,
        createdBy: caller.accountId,
        createdAt: at,
        updatedBy: caller.accountId,
        updatedAt: at,
      };
      const outcome = await insertFollowUp(db, record);
      if (!outcome.inserted)
        throw new ConflictError(`Cette cible est déjà suivie par l'organisation (suivi ${outcome.existing.id}) : le modifier plutôt que le recréer.`);
      // What the answer shows of the target was read with it: 2 statements a creation instead of 4.
      const known = {
        states: new Map(target.marcheId && target.notice ? [[target.marcheId, target.notice]] : []),
        names: new Map([[`${target.kind}:${target.id}`, target.label]]),
      };
      const [out] = await present(db, [record], known);
      return { action: 'creation', suivi: out as FollowUpOut };
    },
    'suivis.update': async (args, caller) => {
      const organisationId = caller.organisationId as string;
      const current = await findFollowUp(db, organisationId, followUpId(args.id));
      if (!current) throw notFound();
      if (current.version !== args.version)
        throw new ConflictError(`Le suivi a changé depuis sa lecture (version actuelle ${current.version}, version donnée ${args.version}) : le relire puis rejouer la modification.`);
      if (args.statut) checkTransition(current.status, args.statut);
      if (args.responsable !== undefined) await checkOwner(db, organisationId, args.responsable);
      let deadlineSeen = current.deadlineSeen;
      if (args.accepter_date_limite && current.marcheId) {
        const notice = await noticeById(db, current.marcheId);
        if (notice) deadlineSeen = notice.date_limite;
      }
      const next: FollowUpRecord = {
        ...current,
        status: args.statut ?? current.status,
        ownerId: args.responsable === undefined ? current.ownerId : (args.responsable?.toLowerCase() ?? null),
        dueDate: args.echeance === undefined ? current.dueDate : args.echeance,
        notes: args.notes ?? current.notes,
        tags: normaliseTags(args.tags) ?? current.tags,
        deadlineSeen,
        version: current.version + 1,
        updatedBy: caller.accountId,
        updatedAt: now().toISOString(),
      };
      if (!(await updateFollowUp(db, next, current.version))) {
        // Another write came between the read and this one (or a deletion).
        if (!(await findFollowUp(db, organisationId, current.id))) throw notFound();
        throw new ConflictError(`Le suivi a été modifié en même temps par un autre appel : le relire puis rejouer la modification.`);
      }
      const [out] = await present(db, [next]);
      return { action: 'modification', suivi: out as FollowUpOut };
    },
    'suivis.delete': async (args, caller) => {
      const removed = await deleteFollowUp(db, caller.organisationId as string, followUpId(args.id));
      if (!removed) throw notFound();
      const [out] = await present(db, [removed]);
      return { action: 'suppression', supprime: out as FollowUpOut };
    },
    'suivis.list': async (args, caller) => {
      if (!caller.organisationId) return { action: 'list', total: 0, items: [], next_cursor: null };
      const organisationId = caller.organisationId;
      const page = await pagedSearch(
        'suivis.list',
        args,
        cursorKey,
        (window) =>
          listFollowUps(
            db,
            organisationId,
            {
              statuses: args.statut,
              kind: args.type,
              ownerId: args.responsable?.toLowerCase(),
              tag: args.tag?.trim(),
              marcheId: args.marche_id?.toLowerCase(),
              dueBefore: args.echeance_avant,
            },
            window,
          ),
        20,
      );
      return { action: 'list', total: page.total_estimated, items: await present(db, page.results), next_cursor: page.next_cursor };
    },
  };
}
