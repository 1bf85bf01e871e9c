// The rows of an input in batches ready to write: records read and mapped by the importer,
// bad ones reported with their place and reason, rows sorted by the importer's key over a
// window of batches. The same code runs in the import's thread (small files) and in the
// reading thread (read-worker.ts) for large ones.
import type { Readable } from 'node:stream';
import type { Importer } from './importer.js';
import { sortedByKey } from './upsert.js';

export interface ImportProblem {
  position: number;
  reason: string;
}

/** One batch to write, and what was read up to it. */
export interface RowBatch<Row> {
  /** Rows to write in one transaction (none in the last batch of an input whose rows are all written). */
  rows: Row[];
  /** Records read so far, and bytes of the file read so far. */
  read: number;
  readBytes: number;
  /** Records skipped since the previous batch, and the place and reason of the first ones kept. */
  skipped: number;
  problems: ImportProblem[];
  /** Values the format cannot hold (NaN, Infinity) read as null since the previous batch. */
  nulls: number;
  /** The importer's notes on rows kept (see `Mapped`), counted by note, since the previous batch. */
  notes: Record<string, number>;
  /** Where and why reading stopped before the end of the input (in the last batch only). */
  stopped?: ImportProblem;
}

export interface BatchSizes {
  /** Rows per batch (one transaction each). */
  batchSize: number;
  /** Batches sorted together by the importer's `sortKey` (1 without one). */
  windowBatches: number;
}

/** Problems kept over a whole import; `skipped` counts them all. */
export const MAX_PROBLEMS_KEPT = 1000;

export async function* rowBatches<Raw, Row>(
  importer: Pick<Importer<Raw, Row>, 'read' | 'map' | 'sortKey'>,
  stream: Readable,
  readBytes: () => number,
  stamp: string,
  sizes: BatchSizes,
): AsyncGenerator<RowBatch<Row>> {
  // The first batch goes out alone, as soon as it is read, so that the writes start at once;
  // then windows of 2, 4, 8… batches up to the whole window, so that reading and writing
  // overlap from the start. With the whole window at once, a file of eleven batches (the
  // 200,000 BODACC announcements of the national set at factor 0.02) was read whole before
  // its second batch was written: about 25 s without writing on PostgreSQL.
  let windowSize = sizes.batchSize;
  const fullWindow = sizes.batchSize * (importer.sortKey ? sizes.windowBatches : 1);
  let read = 0;
  let kept = 0;
  let skipped = 0;
  let problems: ImportProblem[] = [];
  let nulls = 0;
  let notes: Record<string, number> = {};
  let stopped: ImportProblem | undefined;
  let window: Row[] = [];
  const skip = (position: number, reason: string) => {
    skipped += 1;
    if (kept < MAX_PROBLEMS_KEPT) {
      kept += 1;
      problems.push({ position, reason });
    }
  };
  function* flush(): Generator<RowBatch<Row>> {
    const rows = importer.sortKey ? sortedByKey(window, importer.sortKey) : window;
    window = [];
    windowSize = Math.min(fullWindow, windowSize * 2);
    for (let i = 0; i < rows.length; i += sizes.batchSize) {
      yield { rows: rows.slice(i, i + sizes.batchSize), read, readBytes: readBytes(), skipped, problems, nulls, notes };
      skipped = 0;
      problems = [];
      nulls = 0;
      notes = {};
    }
  }
  for await (const record of importer.read(stream)) {
    if (record.nulls) nulls += record.nulls;
    if ('error' in record) {
      // Not a record: the input cannot be read further.
      if (record.stop) {
        stopped = { position: record.position, reason: record.error };
        break;
      }
      read += 1;
      skip(record.position, record.error);
    } else {
      read += 1;
      const mapped = importer.map(record.value, stamp);
      if ('skip' in mapped) skip(record.position, mapped.skip);
      else {
        window.push(mapped.row);
        if (mapped.notes) for (const note of mapped.notes) notes[note] = (notes[note] ?? 0) + 1;
      }
    }
    if (window.length >= windowSize) yield* flush();
  }
  yield* flush();
  yield { rows: [], read, readBytes: readBytes(), skipped, problems, nulls, notes, ...(stopped ? { stopped } : {}) };
}
