// Runs one import: records read from a file, mapped by the source's importer, written in
// batched transactions; bad records skipped and reported with their place and reason.
import { lockForWrite } from '../platform/db/busy.js';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { startCheckpointer } from '../platform/db/checkpointer.js';
import { kindOf, sqliteFileOf, type Database } from '../platform/db/database.js';
import { withSqlite } from '../platform/db/statements.js';
import { deferrableSearchTables } from '../platform/search/full-text.js';
import { compactRewrittenTables, deferIndexes, restoreDeferredIndexes, type DeferrableTable } from '../platform/db/deferred-indexes.js';
import { makeRoomForWriters } from '../platform/db/writer-queue.js';
import { analyzeChangedTables, analyzeGrowingTables, countTableChanges, type TableChanges } from '../platform/db/statistics.js';
import { MAX_PROBLEMS_KEPT, rowBatches, type BatchSizes, type RowBatch } from './batches.js';
import { ImportInputError, openInput } from './input.js';
import { createProgress, type Progress } from './progress.js';
import type { ReadJob, ReadMessage } from './read-worker.js';
import { rowBuilder } from './records.js';
import { catalogueOf, deferrableTablesOf, type Importer } from './importer.js';

export interface ImportReport {
  file: string;
  read: number;
  inserted: number;
  updated: number;
  /** Rows read and valid but not written: the stored version is newer. */
  kept: number;
  skipped: number;
  /** The first bad records (place and reason); `skipped` counts them all. */
  problems: { position: number; reason: string }[];
  /** Values the format cannot hold (NaN, Infinity, as pandas writes them) read as null. */
  nulls: number;
  /** The importer's notes on records kept (a detail unreadable, a contact detail removed), with how many records each. */
  notes: Record<string, number>;
  /** Where and why reading stopped before the end of the file (a JSON syntax error): the batches read before are written. */
  stopped: { position: number; reason: string } | null;
  seconds: number;
}

/**
 * Rows per batch, each written in a transaction of its own. Large batches: the SIRENE files
 * are not in key order, so each batch rewrites pages all over the keys' indexes (the
 * companies' and the search index's); 20,000 rows write them ~4 times less often than
 * 5,000, for ~100 MB more memory, and hold the write lock ~0.5 s.
 */
export const BATCH_SIZE = 20_000;

/**
 * Batches read ahead and sorted together by the importer's `sortKey` before they are
 * written, each batch still in a transaction of its own. The SIRENE files are not in key
 * order: written as read, every batch touches pages all over the key indexes, and rewrites
 * them at each commit (2 GB of pages for a million companies); sorted over ten batches,
 * each batch covers a tenth of the keys. 200,000 SIRENE rows are ~80 MB in memory. The
 * first batch of a file goes out alone and the windows grow to this size (1, 2, 4, 8, 10
 * batches), so that the writes start without waiting for a whole window to be read.
 */
export const SORT_WINDOW_BATCHES = 10;

/**
 * SQLite page cache of the import's connection while it runs (KiB; SQLite's default is
 * 2 MiB): the pages of the indexes a batch touches all over (a million companies: ~200 MiB
 * of companies, keys and search index). 256 MiB instead of 32 took the main thread's time
 * for the large SIRENE units file from 34 s to 29 s (2026-11-21), for ~240 MB more memory.
 */
const IMPORT_CACHE_KIB = 256 * 1024;

/**
 * On SQLite, for the time of an import: a larger page cache (the indexes a batch touches
 * stay in memory), statement journals in memory, and WAL checkpoints in a thread of their
 * own (`startCheckpointer`): every batch commits thousands of pages, and copying them into
 * the database inside the commits took ~10 % of the large SIRENE import's time (26.1 s
 * against 23.6 s without checkpoints, 2026-11-21), on the core the import does not use.
 * Returns what puts the connection back as it was.
 */
async function importSettings(db: Database): Promise<() => Promise<void>> {
  if (kindOf(db) !== 'sqlite') return async () => undefined;
  const before = await withSqlite(db, (conn) => {
    const saved = { cache: conn.pragma('cache_size', { simple: true }) as number, temp: conn.pragma('temp_store', { simple: true }) as number };
    conn.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
    conn.pragma('temp_store = memory');
    return saved;
  });
  const file = sqliteFileOf(db);
  // Without the thread (it failed to start), the commits checkpoint as SQLite does by default.
  const checkpointer = file ? await startCheckpointer(db, file).catch(() => null) : null;
  return async () => {
    await checkpointer?.stop();
    await withSqlite(db, (conn) => {
      conn.pragma(`cache_size = ${Number(before.cache)}`);
      conn.pragma(`temp_store = ${Number(before.temp)}`);
    });
  };
}

/**
 * Files from this size on are read in a thread of their own (read-worker.ts) while this one
 * writes: reading, parsing and mapping took ~4 s of the large SIRENE units import's 22 s,
 * and the rows it kept for the sort window made most of the garbage collector's work. Below
 * it, starting the thread (~0.3 s) costs more than it saves.
 */
export const READ_IN_WORKER_MIN_BYTES = 4 * 1024 * 1024;

/**
 * Files from this size on defer the secondary indexes of the empty tables they fill
 * (PostgreSQL, see `deferIndexes`: the search tables' GIN indexes, and the B-tree indexes
 * the importer's catalogue names): dropping and building them again costs a few statements
 * per index, more than a small file's rows cost the indexes.
 */
export const DEFER_INDEXES_MIN_BYTES = 4 * 1024 * 1024;

/** Where the records are read: `auto` takes the reading thread for a registered importer and a large file. */
export type ReadPlace = 'auto' | 'worker' | 'thread';

/** An input's batches, however they are read. */
interface RowSource<Row> {
  name: string;
  totalBytes: number;
  batches: AsyncGenerator<RowBatch<Row>>;
  close(): Promise<void>;
}

async function readHere<Raw, Row>(importer: Importer<Raw, Row>, path: string, stamp: string, sizes: BatchSizes): Promise<RowSource<Row>> {
  const input = await openInput(path, importer.input.zipEntries);
  return {
    name: input.name,
    totalBytes: input.totalBytes,
    batches: rowBatches(importer, input.stream, input.readBytes, stamp, sizes),
    close: async () => void input.stream.destroy(),
  };
}

// The reading thread loads TypeScript sources: the loader this process runs under is
// registered in the thread first (a worker does not inherit it).
const READ_WORKER = new URL(`./read-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;
const READ_WORKER_SOURCE = `(async () => {
  const { workerData } = await import('node:worker_threads');
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();`;

/** The ESM entry of tsx's API (its `register`), by its package's exports map. */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), (exports['./esm/api'] as { import: { default: string } }).import.default)).href;
}

async function readInWorker<Row>(catalogue: string, source: string, path: string, stamp: string, sizes: BatchSizes): Promise<RowSource<Row>> {
  const job: ReadJob = { catalogue, source, path, stamp, ...sizes, inFlight: 2 * sizes.windowBatches };
  const tsx = READ_WORKER.endsWith('.ts') ? tsxEsmApi() : null;
  const worker = new Worker(READ_WORKER_SOURCE, { eval: true, workerData: { ...job, entry: READ_WORKER, tsx } });
  const queue: (ReadMessage | { kind: 'stopped'; message: string })[] = [];
  let notify: (() => void) | null = null;
  const push = (m: (typeof queue)[number]) => {
    queue.push(m);
    notify?.();
    notify = null;
  };
  worker.on('message', (m: ReadMessage) => push(m));
  worker.on('error', (err: Error) => push({ kind: 'stopped', message: err.message }));
  worker.on('exit', (code) => push({ kind: 'stopped', message: `fil de lecture arrêté (code ${code})` }));
  const next = async () => {
    while (!queue.length) await new Promise<void>((resolve) => (notify = resolve));
    return queue.shift() as (typeof queue)[number];
  };
  const fail = (m: ReadMessage | { kind: 'stopped'; message: string }): never => {
    if (m.kind === 'failed' && m.input) throw new ImportInputError(m.message);
    throw new Error(m.kind === 'failed' || m.kind === 'stopped' ? m.message : 'lecture interrompue');
  };
  const close = async () => void (await worker.terminate());
  const opened = await next();
  if (opened.kind !== 'opened') {
    await close();
    fail(opened);
  }
  const { name, totalBytes } = opened as { name: string; totalBytes: number };
  let build: ((values: string[]) => Record<string, string>) | null = null;
  let builtFor = '';
  async function* batches(): AsyncGenerator<RowBatch<Row>> {
    for (;;) {
      const m = await next();
      if (m.kind === 'end') return;
      if (m.kind !== 'batch') fail(m);
      const batch = m as Extract<ReadMessage, { kind: 'batch' }>;
      const parsed = JSON.parse(batch.rows) as unknown[];
      let rows = parsed as Row[];
      if (batch.columns) {
        const shape = batch.columns.join('\u0000');
        if (!build || shape !== builtFor) {
          build = rowBuilder(batch.columns);
          builtFor = shape;
        }
        rows = (parsed as string[][]).map(build) as Row[];
      }
      yield { read: batch.read, readBytes: batch.readBytes, skipped: batch.skipped, problems: batch.problems, nulls: batch.nulls, notes: batch.notes, ...(batch.stopped ? { stopped: batch.stopped } : {}), rows };
      // Taken (the import asks for the next batch while it writes this one): the thread may
      // send one more, so at most `inFlight` batches wait besides the one being written.
      worker.postMessage('next');
    }
  }
  return { name, totalBytes, batches: batches(), close };
}

export async function importFile<Raw, Row>(
  db: Database,
  importer: Importer<Raw, Row>,
  path: string,
  options: {
    now?: () => Date;
    progress?: (label: string, total: number) => Progress;
    batchSize?: number;
    sortWindowBatches?: number;
    readIn?: ReadPlace;
    /** PostgreSQL: build the secondary indexes of the tables found empty (the search tables', the importer's `deferrableTablesOf`) after the load rather than row by row (`deferIndexes`); by default for a file of DEFER_INDEXES_MIN_BYTES or more. */
    deferIndexes?: boolean;
  } = {},
): Promise<ImportReport> {
  const now = options.now ?? (() => new Date());
  const started = Date.now();
  const sizes: BatchSizes = { batchSize: options.batchSize ?? BATCH_SIZE, windowBatches: options.sortWindowBatches ?? SORT_WINDOW_BATCHES };
  // An importer of a catalogue can be loaded by the reading thread; one made elsewhere (a test's) cannot.
  const catalogue = catalogueOf(importer);
  const readIn = options.readIn ?? 'auto';
  if (readIn === 'worker' && !catalogue) throw new Error(`Import ${importer.name} : importateur non enregistré, lecture dans un fil impossible.`);
  const fileBytes = await sizeOf(path);
  const inWorker = readIn === 'worker' || (readIn === 'auto' && !!catalogue && fileBytes >= READ_IN_WORKER_MIN_BYTES);
  const report: ImportReport = { file: path, read: 0, inserted: 0, updated: 0, kept: 0, skipped: 0, problems: [], nulls: 0, notes: {}, stopped: null, seconds: 0 };
  let restore: () => Promise<void> = async () => undefined;
  let source: RowSource<Row> | null = null;
  let progress: Progress | null = null;
  let readBytes = 0;
  let loaded = false;
  let deferrable: DeferrableTable[] = [];
  let dropped: string[] = [];
  // PostgreSQL: the rows changed per table, for the statistics of the tables a load changed (statistics.ts).
  const changes: TableChanges = new Map();
  // The same rows counted since each table's last analysis during the load.
  const sinceAnalysis: TableChanges = new Map();
  try {
    restore = await importSettings(db);
    // A first load into empty tables: their secondary indexes (but those the load reads) built once at the end.
    if (options.deferIndexes ?? fileBytes >= DEFER_INDEXES_MIN_BYTES) {
      deferrable = [...(await deferrableSearchTables(db)), ...deferrableTablesOf(importer)];
      dropped = await deferIndexes(db, deferrable, fileBytes);
    }
    const stamp = now().toISOString();
    source = inWorker && catalogue ? await readInWorker<Row>(catalogue, importer.name, path, stamp, sizes) : await readHere(importer, path, stamp, sizes);
    progress = (options.progress ?? createProgress)(`${importer.name} ${source.name.split('/').pop()}`, source.totalBytes);
    const batches = source.batches;
    // The next batch is read while this one is written: the reading's CPU fills the time
    // the thread waits for the database's answers. A failed read is reported when its batch
    // is awaited, not as an unhandled rejection meanwhile.
    let next = batches.next();
    next.catch(() => undefined);
    for (;;) {
      const step = await next;
      if (step.done) break;
      const batch = step.value;
      next = batches.next();
      next.catch(() => undefined);
      report.read = batch.read;
      readBytes = batch.readBytes;
      report.skipped += batch.skipped;
      report.nulls += batch.nulls;
      for (const [note, n] of Object.entries(batch.notes)) report.notes[note] = (report.notes[note] ?? 0) + n;
      if (batch.stopped) report.stopped = batch.stopped;
      for (const problem of batch.problems) if (report.problems.length < MAX_PROBLEMS_KEPT) report.problems.push(problem);
      if (batch.rows.length) {
        // A table that has doubled since its statistics: analyzed before this batch reads it
        // (not after the batch before, which may be the last: a one-batch file's tables would
        // be analyzed twice, here and at the end).
        await analyzeGrowingTables(db, sinceAnalysis);
        const writeStamp = now().toISOString();
        const batchChanges: TableChanges = new Map();
        const result = await db.transaction(async (trx) => {
          // Importers may read before they write (provisional companies, versions): the lock first.
          await lockForWrite(trx);
          return countTableChanges(trx, batchChanges, () => importer.write(trx, batch.rows, writeStamp));
        });
        for (const [table, n] of batchChanges) {
          changes.set(table, (changes.get(table) ?? 0) + n);
          sinceAnalysis.set(table, (sinceAnalysis.get(table) ?? 0) + n);
        }
        // Writers waiting for the lock (an account created meanwhile) take it now, not after the whole file.
        await makeRoomForWriters(db);
        report.inserted += result.inserted;
        report.updated += result.updated;
        report.kept += result.kept;
        for (const [note, n] of Object.entries(result.notes ?? {})) report.notes[note] = (report.notes[note] ?? 0) + n;
      }
      progress.update(report.read, readBytes);
    }
    loaded = true;
  } finally {
    await source?.close().catch(() => undefined);
    await restore().catch(() => undefined);
    // A load that went through: the tables it rewrote written anew before their indexes are built (a failure costs only room).
    if (loaded) await compactRewrittenTables(db, deferrable, dropped).catch(() => undefined);
    // Whether the load went through or stopped, the tables get their indexes back (any
    // deferred one, a stopped earlier load's too). A failed build fails a load that went
    // through; a load that stopped reports its own error.
    await restoreDeferredIndexes(db).catch((err: unknown) => {
      if (loaded) throw err;
    });
    // The tables' statistics, for the plans of the searches that follow (committed batches only: a stopped load's too).
    await analyzeChangedTables(db, changes).catch(() => undefined);
    progress?.update(report.read, readBytes);
    progress?.stop();
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}

/** The size of a file, 0 when it cannot be read (opening it then says why). */
async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/**
 * Why an import that ran must still count as failed (exit code 1), in French, or null: its
 * reading stopped before the end of the file, or not one record could be read (a file in
 * another layout than the source's: every record skipped). `layouts` names the layouts
 * understood, for that message.
 */
export function importFailure(report: ImportReport, layouts: string | null): string | null {
  if (report.stopped) {
    return `${report.file} : ${report.stopped.reason}.`;
  }
  if (report.read - report.skipped > 0) return null;
  const what = report.read ? `les ${report.read} enregistrements lus sont tous écartés` : 'aucun enregistrement trouvé';
  return `${report.file} : rien d'importé, ${what}${layouts ? ` ; formats compris : ${layouts}` : ' ; le fichier est-il bien celui de cette source ?'}.`;
}
