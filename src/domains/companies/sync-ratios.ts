// The « ratios financiers BCE/INPI » from data.economie.gouv.fr (Opendatasoft Explore API
// v2.1, dataset `ratios_inpi_bce`): the whole CSV export (`;`-separated, a UTF-8 BOM,
// gzipped), read again only when the portal has processed the dataset since the last export
// read whole (`metas.default.data_processed`). The export is streamed (bounded memory)
// through the ratios importer's own reader, in pages of records upserted on (SIREN, closing
// date, kind of accounts). The cursor counts the export's records already written: a run
// killed mid-export reads the export again and skips them. A large export can end early
// without an error: the records read are checked against the dataset's count.
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { SyncHttpError } from '../../sync/http.js';
import type { Importer } from '../../import/importer.js';
import { ratios } from './import-ratios.js';

export const RATIOS_DATASET = 'ratios_inpi_bce';

/** Records per page (one transaction each). */
export const RATIOS_PAGE_SIZE = 1000;

/** Reads of the export in one run (a body cut short, an export ended early) before the run stops. */
const EXPORT_ATTEMPTS = 3;

export interface RatiosCursor {
  /** The `data_processed` of the export read whole, or of the export in progress. */
  processed: string | null;
  /** Records of the export in progress already written (skipped when it is read again); null once it is read whole. */
  recordsDone: number | null;
}

export function readRatiosCursor(value: unknown): RatiosCursor {
  if (!value || typeof value !== 'object') return { processed: null, recordsDone: null };
  const c = value as Partial<RatiosCursor>;
  const processed = typeof c.processed === 'string' ? c.processed : null;
  if (processed === null || c.recordsDone === null || c.recordsDone === undefined) return { processed, recordsDone: null };
  // A count that cannot be read: the export in progress is read again from its start.
  return { processed, recordsDone: Number.isInteger(c.recordsDone) && c.recordsDone >= 0 ? c.recordsDone : 0 };
}

interface DatasetAnswer {
  metas?: { default?: { data_processed?: unknown; records_count?: unknown } };
}

const datasetUrl = (ctx: SyncContext) => `${ctx.baseUrl}/catalog/datasets/${RATIOS_DATASET}`;

/** The dataset's last processing and its count of records (the portal's metadata, else `/records?limit=0`). */
async function datasetState(ctx: SyncContext): Promise<{ processed: string | null; count: number | null }> {
  const { body } = await ctx.http.getJson<DatasetAnswer>(datasetUrl(ctx));
  const metas = body?.metas?.default;
  const processed = typeof metas?.data_processed === 'string' ? metas.data_processed : null;
  if (typeof metas?.records_count === 'number' && Number.isInteger(metas.records_count)) return { processed, count: metas.records_count };
  const counted = await ctx.http.getJson<{ total_count?: unknown }>(`${datasetUrl(ctx)}/records?limit=0`);
  const total = counted.body?.total_count;
  return { processed, count: typeof total === 'number' && Number.isInteger(total) ? total : null };
}

/** The export's URL: a stable order, so that the records already written are the same ones when it is read again. */
export function ratiosExportUrl(baseUrl: string): string {
  const params = new URLSearchParams({ delimiter: ';', with_bom: 'true', order_by: 'siren,date_cloture_exercice,type_bilan' });
  return `${baseUrl}/catalog/datasets/${RATIOS_DATASET}/exports/csv?${params}`;
}

/**
 * The body as text bytes: a body sent with `Content-Encoding: gzip` is already decompressed
 * by the client; an export served as a `.gz` file (its first bytes 1f 8b) is decompressed here.
 */
async function decompressed(stream: Readable): Promise<Readable> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const first = await iterator.next();
  if (first.done) return Readable.from([]);
  const head = first.value;
  async function* all(): AsyncGenerator<Buffer> {
    yield head;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const body = Readable.from(all());
  if (head[0] !== 0x1f || head[1] !== 0x8b) return body;
  return pipeline(body, createGunzip(), () => undefined);
}

/** One read of the export, its pages from the `done`-th record on; throws when it is cut short or ends early. */
async function* exportPages(ctx: SyncContext, pageSize: number, processed: string, count: number | null, done: number): AsyncGenerator<SyncPage & { cursor: RatiosCursor }> {
  const { stream } = await ctx.http.getStream(ratiosExportUrl(ctx.baseUrl));
  if (!stream) throw new SyncHttpError('export des ratios sans contenu', null);
  let body: Readable | null = null;
  let seen = 0;
  let records: unknown[] = [];
  let problems: { position: number; reason: string }[] = [];
  const page = (): SyncPage & { cursor: RatiosCursor } => {
    const out = { records, problems, cursor: { processed, recordsDone: seen } };
    records = [];
    problems = [];
    return out;
  };
  try {
    try {
      body = await decompressed(stream);
      for await (const record of ratios.read(body)) {
        seen += 1;
        if (seen <= done) continue;
        if ('error' in record) problems.push({ position: record.position, reason: record.error });
        else records.push(record.value);
        if ('stop' in record && record.stop) break;
        if (records.length + problems.length >= pageSize) yield page();
      }
    } catch (err) {
      if (err instanceof SyncHttpError) throw err;
      throw new SyncHttpError(`export des ratios interrompu après ${seen} enregistrements (${(err as Error).message})`, null);
    }
    // An export can end early without an error: the count decides; what was read is kept.
    if (count !== null && seen !== count) {
      if (seen > done) yield page();
      throw new SyncHttpError(`export des ratios incomplet : ${seen} enregistrements reçus pour ${count} annoncés`, null);
    }
    yield { ...page(), cursor: { processed, recordsDone: null } };
  } finally {
    body?.destroy();
    stream.destroy();
  }
}

async function* ratiosPages(ctx: SyncContext, pageSize: number): AsyncGenerator<SyncPage> {
  const cursor = readRatiosCursor(ctx.cursor);
  const { processed, count } = await datasetState(ctx);
  if (!processed) throw new SyncHttpError(`le portail ne donne pas la date de traitement (data_processed) de ${RATIOS_DATASET} : export non lu`, null);
  const resuming = cursor.processed === processed && cursor.recordsDone !== null;
  // Unchanged since the export read whole: nothing to read (an on-demand run with --since reads it again).
  if (!resuming && cursor.processed === processed && ctx.since === null) return;
  let done = resuming ? (cursor.recordsDone as number) : 0;
  for (let attempt = 1; ; attempt++) {
    try {
      for await (const page of exportPages(ctx, pageSize, processed, count, done)) {
        yield page;
        if (page.cursor.recordsDone !== null) done = page.cursor.recordsDone;
      }
      return;
    } catch (err) {
      // A cut body or an export ended early: read again from the records written, a few times.
      if (attempt >= EXPORT_ATTEMPTS || !(err instanceof SyncHttpError) || err.status !== null) throw err;
    }
  }
}

/** The connector, writing `pageSize` records per page (tests write fewer). */
export function ratiosConnectorWith(pageSize: number): Connector {
  return {
    name: 'ratios',
    label: 'ratios financiers BCE/INPI',
    alertSource: 'entreprise',
    importers: { ratios: ratios as unknown as Importer<never, never> },
    baseUrl: { setting: 'RATIOS_API_URL', default: 'https://data.economie.gouv.fr/api/explore/v2.1' },
    // A daily look at data_processed; the export is read only when it changed.
    schedule: ['40 6 * * *'],
    staleAfterHours: 36,
    pages: (ctx) => ratiosPages(ctx, pageSize),
  };
}

export const ratiosConnector = ratiosConnectorWith(RATIOS_PAGE_SIZE);
