// Runs one import: records read from a file, mapped by the source's importer, written in
// batched transactions; bad records skipped and reported with their place and reason.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { Database } from '../data/database.js';
import { openInput } from './input.js';
import { createProgress, type Progress } from './progress.js';
import type { RawRecord } from './records.js';

export type Mapped<Row> = { row: Row } | { skip: string };

export interface Importer<Raw, Row> {
  /** The source name, as given to `npm run import`. */
  name: string;
  read(stream: Readable): AsyncIterable<RawRecord<Raw>>;
  map(raw: Raw, now: string): Mapped<Row>;
  /** Writes a batch in the transaction; returns how many rows were new and how many replaced. */
  write(trx: Knex.Transaction, rows: Row[], now: string): Promise<{ inserted: number; updated: number }>;
}

export interface ImportReport {
  file: string;
  read: number;
  inserted: number;
  updated: number;
  skipped: number;
  /** The first bad records (place and reason); `skipped` counts them all. */
  problems: { position: number; reason: string }[];
  seconds: number;
}

export const BATCH_SIZE = 5000;
const MAX_PROBLEMS_KEPT = 1000;

export async function importFile<Raw, Row>(
  db: Database,
  importer: Importer<Raw, Row>,
  path: string,
  options: { now?: () => Date; progress?: (label: string, total: number) => Progress; batchSize?: number } = {},
): Promise<ImportReport> {
  const now = options.now ?? (() => new Date());
  const input = await openInput(path);
  const progress = (options.progress ?? createProgress)(`${importer.name} ${input.name.split('/').pop()}`, input.totalBytes);
  const started = Date.now();
  const report: ImportReport = { file: path, read: 0, inserted: 0, updated: 0, skipped: 0, problems: [], seconds: 0 };
  const skip = (position: number, reason: string) => {
    report.skipped += 1;
    if (report.problems.length < MAX_PROBLEMS_KEPT) report.problems.push({ position, reason });
  };
  let batch: Row[] = [];
  const flush = async () => {
    if (!batch.length) return;
    const rows = batch;
    batch = [];
    const stamp = now().toISOString();
    const result = await db.transaction((trx) => importer.write(trx, rows, stamp));
    report.inserted += result.inserted;
    report.updated += result.updated;
  };
  try {
    const stamp = now().toISOString();
    for await (const record of importer.read(input.stream)) {
      report.read += 1;
      if ('error' in record) {
        skip(record.position, record.error);
      } else {
        const mapped = importer.map(record.value, stamp);
        if ('skip' in mapped) skip(record.position, mapped.skip);
        else batch.push(mapped.row);
      }
      if (batch.length >= (options.batchSize ?? BATCH_SIZE)) await flush();
      if (report.read % 1000 === 0) progress.update(report.read, input.readBytes());
    }
    await flush();
  } finally {
    progress.update(report.read, input.readBytes());
    progress.stop();
    input.stream.destroy();
  }
  report.seconds = (Date.now() - started) / 1000;
  return report;
}
