// Runs one import: records read from a file, mapped by the source's importer, written in
// batched transactions; bad records skipped and reported with their place and reason.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { startCheckpointer } from '../data/checkpointer.js';
import { kindOf, sqliteFileOf, type Database } from '../data/database.js';
import { withSqlite } from '../data/sqlite-statements.js';
import { openInput } from './input.js';
import { createProgress, type Progress } from './progress.js';
import type { RawRecord } from './records.js';
import { sortedByKey, type WriteCounts } from './sources/shared.js';

export type Mapped<Row> = { row: Row } | { skip: string };

export interface Importer<Raw, Row> {
  /** The source name, as given to `npm run import`. */
  name: string;
  read(stream: Readable): AsyncIterable<RawRecord<Raw>>;
  map(raw: Raw, now: string): Mapped<Row>;
  /** Writes a batch in the transaction; returns how many rows were new, replaced a stored one, or were kept out (older). */
  write(trx: Knex.Transaction, rows: Row[], now: string): Promise<WriteCounts>;
  /**
   * The key the table is stored by: rows are then written in its order within each window
   * of SORT_WINDOW_BATCHES batches (see `importFile`). Without it, in the file's order.
   */
  sortKey?(row: Row): string;
}

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
 * each batch covers a tenth of the keys. 200,000 SIRENE rows are ~80 MB in memory.
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

const MAX_PROBLEMS_KEPT = 1000;

export async function importFile<Raw, Row>(
  db: Database,
  importer: Importer<Raw, Row>,
  path: string,
  options: { now?: () => Date; progress?: (label: string, total: number) => Progress; batchSize?: number; sortWindowBatches?: number } = {},
): Promise<ImportReport> {
  const now = options.now ?? (() => new Date());
  const input = await openInput(path);
  const progress = (options.progress ?? createProgress)(`${importer.name} ${input.name.split('/').pop()}`, input.totalBytes);
  const started = Date.now();
  const report: ImportReport = { file: path, read: 0, inserted: 0, updated: 0, kept: 0, skipped: 0, problems: [], seconds: 0 };
  const skip = (position: number, reason: string) => {
    report.skipped += 1;
    if (report.problems.length < MAX_PROBLEMS_KEPT) report.problems.push({ position, reason });
  };
  let window: Row[] = [];
  const batchSize = options.batchSize ?? BATCH_SIZE;
  const windowSize = batchSize * (importer.sortKey ? (options.sortWindowBatches ?? SORT_WINDOW_BATCHES) : 1);
  const write = async (rows: Row[]) => {
    const stamp = now().toISOString();
    const result = await db.transaction((trx) => importer.write(trx, rows, stamp));
    report.inserted += result.inserted;
    report.updated += result.updated;
    report.kept += result.kept;
  };
  const flush = async () => {
    if (!window.length) return;
    const rows = importer.sortKey ? sortedByKey(window, importer.sortKey) : window;
    window = [];
    for (let i = 0; i < rows.length; i += batchSize) await write(rows.slice(i, i + batchSize));
  };
  let restore: () => Promise<void> = async () => undefined;
  try {
    restore = await importSettings(db);
    const stamp = now().toISOString();
    for await (const record of importer.read(input.stream)) {
      report.read += 1;
      if ('error' in record) {
        skip(record.position, record.error);
      } else {
        const mapped = importer.map(record.value, stamp);
        if ('skip' in mapped) skip(record.position, mapped.skip);
        else window.push(mapped.row);
      }
      if (window.length >= windowSize) await flush();
      if (report.read % 1000 === 0) progress.update(report.read, input.readBytes());
    }
    await flush();
  } finally {
    await restore().catch(() => undefined);
    progress.update(report.read, input.readBytes());
    progress.stop();
    input.stream.destroy();
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}
