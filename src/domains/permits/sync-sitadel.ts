// The Sitadel lists of building permits from the SDES's DiDo API (the former direct ZIP files
// are gone). Each list (housing, non-residential premises, demolition, development) is a
// datafile republished whole every month as a new `millesime` (`YYYY-MM`): the daily check
// asks each datafile's dataset for its millesimes (`GET /datafiles/{rid}` names the dataset,
// `GET /datasets/{id}` lists its datafiles' millesimes with their diffusion date), and a list
// whose latest diffused millesime is newer than the one done is downloaded
// (`/datafiles/{rid}/csv?millesime=…`, with the columns' labels and codes as the two header
// lines the Sitadel importer reads) and streamed through that importer in pages. A list's
// millesime holds the whole list: the older millesimes missed are not read. The cursor keeps
// the last millesime done per list and, for the one in progress, the records written, so
// that a run killed inside a list resumes there; the rows read are checked against the
// millesime's announced `rows` (a body cut short is read again).
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { gunzipIfGzip, recordPages } from '../../sync/file-pages.js';
import { SyncHttpError } from '../../sync/http.js';
import type { Importer } from '../../import/importer.js';
import { sitadel } from './import-sitadel.js';

/** The four lists: DiDo datafile ids, stable across the monthly republications. */
export const SITADEL_LISTS: readonly { key: string; rid: string; label: string }[] = [
  { key: 'logements', rid: '8b35affb-55fc-4c1f-915b-7750f974446a', label: 'autorisations créant des logements' },
  { key: 'locaux', rid: 'f8f0700f-806c-40a7-83b1-f21cf507e7c4', label: 'autorisations créant des locaux non résidentiels' },
  { key: 'demolir', rid: '1a9a2f0c-56fe-4e69-84a7-fbbda2121f02', label: 'permis de démolir' },
  { key: 'amenager', rid: '96883f50-538b-41f9-a059-c6eb97e6a23a', label: 'permis d’aménager' },
];

/** Rows per page (one transaction). */
export const SITADEL_PAGE_SIZE = 2000;

/** Reads of one list in a run (a body cut short or stalled is read again, from the cursor). */
const READ_ATTEMPTS = 3;

const MILLESIME = /^\d{4}-(0[1-9]|1[0-2])$/;

export interface SitadelCursor {
  /** The last millesime read to its end, by list. */
  done: Record<string, string>;
  /** The list being read: its millesime and its records written. */
  current: { list: string; millesime: string; recordsDone: number } | null;
}

export interface SitadelOptions {
  pageSize: number;
  lists: readonly { key: string; rid: string; label: string }[];
}

export function readSitadelCursor(value: unknown): SitadelCursor {
  const c = (value && typeof value === 'object' ? value : {}) as Partial<SitadelCursor>;
  const done: Record<string, string> = {};
  if (c.done && typeof c.done === 'object') for (const [key, m] of Object.entries(c.done)) if (typeof m === 'string' && MILLESIME.test(m)) done[key] = m;
  const cur = c.current;
  const current =
    cur && typeof cur === 'object' && typeof cur.list === 'string' && typeof cur.millesime === 'string' && MILLESIME.test(cur.millesime) && Number.isInteger(cur.recordsDone) && cur.recordsDone >= 0
      ? { list: cur.list, millesime: cur.millesime, recordsDone: cur.recordsDone }
      : null;
  return { done, current };
}

interface DidoMillesime {
  millesime?: unknown;
  date_diffusion?: unknown;
  rows?: unknown;
}
interface DidoDataset {
  datafiles?: { rid?: unknown; millesimes?: DidoMillesime[] }[];
}

/** The latest millesime already diffused among a datafile's, with its announced row count. */
export function latestDiffused(millesimes: readonly DidoMillesime[], now: Date): { millesime: string; rows: number | null } | null {
  let best: { millesime: string; rows: number | null } | null = null;
  for (const m of millesimes) {
    if (typeof m.millesime !== 'string' || !MILLESIME.test(m.millesime)) continue;
    // A millesime announced for later (an embargo) is not diffused yet.
    if (typeof m.date_diffusion === 'string' && Date.parse(m.date_diffusion) > now.getTime()) continue;
    if (!best || m.millesime > best.millesime) best = { millesime: m.millesime, rows: typeof m.rows === 'number' && Number.isInteger(m.rows) && m.rows >= 0 ? m.rows : null };
  }
  return best;
}

/** The datafile's latest diffused millesime: its dataset named by the datafile, its millesimes listed by the dataset. */
async function latestMillesime(ctx: SyncContext, rid: string, datasets: Map<string, DidoDataset>): Promise<{ millesime: string; rows: number | null } | null> {
  const { body: datafile } = await ctx.http.getJson<{ dataset?: { id?: unknown } }>(`${ctx.baseUrl}/datafiles/${encodeURIComponent(rid)}`);
  const id = datafile?.dataset?.id;
  if (typeof id !== 'string' || !id) throw new SyncHttpError(`DiDo : le fichier de données ${rid} ne nomme pas son jeu de données`, null);
  let dataset = datasets.get(id);
  if (!dataset) {
    dataset = (await ctx.http.getJson<DidoDataset>(`${ctx.baseUrl}/datasets/${encodeURIComponent(id)}`)).body ?? {};
    datasets.set(id, dataset);
  }
  const file = (dataset.datafiles ?? []).find((f) => f.rid === rid);
  if (!file) throw new SyncHttpError(`DiDo : le jeu de données ${id} ne liste pas le fichier ${rid}`, null);
  return latestDiffused(Array.isArray(file.millesimes) ? file.millesimes : [], ctx.now());
}

async function* sitadelPages(ctx: SyncContext, options: SitadelOptions): AsyncGenerator<SyncPage> {
  const explicit = ctx.since !== null || ctx.until !== null;
  let state = readSitadelCursor(ctx.cursor);
  const datasets = new Map<string, DidoDataset>();
  for (const list of options.lists) {
    const latest = await latestMillesime(ctx, list.rid, datasets);
    if (!latest) continue;
    const resuming = state.current?.list === list.key && state.current.millesime === latest.millesime;
    const done = state.done[list.key];
    // Done with this millesime (or a later one), unless asked again (--since/--until).
    if (!resuming && !explicit && done !== undefined && done >= latest.millesime) continue;
    let recordsDone = resuming ? (state.current?.recordsDone ?? 0) : 0;
    const params = new URLSearchParams({ millesime: latest.millesime, withColumnName: 'true', withColumnDescription: 'true', withColumnUnit: 'false' });
    const url = `${ctx.baseUrl}/datafiles/${encodeURIComponent(list.rid)}/csv?${params}`;
    const stamp = ctx.now().toISOString();
    for (let attempt = 1; ; attempt++) {
      const { stream } = await ctx.http.getStream(url);
      if (!stream) throw new SyncHttpError(`Sitadel ${list.key} ${latest.millesime} : réponse sans contenu`, null);
      const body = gunzipIfGzip(stream);
      let finished = false;
      try {
        for await (const page of recordPages(sitadel.read(body), { pageSize: options.pageSize, skip: recordsDone })) {
          if (page.last) {
            // A body cut short between two lines reads as a shorter list: the count tells.
            if (latest.rows !== null && page.done < latest.rows) throw new Error(`${page.done} lignes reçues pour ${latest.rows} annoncées`);
            state = { done: { ...state.done, [list.key]: latest.millesime }, current: null };
            finished = true;
          } else {
            recordsDone = page.done;
            state = { ...state, current: { list: list.key, millesime: latest.millesime, recordsDone } };
          }
          yield { records: page.records, problems: page.problems, cursor: state, stamp };
        }
      } catch (err) {
        if (attempt >= READ_ATTEMPTS) throw new SyncHttpError(`Sitadel ${list.key} ${latest.millesime} : lecture interrompue après ${recordsDone} lignes (${(err as Error).message}, ${READ_ATTEMPTS} essais)`, null);
        continue;
      } finally {
        body.destroy();
      }
      if (finished) break;
    }
  }
}

export function makeSitadelConnector(options: Partial<SitadelOptions> = {}): Connector {
  const chosen: SitadelOptions = { pageSize: SITADEL_PAGE_SIZE, lists: SITADEL_LISTS, ...options };
  return {
    name: 'permis',
    label: 'autorisations d’urbanisme (Sitadel)',
    alertSource: 'permis',
    importers: { permis: sitadel as unknown as Importer<never, never> },
    baseUrl: { setting: 'SITADEL_API_URL', default: 'https://data.statistiques.developpement-durable.gouv.fr/dido/api/v1' },
    // A daily look at the millesimes (a few small requests); a new one, monthly, is read whole.
    schedule: ['40 6 * * *'],
    staleAfterHours: 36,
    pages: (ctx) => sitadelPages(ctx, chosen),
  };
}

export const sitadelConnector: Connector = makeSitadelConnector();
