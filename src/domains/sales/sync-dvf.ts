// The property sales of DVF from Etalab's geolocated files (« DVF géolocalisées », on
// files.data.gouv.fr): one gzip CSV per year and department, `{year}/departements/{dep}.csv.gz`
// under the `csv/` folder, which lists its years. The DGFiP releases twice a year (April and
// October), each release republishing whole years: a file that changed replaces its year of
// its department. The check is daily and cheap: one conditional GET per file (its stored ETag
// and Last-Modified; 304 means nothing to do).
//
// A changed file is streamed through the DVF importer's `read` as it downloads (bounded
// memory: a department's full year never sits in memory) and written in pages, each with the
// cursor: the file being read, its version and how many of its records are written, so that a
// run killed inside a file resumes there. The sales of that year and department that the new
// file no longer holds are deleted with its last page; the others are upserted by mutation,
// keeping their `ingested_at`: a release does not make the alerts report a whole year again.
//
// Which files: the last 5 years the folder lists (`--since`/`--until` choose other years, and
// read them again whatever their version), for every department of the reference lists but
// those DVF does not cover (Alsace-Moselle, whose land register is not the DGFiP's, and
// Mayotte) and the overseas collectivities. A file the folder does not have (404) is skipped.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { gunzipIfGzip, recordPages } from '../../sync/file-pages.js';
import { SyncHttpError } from '../../sync/http.js';
import type { Importer } from '../../import/importer.js';
import { DEPARTEMENTS } from '../reference/lists.js';
import { dvf } from './import-dvf.js';

/** Departments without a DVF file: Moselle, Bas-Rhin, Haut-Rhin (Livre foncier) and Mayotte. */
export const DVF_NOT_PUBLISHED: ReadonlySet<string> = new Set(['57', '67', '68', '976']);

/** The departments read by default: the reference list, less the overseas collectivities and those DVF does not cover. */
export const DVF_DEPARTEMENTS: readonly string[] = DEPARTEMENTS.filter((d) => d.region !== 'COM' && !DVF_NOT_PUBLISHED.has(d.code)).map((d) => d.code);

/** Years read by a scheduled run: the last ones the folder lists (DVF covers about five). */
export const DVF_YEARS = 5;

/**
 * Mutations per page (one transaction). A mutation is ~13 lines of ~40 fields: 2,000 a page
 * held ~30k line objects between two writes, and a 300,000-line department file peaked at
 * 348 MB resident (live heap 36 MB: collections lag behind); 500 a page peaks at ~240 MB,
 * 140 MB above the process at rest, whatever the file's size, for ~10 % more time (bench).
 */
export const DVF_PAGE_SIZE = 500;

/** Reads of one file in a run (a body cut short or stalled is read again, from the cursor). */
const READ_ATTEMPTS = 3;

/** Longest folder listing read (a few kilobytes in practice). */
const MAX_LISTING_BYTES = 1024 * 1024;

/** A file's version as the server gave it. */
export interface DvfFileVersion {
  etag: string | null;
  lastModified: string | null;
}

export interface DvfCursor {
  /** The version of each file read to its end, by `{year}/{dep}`. */
  files: Record<string, DvfFileVersion>;
  /** The file being read: its version, its records written, and when its reading began (its older sales are deleted at its end). */
  current: ({ file: string; recordsDone: number; startedAt: string } & DvfFileVersion) | null;
}

export interface DvfOptions {
  pageSize: number;
  departements: readonly string[];
  years: number;
}

/** A file whose lines are not DVF's: never taken as a year without sales (its sweep would delete them all). */
class NotDvfLayout extends Error {}

/** The first line of a mutation has the columns every DVF layout has. */
function inDvfLayout(record: unknown): boolean {
  const line = (record as { lines?: Record<string, string>[] } | null)?.lines?.[0];
  return !!line && line.id_mutation !== undefined && line.date_mutation !== undefined && line.valeur_fonciere !== undefined;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

export function readDvfCursor(value: unknown): DvfCursor {
  const c = (value && typeof value === 'object' ? value : {}) as Partial<DvfCursor>;
  const files: Record<string, DvfFileVersion> = {};
  if (c.files && typeof c.files === 'object')
    for (const [key, v] of Object.entries(c.files)) if (/^\d{4}\/[0-9AB]{2,3}$/.test(key) && v && typeof v === 'object') files[key] = { etag: str(v.etag), lastModified: str(v.lastModified) };
  const cur = c.current;
  const current =
    cur && typeof cur === 'object' && typeof cur.file === 'string' && Number.isInteger(cur.recordsDone) && cur.recordsDone >= 0 && typeof cur.startedAt === 'string'
      ? { file: cur.file, recordsDone: cur.recordsDone, startedAt: cur.startedAt, etag: str(cur.etag), lastModified: str(cur.lastModified) }
      : null;
  return { files, current };
}

/** The years of an nginx folder listing (`<a href="2024/">2024/</a>`), in order. */
export function yearsListed(html: string): number[] {
  const years = new Set<number>();
  for (const m of html.matchAll(/href="(?:[^"]*\/)?(\d{4})\/"/g)) years.add(Number(m[1]));
  return [...years].sort((a, b) => a - b);
}

async function readText(stream: Readable, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new SyncHttpError(`liste des années de DVF de plus de ${Math.round(maxBytes / 1024)} Ko`, null);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The years to read: the last `years` listed, or those of `--since`/`--until`. */
async function chosenYears(ctx: SyncContext, options: DvfOptions): Promise<number[]> {
  const { stream } = await ctx.http.getStream(`${ctx.baseUrl}/`);
  const listed = yearsListed(stream ? await readText(stream, MAX_LISTING_BYTES) : '');
  if (!listed.length) throw new SyncHttpError('le dossier des fichiers DVF ne liste aucune année', null);
  if (ctx.since === null && ctx.until === null) return listed.slice(-options.years);
  const from = ctx.since ? Number(ctx.since.slice(0, 4)) : 0;
  const to = ctx.until ? Number(ctx.until.slice(0, 4)) : 9999;
  return listed.filter((y) => y >= from && y <= to);
}

const sameVersion = (a: DvfFileVersion, b: DvfFileVersion) => (a.etag !== null || b.etag !== null ? a.etag === b.etag : a.lastModified !== null && a.lastModified === b.lastModified);

/** Deletes the sales of `year` in `dep` not written since `startedAt`: those the new file no longer holds. */
function sweep(dep: string, year: number, startedAt: string) {
  return async (trx: Knex.Transaction) => {
    await trx('sales').where('departement', dep).andWhere('date_mutation', '>=', `${year}-01-01`).andWhere('date_mutation', '<=', `${year}-12-31`).andWhere('updated_at', '<', startedAt).delete();
  };
}

async function* dvfPages(ctx: SyncContext, options: DvfOptions): AsyncGenerator<SyncPage> {
  const explicit = ctx.since !== null || ctx.until !== null;
  const years = await chosenYears(ctx, options);
  const cursor = readDvfCursor(ctx.cursor);
  // Versions of years out of the window are dropped with the next page written.
  const kept = Object.entries(cursor.files).filter(([key]) => explicit || years.includes(Number(key.slice(0, 4))));
  let state: DvfCursor = { files: Object.fromEntries(kept), current: cursor.current };
  for (const year of years) {
    for (const dep of options.departements) {
      const key = `${year}/${dep}`;
      const url = `${ctx.baseUrl}/${year}/departements/${encodeURIComponent(dep)}.csv.gz`;
      let current = state.current?.file === key ? state.current : null;
      const known = state.files[key];
      for (let attempt = 1; ; attempt++) {
        const headers: Record<string, string> = {};
        // A file begun is read whole again (its version is checked below); otherwise only when it changed.
        if (!current && known && !explicit) {
          if (known.etag) headers['if-none-match'] = known.etag;
          if (known.lastModified) headers['if-modified-since'] = known.lastModified;
        }
        const answer = await ctx.http.getStream(url, { headers, accept: [304, 404] });
        if (answer.status !== 200) {
          answer.stream?.destroy();
          // Gone while it was being read: the cursor forgets it.
          if (current) {
            state = { ...state, current: null };
            yield { records: [], cursor: state };
          }
          break;
        }
        const version: DvfFileVersion = { etag: answer.headers.get('etag'), lastModified: answer.headers.get('last-modified') };
        // Another version than the one begun: read from its start.
        if (!current || !sameVersion(current, version)) current = { file: key, recordsDone: 0, startedAt: ctx.now().toISOString(), ...version };
        const stamp = ctx.now().toISOString();
        if (!answer.stream) throw new SyncHttpError(`fichier DVF ${key} sans contenu`, null);
        const body = gunzipIfGzip(answer.stream);
        let finished = false;
        try {
          const fromStart = current.recordsDone === 0;
          let seen = 0;
          let unreadable = 0;
          for await (const page of recordPages(dvf.read(body), { pageSize: options.pageSize, skip: current.recordsDone })) {
            seen += page.records.length;
            unreadable += page.problems.length;
            if (page.records.length && !inDvfLayout(page.records[0])) throw new NotDvfLayout(`fichier DVF ${key} : colonnes id_mutation, date_mutation ou valeur_fonciere absentes, fichier laissé de côté (ses ventes sont gardées)`);
            if (page.last && fromStart && seen === 0 && unreadable > 0) throw new NotDvfLayout(`fichier DVF ${key} : aucune ligne lisible (${unreadable} illisibles), fichier laissé de côté (ses ventes sont gardées)`);
            if (page.last) {
              const begun: string = current.startedAt;
              state = { files: { ...state.files, [key]: version }, current: null };
              finished = true;
              yield { records: page.records, problems: page.problems, cursor: state, stamp, after: sweep(dep, year, begun) };
            } else {
              current = { ...current, recordsDone: page.done };
              state = { ...state, current };
              yield { records: page.records, problems: page.problems, cursor: state, stamp };
            }
          }
        } catch (err) {
          if (err instanceof NotDvfLayout) throw new SyncHttpError(err.message, null);
          if (attempt >= READ_ATTEMPTS) throw new SyncHttpError(`fichier DVF ${key} : lecture interrompue après ${current.recordsDone} mutations (${(err as Error).message}, ${READ_ATTEMPTS} essais)`, null);
          continue;
        } finally {
          body.destroy();
        }
        if (finished) break;
      }
    }
  }
}

export function makeDvfConnector(options: Partial<DvfOptions> = {}): Connector {
  const chosen: DvfOptions = { pageSize: DVF_PAGE_SIZE, departements: DVF_DEPARTEMENTS, years: DVF_YEARS, ...options };
  return {
    name: 'dvf',
    label: 'ventes immobilières (DVF géolocalisées)',
    alertSource: 'dvf',
    importers: { dvf: dvf as unknown as Importer<never, never> },
    baseUrl: { setting: 'DVF_FILES_URL', default: 'https://files.data.gouv.fr/geo-dvf/latest/csv' },
    // A daily check (conditional requests): the releases of April and October are taken the day after.
    schedule: ['20 6 * * *'],
    staleAfterHours: 36,
    pages: (ctx) => dvfPages(ctx, chosen),
  };
}

export const dvfConnector: Connector = makeDvfConnector();
