// The ADEME list of RGE-certified companies from its data-fair API (dataset
// `liste-des-entreprises-rge-2`, the qualifications in force, refreshed daily): one row per
// SIRET and qualification, read whole at each run (`/lines?size=…`, then each answer's `next`
// until an answer has none). The list only holds what is in force: a certification stored
// here that the whole snapshot no longer holds has ended, and is ended (its `date_fin` set to
// the day before the snapshot) in the same transaction as the snapshot's last page.
//
// What was seen is told by `updated_at`: the RGE importer stamps every row it writes, so a
// row of this snapshot carries a stamp not older than the snapshot's start, kept in the
// cursor. A run killed mid-snapshot resumes at the stored `next` with the same start: the
// rows written before the kill still count as seen, and the end is exactly what the whole
// snapshot no longer holds. The rows received are checked against the answers' `total`: a
// snapshot that is not whole ends nothing.
import type { Knex } from 'knex';
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { SyncHttpError } from '../../sync/http.js';
import { addDays } from '../../sync/days.js';
import type { Importer } from '../../import/importer.js';
import { parisDay } from '../../platform/paris-time.js';
import { rge } from './import-rge.js';

/** Rows asked per answer (data-fair accepts up to 10,000): about 35 requests for the whole list. */
export const RGE_PAGE_SIZE = 5000;

/** The table the RGE importer writes, and its key. */
const TABLE = 'rge_certifications';

/**
 * The fields asked of the API: what the RGE importer reads (the CSV's names). The contact
 * columns (`telephone`, `email`, `site_internet`) are never asked, so they never come.
 */
export const RGE_API_FIELDS = ['siret', 'domaine', 'organisme', 'meta_domaine', 'code_qualification', 'nom_qualification', 'lien_date_debut', 'lien_date_fin'] as const;

/** Reads of one answer whose row count stays wrong before the snapshot starts again. */
const COUNT_ATTEMPTS = 3;
/** Snapshots begun in one run (the list changed while it was read) before the run stops. */
const MAX_PASSES = 2;

export interface RgeCursor {
  /** Start of the snapshot in progress (ISO instant): rows stamped before it were not seen by it; null between snapshots. */
  snapshot: string | null;
  /** The next answer of the snapshot in progress, as the API gave it. */
  next: string | null;
  /** Rows of the snapshot received so far, and the `total` its first answer announced. */
  received: number;
  total: number | null;
  /** Start of the last snapshot read whole. */
  done: string | null;
}

const emptyCursor = (done: string | null = null): RgeCursor => ({ snapshot: null, next: null, received: 0, total: null, done });

export function readRgeCursor(value: unknown): RgeCursor {
  if (!value || typeof value !== 'object') return emptyCursor();
  const c = value as Partial<RgeCursor>;
  const done = typeof c.done === 'string' ? c.done : null;
  if (typeof c.snapshot !== 'string' || Number.isNaN(Date.parse(c.snapshot)) || typeof c.next !== 'string') return emptyCursor(done);
  return {
    snapshot: c.snapshot,
    next: c.next,
    received: Number.isInteger(c.received) && (c.received as number) >= 0 ? (c.received as number) : 0,
    total: Number.isInteger(c.total) ? (c.total as number) : null,
    done,
  };
}

/**
 * A data-fair row in the shape the RGE importer reads (the CSV's text fields): the fields it
 * reads only, numbers and booleans as their text, null and absent fields left out.
 */
export function rgeRecordFromApi(row: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!row || typeof row !== 'object' || Array.isArray(row)) return out;
  const r = row as Record<string, unknown>;
  for (const name of RGE_API_FIELDS) {
    const v = r[name];
    if (typeof v === 'string') out[name] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') out[name] = String(v);
  }
  return out;
}

interface LinesAnswer {
  total?: unknown;
  next?: unknown;
  results?: unknown;
}

function firstUrl(ctx: SyncContext, pageSize: number): string {
  const params = new URLSearchParams({ size: String(pageSize), select: RGE_API_FIELDS.join(',') });
  return `${ctx.baseUrl}/lines?${params}`;
}

/** A `next` is followed only on the publisher's own address (never a host its answer names). */
function onPublisher(ctx: SyncContext, url: string): boolean {
  try {
    const base = new URL(ctx.baseUrl);
    const next = new URL(url);
    return next.origin === base.origin && next.pathname.startsWith(base.pathname);
  } catch {
    return false;
  }
}

/** Keys of records the importer cannot read (a date unreadable): their stored rows are kept as they are, not ended. */
function unreadableKeys(records: Record<string, string>[], stamp: string): { siret: string; domaine: string; organisme: string }[] {
  const keys: { siret: string; domaine: string; organisme: string }[] = [];
  for (const r of records) {
    if (!('skip' in rge.map(r, stamp))) continue;
    const siret = (r.siret ?? '').replace(/\s/g, '');
    const domaine = (r.domaine ?? '').trim();
    const organisme = (r.organisme ?? '').trim();
    if (siret && domaine && organisme) keys.push({ siret, domaine, organisme });
  }
  return keys;
}

/** Marks as seen by the snapshot the stored rows of records the importer skipped. */
async function keepUnreadable(trx: Knex.Transaction, records: Record<string, string>[], stamp: string): Promise<void> {
  for (const key of unreadableKeys(records, stamp)) await trx(TABLE).where(key).update({ updated_at: stamp });
}

/**
 * Ends the certifications the whole snapshot no longer holds: stored rows not written since
 * its start, still in force, end the day before it (Paris time). A certification listed
 * again later is written again with its published dates.
 */
export async function endCertificationsNotSeen(trx: Knex.Transaction, snapshot: string, stamp: string): Promise<number> {
  const ended = addDays(parisDay(new Date(snapshot)), -1);
  return trx(TABLE)
    .where('updated_at', '<', snapshot)
    .andWhere((q) => q.whereNull('date_fin').orWhere('date_fin', '>', ended))
    .update({ date_fin: ended, updated_at: stamp });
}

async function* rgePages(ctx: SyncContext, pageSize: number): AsyncGenerator<SyncPage> {
  let state = readRgeCursor(ctx.cursor);
  // A stored `next` on another address (RGE_API_URL changed): a new snapshot.
  if (state.next && !onPublisher(ctx, state.next)) state = emptyCursor(state.done);
  for (let pass = 1; ; pass++) {
    if (!state.snapshot || !state.next) state = { ...emptyCursor(state.done), snapshot: ctx.now().toISOString(), next: firstUrl(ctx, pageSize) };
    const snapshot = state.snapshot as string;
    let restart: string | null = null;
    while (!restart) {
      const url = state.next as string;
      let page: { records: Record<string, string>[]; next: string | null; total: number } | null = null;
      let wrong = '';
      for (let attempt = 1; attempt <= COUNT_ATTEMPTS && !page && !restart; attempt++) {
        const { body } = await ctx.http.getJson<LinesAnswer>(url);
        const total = typeof body?.total === 'number' && Number.isInteger(body.total) ? body.total : null;
        const results = Array.isArray(body?.results) ? (body.results as unknown[]) : null;
        if (total === null || !results) throw new SyncHttpError('réponse de data-fair sans total ni results', null);
        const next = typeof body?.next === 'string' && body.next ? body.next : null;
        if (next && !onPublisher(ctx, next)) throw new SyncHttpError('lien next de data-fair hors de l’adresse du producteur : non suivi', null);
        if (state.total !== null && total !== state.total) {
          // The list was republished while it was read: the snapshot starts again.
          restart = `la liste a changé pendant la lecture (total ${state.total} puis ${total})`;
          break;
        }
        // data-fair gives `next` only after a full answer; the last answer holds the rest.
        const expected = next ? pageSize : total - state.received;
        if (results.length === expected) page = { records: results.map(rgeRecordFromApi), next, total };
        else wrong = `${results.length} lignes reçues pour ${expected} attendues (total ${total}, ${state.received} déjà reçues)`;
      }
      if (restart) break;
      if (!page) {
        restart = wrong;
        break;
      }
      const records = page.records;
      const received = state.received + records.length;
      if (page.next) {
        state = { ...state, next: page.next, received, total: page.total };
        yield { records, cursor: state, after: (trx, stamp) => keepUnreadable(trx, records, stamp) };
        continue;
      }
      // An empty list is a publisher's fault, not the end of every certification.
      if (page.total === 0) throw new SyncHttpError('liste RGE vide (total 0) : rien n’est clos', null);
      // The last answer: the snapshot is whole (its count checked above), what it no longer holds ends.
      const done: RgeCursor = emptyCursor(snapshot);
      yield {
        records,
        cursor: done,
        after: async (trx, stamp) => {
          await keepUnreadable(trx, records, stamp);
          await endCertificationsNotSeen(trx, snapshot, stamp);
        },
      };
      return;
    }
    // Not whole: nothing is ended; the rows written stay (upserts) and the snapshot starts over.
    const reset = emptyCursor(state.done);
    yield { records: [], cursor: reset };
    state = reset;
    if (pass >= MAX_PASSES) throw new SyncHttpError(`liste RGE incomplète : ${restart} ; rien n’est clos, la prochaine synchronisation relit la liste entière`, null);
  }
}

/** The connector, asking `pageSize` rows per answer (tests ask fewer). */
export function rgeConnectorWith(pageSize: number): Connector {
  return {
    name: 'rge',
    label: 'certifications RGE de l’ADEME',
    alertSource: 'entreprise',
    importers: { rge: rge as unknown as Importer<never, never> },
    baseUrl: { setting: 'RGE_API_URL', default: 'https://data.ademe.fr/data-fair/api/v1/datasets/liste-des-entreprises-rge-2' },
    // The ADEME refreshes the list each night.
    schedule: ['20 6 * * *'],
    staleAfterHours: 36,
    pages: (ctx) => rgePages(ctx, pageSize),
  };
}

export const rgeConnector = rgeConnectorWith(RGE_PAGE_SIZE);
