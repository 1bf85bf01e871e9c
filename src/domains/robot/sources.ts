// What the robot reads of each alert source: the documents that entered the service in a
// window of `ingested_at`, read once per run in chunks (keyset on ingested_at then key, on
// the tables' ingested_at index), each with the words its search index holds (so an alert
// finds what the same query finds in a search), its departments and what a rule needs; then
// the records of the matched ones, shaped by the domain's own record function (the same
// record every search returns: permalink, never contact details).
import type { Database } from '../../platform/db/database.js';
import { indexedWords, type SearchIndex } from '../../platform/search/full-text.js';
import { searchWords } from '../../platform/search/query-syntax.js';
import { parisDay } from '../../platform/paris-time.js';
import type { EventKind, EventRecord } from '../events/store.js';
import type { AlertSourceCode } from '../source-volumes.js';
import { NOTICES_SEARCH } from '../notices/search-index.js';
import { noticesByIds } from '../notices/store.js';
import { noticeRecord } from '../notices/actions.js';
import { AWARDS_SEARCH } from '../awards/search-index.js';
import { awardsByKeys } from '../awards/store.js';
import { awardRecord } from '../awards/actions.js';
import { PERMITS_SEARCH, permitDocument } from '../permits/search-index.js';
import { permitsByIds } from '../permits/store.js';
import { permitRecord } from '../permits/actions.js';
import { PUBLICATIONS_SEARCH } from '../posts/search-index.js';
import { publicationsByIds } from '../posts/store.js';
import { publicationRecord } from '../posts/actions.js';
import { DELIBERATIONS_SEARCH } from '../minutes/search-index.js';
import { deliberationsByIds } from '../minutes/store.js';
import { deliberationRecord } from '../minutes/actions.js';
import { ANNOUNCEMENTS_SEARCH } from '../announcements/search-index.js';
import { announcementsByIds, proceedingsBySiren } from '../announcements/store.js';
import { announcementRecord } from '../announcements/actions.js';
import { PROCEEDING_FAMILIES } from '../announcements/import-bodacc.js';
import { CONTACTS_SEARCH } from '../contacts/search-index.js';
import { contactsByIds } from '../contacts/store.js';
import { contactRecord } from '../contacts/actions.js';
import { COMPANIES_SEARCH, companySearchDocuments } from '../companies/search-index.js';
import { companyBySiren } from '../companies/store.js';
import { companyRecord, MAX_PROCEEDINGS } from '../companies/actions.js';
import { detailsBySiren } from '../companies/details.js';
import { salesByIds } from '../sales/store.js';
import { saleRecord } from '../sales/actions.js';
import type { PermitType } from '../permits/rows.js';

/** A document that entered the service, as the robot matches it. */
export interface NewDocument {
  key: string;
  ingestedAt: string;
  /** When the fact happened (publication, authorisation, sale…): ISO 8601 date or instant. */
  occurredAt: string;
  /** The search words of each searchable piece (one entry per field; a consultation file: per page). */
  fields: string[][];
  /** Several independent pieces (a consultation file's pages): a query must match one piece. */
  pieces?: string[][][];
  departements: string[];
  montant?: number | null;
  /** A notice's deadline (the D-7 reminder). */
  dateLimite?: string | null;
  /** The event's kind when it is not the reader's (a consultation file's new version). */
  kind?: EventKind;
  /** The event's unique key when it is not the document's key (see NewEvent.recordKey). */
  eventKey?: string;
}

export interface RecordContext {
  publicUrl: string;
  now: Date;
}

export interface SourceReader {
  source: AlertSourceCode;
  kind: EventKind;
  /** false: the terms are ignored (dvf), only the departments apply. */
  usesTerms: boolean;
  /** The documents with from < ingested_at <= to, in chunks, oldest first. */
  read(db: Database, from: string, to: string, now: Date): AsyncGenerator<NewDocument[]>;
  /** The records of these keys, as the source's searches return them. */
  records(db: Database, keys: string[], ctx: RecordContext): Promise<Map<string, EventRecord>>;
}

/** Documents per chunk: a few megabytes of rows at most, whatever the window holds. */
export const CHUNK = 1000;

const json = <T>(v: unknown, fallback: T): T => (typeof v === 'string' && v ? (JSON.parse(v) as T) : fallback);
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const words = (index: SearchIndex, fields: Record<string, string | null | undefined>) => indexedWords(index, fields);
const join = (parts: (string | null | undefined)[]) => parts.filter((p): p is string => !!p).join(' ') || null;

/**
 * Rows of `table` in the window, by chunks, in (ingested_at, key) order: a keyset, so each
 * chunk is one indexed range read and memory holds one chunk.
 */
async function* windowRows(
  db: Database,
  table: string,
  key: string,
  columns: string[],
  from: string,
  to: string,
  extra?: (q: ReturnType<Database>) => void,
): AsyncGenerator<Record<string, unknown>[]> {
  let after: { at: string; key: string } | null = null;
  for (;;) {
    const q = db(table).select([key, 'ingested_at', ...columns]).where('ingested_at', '>', from).andWhere('ingested_at', '<=', to);
    if (after) {
      const { at, key: last } = after;
      q.andWhere((w) => w.where('ingested_at', '>', at).orWhere((o) => o.where('ingested_at', at).andWhere(key, '>', last)));
    }
    extra?.(q);
    const rows = (await q.orderBy([{ column: 'ingested_at' }, { column: key }]).limit(CHUNK)) as Record<string, unknown>[];
    if (rows.length) yield rows;
    if (rows.length < CHUNK) return;
    const lastRow = rows[rows.length - 1] as Record<string, unknown>;
    after = { at: String(lastRow.ingested_at), key: String(lastRow[key]) };
  }
}

/** A map of the records of `keys`, built in chunks by the domain's own reads. */
async function recordMap<V>(keys: string[], read: (keys: string[]) => Promise<V[]>, shape: (v: V) => EventRecord): Promise<Map<string, EventRecord>> {
  const out = new Map<string, EventRecord>();
  for (let i = 0; i < keys.length; i += 500) for (const v of await read(keys.slice(i, i + 500))) {
    const r = shape(v);
    out.set(r.id, r);
  }
  return out;
}

/** A reader of a source whose table holds one searchable row per record. */
function tableSource(spec: {
  source: AlertSourceCode;
  kind: EventKind;
  table: string;
  key: string;
  columns: string[];
  document: (r: Record<string, unknown>) => Omit<NewDocument, 'key' | 'ingestedAt'>;
  records: SourceReader['records'];
  extra?: (q: ReturnType<Database>, now: Date) => void;
}): SourceReader {
  return {
    source: spec.source,
    kind: spec.kind,
    usesTerms: true,
    async *read(db, from, to, now) {
      for await (const rows of windowRows(db, spec.table, spec.key, spec.columns, from, to, spec.extra ? (q) => spec.extra?.(q, now) : undefined)) {
        yield rows.map((r) => ({ key: String(r[spec.key]), ingestedAt: String(r.ingested_at), ...spec.document(r) }));
      }
    },
    records: spec.records,
  };
}

/** Permits are reported when authorised (or started, or finished) in the last 45 days. */
export const PERMIT_RECENT_DAYS = 45;
const AUTHORISED_STATES = ['2', '5', '6'];

const notices = tableSource({
  source: 'marche',
  kind: 'nouveau_marche',
  table: 'notices',
  key: 'marche_id',
  columns: ['objet', 'acheteur_nom', 'departements', 'date_parution', 'date_limite'],
  document: (r) => ({
    occurredAt: str(r.date_parution) ?? String(r.ingested_at),
    fields: words(NOTICES_SEARCH, { objet: str(r.objet), acheteur: str(r.acheteur_nom) }),
    departements: json<string[]>(r.departements, []),
    dateLimite: str(r.date_limite),
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => noticesByIds(db, k), (n) => noticeRecord(n, ctx.publicUrl, ctx.now)),
});

/** Awards: their winners' names are searched too (read per chunk). */
const awards: SourceReader = {
  source: 'attribution',
  kind: 'attribution',
  usesTerms: true,
  async *read(db, from, to) {
    for await (const rows of windowRows(db, 'awards', 'award_key', ['objet', 'acheteur_nom', 'departement', 'montant', 'date_notification'], from, to)) {
      const keys = rows.map((r) => String(r.award_key));
      const winners = new Map<string, string[]>();
      for (let i = 0; i < keys.length; i += 500) {
        for (const w of (await db('award_winners').whereIn('award_key', keys.slice(i, i + 500)).orderBy(['award_key', 'siret']).select('award_key', 'denomination')) as { award_key: string; denomination: string | null }[]) {
          if (!w.denomination) continue;
          const list = winners.get(w.award_key);
          if (list) list.push(w.denomination);
          else winners.set(w.award_key, [w.denomination]);
        }
      }
      yield rows.map((r) => ({
        key: String(r.award_key),
        ingestedAt: String(r.ingested_at),
        occurredAt: str(r.date_notification) ?? String(r.ingested_at),
        fields: words(AWARDS_SEARCH, { objet: str(r.objet), acheteur: str(r.acheteur_nom), titulaires: join(winners.get(String(r.award_key)) ?? []) }),
        departements: r.departement ? [String(r.departement)] : [],
        montant: r.montant === null || r.montant === undefined ? null : Number(r.montant),
      }));
    }
  },
  records: (db, keys, ctx) => recordMap(keys, (k) => awardsByKeys(db, k), (a) => awardRecord(a, ctx.publicUrl)),
};

const permits = tableSource({
  source: 'permis',
  kind: 'permis',
  table: 'permits',
  key: 'id',
  columns: ['type', 'demandeur', 'nature_projet', 'logements', 'localite', 'departement', 'date_autorisation'],
  // The permits domain's rule for alerts: authorised (state 2, 5 or 6) in the last 45 days.
  extra: (q, now) => {
    q.whereIn('etat', AUTHORISED_STATES).andWhere('date_autorisation', '>=', parisDay(new Date(now.getTime() - PERMIT_RECENT_DAYS * 86_400_000)));
  },
  document: (r) => ({
    occurredAt: str(r.date_autorisation) ?? String(r.ingested_at),
    fields: words(
      PERMITS_SEARCH,
      permitDocument({
        id: String(r.id),
        type: r.type as PermitType,
        demandeur: str(r.demandeur),
        nature_projet: str(r.nature_projet),
        logements: r.logements === null || r.logements === undefined ? null : Number(r.logements),
        localite: str(r.localite),
      }).fields,
    ),
    departements: r.departement ? [String(r.departement)] : [],
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => permitsByIds(db, k), (p) => permitRecord(p, ctx.publicUrl)),
});

const publications = tableSource({
  source: 'reseaux_sociaux',
  kind: 'publication',
  table: 'publications',
  key: 'id',
  columns: ['texte', 'auteur', 'commune_nom', 'departement', 'date_publication'],
  document: (r) => ({
    occurredAt: str(r.date_publication) ?? String(r.ingested_at),
    fields: words(PUBLICATIONS_SEARCH, { texte: str(r.texte), auteur: str(r.auteur), commune: str(r.commune_nom) }),
    departements: r.departement ? [String(r.departement)] : [],
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => publicationsByIds(db, k), (p) => publicationRecord(p, ctx.publicUrl)),
});

const deliberations = tableSource({
  source: 'mairie',
  kind: 'deliberation',
  table: 'deliberations',
  key: 'id',
  columns: ['titre', 'texte', 'commune_nom', 'departement', 'date_seance'],
  document: (r) => ({
    occurredAt: str(r.date_seance) ?? String(r.ingested_at),
    fields: words(DELIBERATIONS_SEARCH, { titre: str(r.titre), texte: str(r.texte), commune: str(r.commune_nom) }),
    departements: r.departement ? [String(r.departement)] : [],
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => deliberationsByIds(db, k), (d) => deliberationRecord(d, ctx.publicUrl, false)),
});

const announcements = tableSource({
  source: 'bodacc',
  kind: 'annonce_bodacc',
  table: 'announcements',
  key: 'id',
  columns: ['denomination', 'jugement_nature', 'jugement_famille', 'famille_libelle', 'activite', 'detail', 'ville', 'departement_nom', 'tribunal', 'departement', 'date_parution'],
  document: (r) => ({
    occurredAt: str(r.date_parution) ?? String(r.ingested_at),
    fields: words(ANNOUNCEMENTS_SEARCH, {
      denomination: str(r.denomination),
      jugement: join([str(r.jugement_nature), str(r.jugement_famille), str(r.famille_libelle)]),
      activite: join([str(r.activite), str(r.detail)]),
      lieu: join([str(r.ville), str(r.departement_nom), str(r.tribunal)]),
    }),
    departements: r.departement ? [String(r.departement)] : [],
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => announcementsByIds(db, k), (a) => announcementRecord(a, ctx.publicUrl)),
});

const contacts = tableSource({
  source: 'contact',
  kind: 'contact',
  table: 'contacts',
  key: 'id',
  columns: ['nom', 'role', 'organisation', 'commune_nom', 'departement'],
  document: (r) => ({
    occurredAt: String(r.ingested_at),
    fields: words(CONTACTS_SEARCH, { nom: str(r.nom), role: str(r.role), organisation: str(r.organisation), commune: str(r.commune_nom) }),
    departements: r.departement ? [String(r.departement)] : [],
  }),
  records: (db, keys, ctx) => recordMap(keys, (k) => contactsByIds(db, k), (c) => contactRecord(c, ctx.publicUrl)),
});

/** New companies: their documents rebuilt as the index holds them; departments of their establishments. */
const companies: SourceReader = {
  source: 'entreprise',
  kind: 'entreprise',
  usesTerms: true,
  async *read(db, from, to) {
    // A provisional row (establishments imported before their unit) has no document yet.
    for await (const rows of windowRows(db, 'companies', 'siren', ['date_creation'], from, to, (q) => void q.where('unit_known', true))) {
      const sirens = rows.map((r) => String(r.siren));
      const docs = new Map((await companySearchDocuments(db, sirens)).map((d) => [d.key, d]));
      const departements = new Map<string, Set<string>>();
      for (let i = 0; i < sirens.length; i += 500) {
        for (const e of (await db('establishments').whereIn('siren', sirens.slice(i, i + 500)).whereNotNull('departement').distinct('siren', 'departement')) as { siren: string; departement: string }[]) {
          const set = departements.get(e.siren) ?? new Set<string>();
          set.add(e.departement);
          departements.set(e.siren, set);
        }
      }
      const out: NewDocument[] = [];
      for (const r of rows) {
        const doc = docs.get(String(r.siren));
        if (!doc) continue;
        out.push({
          key: doc.key,
          ingestedAt: String(r.ingested_at),
          occurredAt: str(r.date_creation) ?? String(r.ingested_at),
          fields: words(COMPANIES_SEARCH, doc.fields),
          departements: [...(departements.get(doc.key) ?? [])].sort(),
        });
      }
      yield out;
    }
  },
  async records(db, keys, ctx) {
    const today = parisDay(ctx.now);
    const out = new Map<string, EventRecord>();
    const proceedings = await proceedingsBySiren(db, keys, PROCEEDING_FAMILIES, MAX_PROCEEDINGS);
    const details = await detailsBySiren(db, keys);
    for (const siren of keys) {
      const view = await companyBySiren(db, siren, today);
      if (view) out.set(siren, companyRecord(view, ctx.publicUrl, false, proceedings.get(siren) ?? [], details.get(siren)));
    }
    return out;
  },
};

/** Sales: no words (the terms are ignored), the department only. */
const sales: SourceReader = {
  source: 'dvf',
  kind: 'vente',
  usesTerms: false,
  async *read(db, from, to) {
    for await (const rows of windowRows(db, 'sales', 'id_mutation', ['departement', 'date_mutation'], from, to)) {
      yield rows.map((r) => ({
        key: String(r.id_mutation),
        ingestedAt: String(r.ingested_at),
        occurredAt: str(r.date_mutation) ?? String(r.ingested_at),
        fields: [],
        departements: r.departement ? [String(r.departement)] : [],
      }));
    }
  },
  records: (db, keys, ctx) => recordMap(keys, (k) => salesByIds(db, k), (s) => saleRecord(s, ctx.publicUrl)),
};

/** Files per chunk: their pages' text is read with them (8,000 characters a page). */
const DCE_CHUNK = 50;

/**
 * Consultation files: a file cites the terms when one of its reading pages does (the
 * search's documents are its pages: text and piece name); its departments are its notice's,
 * the one it was matched to at import or the one carrying its annonce_id. A new version of
 * a file enters again (its `ingested_at` is the version's): « DCE modifié », once per version.
 */
const dceFiles: SourceReader = {
  source: 'dce',
  kind: 'nouveau_dce',
  usesTerms: true,
  async *read(db, from, to) {
    let after: { at: string; id: string } | null = null;
    for (;;) {
      const q = db('dce_files as f')
        .leftJoin('notices as n', (j) => j.on('n.marche_id', 'f.marche_id').orOn((o) => o.onNull('f.marche_id').andOn('n.annonce_id', 'f.annonce_id')))
        .select('f.id', 'f.ingested_at', 'f.version', 'n.departements', 'n.date_parution')
        .where('f.ingested_at', '>', from)
        .andWhere('f.ingested_at', '<=', to);
      if (after) {
        const { at, id } = after;
        q.andWhere((w) => w.where('f.ingested_at', '>', at).orWhere((o) => o.where('f.ingested_at', at).andWhere('f.id', '>', id)));
      }
      const files = (await q.orderBy([{ column: 'f.ingested_at' }, { column: 'f.id' }]).limit(DCE_CHUNK)) as Record<string, unknown>[];
      if (!files.length) return;
      const ids = files.map((f) => String(f.id));
      const pages = (await db('dce_pages as p')
        .join('dce_pieces as c', (j) => j.on('c.dce_id', 'p.dce_id').andOn('c.position', 'p.position'))
        .whereIn('p.dce_id', ids)
        .orderBy(['p.dce_id', 'p.position', 'p.page'])
        .select('p.dce_id', 'p.text', 'c.filename')) as { dce_id: string; text: string; filename: string }[];
      const byFile = new Map<string, string[][][]>();
      for (const p of pages) {
        const list = byFile.get(p.dce_id) ?? [];
        // The piece column as the import indexes it: the file name with its separators as spaces.
        list.push([searchWords(p.text), searchWords(p.filename.replace(/[_.\-/]+/g, ' '))]);
        byFile.set(p.dce_id, list);
      }
      yield files.map((f) => {
        const pieces = byFile.get(String(f.id)) ?? [];
        const version = Number(f.version);
        return {
          key: String(f.id),
          ...(version > 1 ? { kind: 'dce_modifie' as const, eventKey: `${String(f.id)}@v${version}` } : {}),
          ingestedAt: String(f.ingested_at),
          occurredAt: String(f.ingested_at),
          fields: pieces.flat(),
          pieces,
          departements: json<string[]>(f.departements, []),
        };
      });
      if (files.length < DCE_CHUNK) return;
      const last = files[files.length - 1] as Record<string, unknown>;
      after = { at: String(last.ingested_at), id: String(last.id) };
    }
  },
  async records(db, keys, ctx) {
    const out = new Map<string, EventRecord>();
    for (let i = 0; i < keys.length; i += 500) {
      const rows = (await db('dce_files as f')
        .leftJoin('notices as n', (j) => j.on('n.marche_id', 'f.marche_id').orOn((o) => o.onNull('f.marche_id').andOn('n.annonce_id', 'f.annonce_id')))
        .whereIn('f.id', keys.slice(i, i + 500))
        .select('f.id', 'f.label', 'f.version', 'f.pieces', 'f.annonce_id', 'f.updated_at', 'n.marche_id', 'n.objet', 'n.acheteur_nom', 'n.departements')) as Record<string, unknown>[];
      for (const r of rows) {
        const marcheId = str(r.marche_id);
        const pieces = Number(r.pieces);
        const departements = json<string[]>(r.departements, []);
        out.set(String(r.id), {
          id: String(r.id),
          titre: `${Number(r.version) > 1 ? 'DCE modifié' : 'Dossier de consultation'} : ${str(r.objet) ?? String(r.label)}`,
          resume: `${str(r.acheteur_nom) ?? 'Acheteur non précisé'} — ${pieces} pièce${pieces > 1 ? 's' : ''} — version ${Number(r.version)}${departements.length ? ` — départements ${departements.join(', ')}` : ''}.`,
          fields: {
            dce_id: String(r.id),
            marche_id: marcheId,
            annonce_id: str(r.annonce_id),
            titre: str(r.objet),
            acheteur: str(r.acheteur_nom),
            departements,
            pieces,
            version: Number(r.version),
            // The notice's permalink: the file is read with marches_dce on its marche_id.
            url: marcheId ? `${ctx.publicUrl}/marches/${marcheId}` : null,
          },
        });
      }
    }
    return out;
  },
};

/** Every source's reader, in the order of the contract's list of alert sources. */
export const SOURCE_READERS: readonly SourceReader[] = [notices, dceFiles, awards, permits, publications, deliberations, announcements, companies, contacts, sales];
