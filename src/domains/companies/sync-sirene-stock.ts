// The SIRENE directory's monthly stock as a full reload: the INSEE publishes on data.gouv.fr
// (dataset « Base Sirene des entreprises et de leurs établissements (SIREN, SIRET) ») the two
// stock files StockUniteLegale_utf8.zip and StockEtablissement_utf8.zip, each behind a stable
// resource link (`/fr/datasets/r/<resource id>`) that redirects to the month's file. The daily
// `sirene` connector follows the days in between; this one reloads the whole directory once a
// month, which catches what the daily changes missed.
//
// The check is daily and cheap: one conditional GET per file (its stored ETag and
// Last-Modified; 304 means nothing to do). A changed file is downloaded to a temporary file
// first (a zip is read from its end: the body is streamed to disk, memory stays bounded for the
// ~2 GB establishments file), then its CSV entry is read through the SIRENE importers in pages,
// each written with the cursor: the files done with their version, and the file being read with
// its version and the records written. A run killed inside a file resumes there (downloading it
// again if the temporary file is gone, skipping the records written); a file republished
// meanwhile is read from its start. Units come before establishments. Records are upserted by
// their key, a newer processing (`dateDernierTraitement…`, from the daily changes) never
// replaced by an older one; nothing is deleted (the stock keeps ceased units).
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { recordPages } from '../../sync/file-pages.js';
import { SyncHttpError, type StreamAnswer } from '../../sync/http.js';
import type { Importer, RawRecord } from '../../import/importer.js';
import { openInput } from '../../import/input.js';
import { sireneEtablissements, sireneUnites } from './import-sirene.js';

/** A stock file: its name, its stable resource on data.gouv.fr, its importer, and columns every layout of it has. */
export interface StockFile {
  name: 'StockUniteLegale' | 'StockEtablissement';
  resource: string;
  importer: 'sirene-unites' | 'sirene-etablissements';
  columns: readonly string[];
}

/** Units first: an establishment read before its unit would make a provisional company for nothing. */
export const SIRENE_STOCK_FILES: readonly StockFile[] = [
  { name: 'StockUniteLegale', resource: '825f4199-cadd-486c-ac46-a65a8ea1a047', importer: 'sirene-unites', columns: ['siren', 'dateCreationUniteLegale', 'etatAdministratifUniteLegale'] },
  { name: 'StockEtablissement', resource: '0651fb76-bcf3-4f6a-a38d-bc04fa708576', importer: 'sirene-etablissements', columns: ['siret', 'dateCreationEtablissement', 'etatAdministratifEtablissement'] },
];

/** Records per page (one transaction): ~5,000 rows of 35–50 short fields, a few megabytes. */
export const SIRENE_STOCK_PAGE_SIZE = 5000;

/** Downloads and reads of one file in a run (a body cut short, a stall, a broken archive). */
const READ_ATTEMPTS = 3;

/** While records already written are passed over, the lease is renewed every this many. */
const HEARTBEAT_EVERY = 10_000;

export interface StockVersion {
  etag: string | null;
  lastModified: string | null;
}

export interface SireneStockCursor {
  /** The version of each file read to its end, by name. */
  files: Record<string, StockVersion>;
  /** The file being read: its version and its records written (read or set aside). */
  current: { file: string; version: StockVersion; recordsDone: number } | null;
}

export interface SireneStockOptions {
  pageSize: number;
  /** Where the files are downloaded (about 2.5 GB free for the establishments). */
  dir: string;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const versionOf = (v: unknown): StockVersion => {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  return { etag: str(o.etag), lastModified: str(o.lastModified) };
};

export function readSireneStockCursor(value: unknown): SireneStockCursor {
  const c = (value && typeof value === 'object' ? value : {}) as Partial<SireneStockCursor>;
  const names = new Set<string>(SIRENE_STOCK_FILES.map((f) => f.name));
  const files: Record<string, StockVersion> = {};
  if (c.files && typeof c.files === 'object') for (const [name, v] of Object.entries(c.files)) if (names.has(name)) files[name] = versionOf(v);
  const cur = c.current;
  const current =
    cur && typeof cur === 'object' && typeof cur.file === 'string' && names.has(cur.file) && Number.isInteger(cur.recordsDone) && cur.recordsDone >= 0
      ? { file: cur.file, version: versionOf(cur.version), recordsDone: cur.recordsDone }
      : null;
  return { files, current };
}

/** The same published file: by ETag when either has one, else by Last-Modified; a file with neither is never the same. */
export const sameVersion = (a: StockVersion, b: StockVersion): boolean =>
  a.etag !== null || b.etag !== null ? a.etag === b.etag : a.lastModified !== null && a.lastModified === b.lastModified;

/** The download of a version: its name says which, so that a republished file is never taken for another. */
function localPath(dir: string, file: StockFile, version: StockVersion): string {
  const tag = createHash('sha256').update(JSON.stringify([version.etag, version.lastModified])).digest('hex').slice(0, 16);
  return join(dir, `${file.name}-${tag}.zip`);
}

/** The version of a download is kept next to it (written before the download is renamed into place). */
const versionFile = (zipPath: string) => `${zipPath}.version.json`;

async function namesIn(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/** Removes the downloads of `file` but `keep` (an older month, the part of a download stopped). */
async function sweepDownloads(dir: string, file: StockFile, keep: string | null): Promise<void> {
  for (const name of await namesIn(dir)) {
    const path = join(dir, name);
    if (name.startsWith(`${file.name}-`) && path !== keep && path !== (keep && versionFile(keep))) await rm(path, { force: true });
  }
}

/** The finished download of `file` on disk with its version, if any. */
async function downloaded(dir: string, file: StockFile): Promise<{ path: string; version: StockVersion } | null> {
  for (const name of await namesIn(dir)) {
    if (!name.startsWith(`${file.name}-`) || !name.endsWith('.zip')) continue;
    const path = join(dir, name);
    try {
      const version = versionOf(JSON.parse(await readFile(versionFile(path), 'utf8')));
      if (localPath(dir, file, version) === path) return { path, version };
    } catch {
      // Without its version it cannot be asked for: downloaded again.
    }
  }
  return null;
}

/** Removes a download and its version. */
async function forget(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(versionFile(path), { force: true });
}

/**
 * Streams the answer's body to disk (a part file renamed at the end): bounded memory, the
 * run's lease kept during a download of minutes. A body shorter than its Content-Length is an
 * error. Any other download of the file is removed first (at most one month on disk).
 */
async function download(ctx: SyncContext, file: StockFile, answer: StreamAnswer, dir: string, version: StockVersion): Promise<string> {
  if (!answer.stream) throw new SyncHttpError(`fichier ${file.name} sans contenu`, null);
  await mkdir(dir, { recursive: true });
  await sweepDownloads(dir, file, null);
  const target = localPath(dir, file, version);
  const part = `${target}.${randomUUID()}.part`;
  // Compared only when the body is sent as it is stored (no Content-Encoding undone on the way).
  const length = answer.headers.get('content-encoding') ? null : Number(answer.headers.get('content-length') ?? NaN);
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      ctx.heartbeat().then(
        () => done(null, chunk),
        (err: unknown) => done(new LeaseTrouble(err)),
      );
    },
  });
  try {
    await pipeline(answer.stream, meter, createWriteStream(part));
    if (length !== null && Number.isFinite(length) && received !== length) throw new SyncHttpError(`fichier ${file.name} tronqué : ${received} octets reçus sur ${length}`, null);
    await writeFile(versionFile(target), JSON.stringify(version));
    await rename(part, target);
    return target;
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
}

/** A body that failed on its way to the disk (cut short, stalled): downloaded again, within the run's tries. */
class DownloadFailed extends Error {}

/**
 * The zip of the version to read, or null when the file has not changed since it was read.
 * A download on disk (a run stopped inside the file, or before its first page) is asked with
 * its version: 304 reads it from the disk; a file gone or republished is downloaded.
 */
async function obtain(ctx: SyncContext, file: StockFile, known: StockVersion | undefined, explicit: boolean, dir: string): Promise<{ path: string; version: StockVersion } | null> {
  let disk = await downloaded(dir, file);
  // Read to its end already (the run stopped before removing it): of no more use.
  if (disk && known && !explicit && sameVersion(disk.version, known)) {
    await forget(disk.path);
    disk = null;
  }
  const asked = disk?.version ?? (known && !explicit ? known : null);
  const headers: Record<string, string> = {};
  if (asked?.etag) headers['if-none-match'] = asked.etag;
  if (asked?.lastModified) headers['if-modified-since'] = asked.lastModified;
  const answer = await ctx.http.getStream(`${ctx.baseUrl}/${file.resource}`, { headers, accept: [304] });
  if (answer.status === 304) {
    answer.stream?.destroy();
    if (disk) return disk;
    if (asked) return null;
    throw new SyncHttpError(`fichier ${file.name} : réponse 304 à une demande sans version`, 304);
  }
  const version: StockVersion = { etag: answer.headers.get('etag'), lastModified: answer.headers.get('last-modified') };
  try {
    return { path: await download(ctx, file, answer, dir, version), version };
  } catch (err) {
    if (err instanceof LeaseTrouble) throw err.original;
    throw new DownloadFailed(hidePaths((err as Error).message, dir));
  } finally {
    answer.stream?.destroy();
  }
}

/** A file whose rows are not the stock's: never taken as read (its version would be kept as done). */
class NotStockLayout extends Error {}

/** The run's lease could not be renewed (another process took it): the run stops, its download is left as it is. */
class LeaseTrouble extends Error {
  constructor(readonly original: unknown) {
    super('bail de synchronisation');
  }
}

/** A reason never shows where the files are kept. */
const hidePaths = (message: string, dir: string) => message.split(dir).join('(dossier temporaire)');

/** The records, the lease renewed while those already written are passed over (a long skip on a resume). */
async function* heartbeating<T>(records: AsyncIterable<RawRecord<T>>, ctx: SyncContext): AsyncGenerator<RawRecord<T>> {
  let n = 0;
  for await (const record of records) {
    if (++n % HEARTBEAT_EVERY === 0) await ctx.heartbeat().catch((err: unknown) => Promise.reject(new LeaseTrouble(err)));
    yield record;
  }
}

async function* stockPages(ctx: SyncContext, options: SireneStockOptions): AsyncGenerator<SyncPage> {
  const explicit = ctx.since !== null || ctx.until !== null;
  let state = readSireneStockCursor(ctx.cursor);
  for (const file of SIRENE_STOCK_FILES) {
    const importer = file.importer === 'sirene-unites' ? sireneUnites : sireneEtablissements;
    let current = state.current?.file === file.name ? state.current : null;
    for (let attempt = 1; ; attempt++) {
      let local: { path: string; version: StockVersion } | null;
      try {
        local = await obtain(ctx, file, state.files[file.name], explicit, options.dir);
      } catch (err) {
        // The request itself was already tried again by the HTTP client: only a body lost on its way is.
        if (!(err instanceof DownloadFailed)) throw err;
        if (attempt >= READ_ATTEMPTS) throw new SyncHttpError(`fichier ${file.name} : téléchargement interrompu (${err.message.slice(0, 200)}, ${READ_ATTEMPTS} essais)`, null);
        continue;
      }
      if (!local) break;
      // Another version than the one begun: read from its start.
      if (!current || !sameVersion(current.version, local.version)) current = { file: file.name, version: local.version, recordsDone: 0 };
      const stamp = ctx.now().toISOString();
      let finished = false;
      let input: Awaited<ReturnType<typeof openInput>> | null = null;
      try {
        input = await openInput(local.path);
        const fromStart = current.recordsDone === 0;
        let seen = 0;
        let unreadable = 0;
        for await (const page of recordPages(heartbeating(importer.read(input.stream), ctx), { pageSize: options.pageSize, skip: current.recordsDone })) {
          seen += page.records.length;
          unreadable += page.problems.length;
          const first = page.records[0] as Record<string, unknown> | undefined;
          if (first && !file.columns.every((c) => c in first)) throw new NotStockLayout(`fichier ${file.name} : colonnes ${file.columns.join(', ')} absentes, fichier laissé de côté`);
          if (page.last && fromStart && seen === 0 && unreadable > 0) throw new NotStockLayout(`fichier ${file.name} : aucune ligne lisible (${unreadable} illisibles), fichier laissé de côté`);
          if (page.last) {
            state = { files: { ...state.files, [file.name]: local.version }, current: null };
            finished = true;
            yield { importer: file.importer, records: page.records, problems: page.problems, cursor: state, stamp };
          } else {
            current = { ...current, recordsDone: page.done };
            state = { ...state, current };
            yield { importer: file.importer, records: page.records, problems: page.problems, cursor: state, stamp };
          }
        }
      } catch (err) {
        if (err instanceof LeaseTrouble) throw err.original;
        // A broken archive or a file of another layout is not kept: the next read downloads it again.
        await forget(local.path);
        if (err instanceof NotStockLayout) throw new SyncHttpError(err.message, null);
        const why = hidePaths((err as Error).message, options.dir).slice(0, 200);
        if (attempt >= READ_ATTEMPTS) throw new SyncHttpError(`fichier ${file.name} : lecture interrompue après ${current.recordsDone} enregistrements (${why}, ${READ_ATTEMPTS} essais)`, null);
        continue;
      } finally {
        input?.stream.destroy();
      }
      // Read to its end: its download is no longer needed. A run stopped inside keeps it for the next.
      if (finished) {
        await forget(local.path);
        break;
      }
    }
  }
}

export function makeSireneStockConnector(options: Partial<SireneStockOptions> = {}): Connector {
  const chosen: SireneStockOptions = { pageSize: SIRENE_STOCK_PAGE_SIZE, dir: join(tmpdir(), 'batidata-sirene-stock'), ...options };
  return {
    name: 'sirene-stock',
    label: 'entreprises et établissements (stock mensuel SIRENE)',
    alertSource: 'entreprise',
    importers: {
      'sirene-unites': sireneUnites as unknown as Importer<never, never>,
      'sirene-etablissements': sireneEtablissements as unknown as Importer<never, never>,
    },
    baseUrl: { setting: 'SIRENE_STOCK_URL', default: 'https://www.data.gouv.fr/fr/datasets/r' },
    // A daily check (two conditional requests): the month's stock is taken the day it appears.
    schedule: ['10 5 * * *'],
    // Published once a month: late only when no check has succeeded for over a month (the daily changes come by `sirene`).
    staleAfterHours: 40 * 24,
    pages: (ctx) => stockPages(ctx, chosen),
  };
}

export const sireneStockConnector: Connector = makeSireneStockConnector();
