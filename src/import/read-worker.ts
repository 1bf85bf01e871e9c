// The reading thread of a large import: opens the file, reads and maps its records, sorts
// them over a window of batches (rowBatches), and hands each batch to the import's thread
// as one JSON text (a copy of one string, where a structured clone would copy every row
// and every field). It stays at most `inFlight` batches ahead of the writes.
import { parentPort, workerData } from 'node:worker_threads';
import { rowBatches, type BatchSizes } from './batches.js';
import { ImportInputError, openInput } from './input.js';
import type { Importer } from './importer.js';

export interface ReadJob extends BatchSizes {
  /** The module exporting the importers as `IMPORTERS` (see `importerCatalogue`), and the source's name there. */
  catalogue: string;
  source: string;
  path: string;
  stamp: string;
  inFlight: number;
}

export type ReadMessage =
  | { kind: 'opened'; name: string; totalBytes: number }
  | {
      kind: 'batch';
      /** The rows' keys when every row has these keys in this order: `rows` then holds arrays of values, in their order. */
      columns: string[] | null;
      /** The rows as JSON: arrays of values (`columns`) or objects. */
      rows: string;
      read: number;
      readBytes: number;
      skipped: number;
      problems: { position: number; reason: string }[];
      nulls: number;
      notes: Record<string, number>;
      stopped?: { position: number; reason: string };
    }
  | { kind: 'end' }
  | { kind: 'failed'; input: boolean; message: string };

/**
 * A batch's rows as JSON. Rows of one shape (the importers' rows: one object literal each)
 * go as arrays of values under their keys: ~40 % less for the import's thread to parse
 * than objects repeating every key.
 */
function rowsText(rows: readonly object[]): { columns: string[] | null; rows: string } {
  const columns = rows.length ? Object.keys(rows[0] as object) : [];
  const sameShape = rows.every((row) => {
    const keys = Object.keys(row);
    return keys.length === columns.length && keys.every((k, i) => k === columns[i]);
  });
  if (!sameShape) return { columns: null, rows: JSON.stringify(rows) };
  return { columns, rows: JSON.stringify(rows.map((row) => columns.map((c) => (row as Record<string, unknown>)[c]))) };
}

const port = parentPort;
if (!port) throw new Error('read-worker: à lancer dans un fil (worker_threads).');
const job = workerData as ReadJob;
let credit = job.inFlight;
let wake: (() => void) | null = null;
// Each message from the import's thread: one batch written, one more may be sent.
port.on('message', () => {
  credit += 1;
  wake?.();
  wake = null;
});

try {
  const { IMPORTERS } = (await import(job.catalogue)) as { IMPORTERS: Record<string, Importer<never, never>> };
  const importer = IMPORTERS[job.source];
  if (!importer) throw new Error(`source inconnue : ${job.source}`);
  const input = await openInput(job.path, importer.input.zipEntries);
  port.postMessage({ kind: 'opened', name: input.name, totalBytes: input.totalBytes } satisfies ReadMessage);
  try {
    for await (const batch of rowBatches(importer, input.stream, input.readBytes, job.stamp, job)) {
      while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
      credit -= 1;
      port.postMessage({ kind: 'batch', ...batch, ...rowsText(batch.rows) } satisfies ReadMessage);
    }
  } finally {
    input.stream.destroy();
  }
  port.postMessage({ kind: 'end' } satisfies ReadMessage);
} catch (err) {
  port.postMessage({ kind: 'failed', input: err instanceof ImportInputError, message: err instanceof Error ? err.message : String(err) } satisfies ReadMessage);
}
port.close();
