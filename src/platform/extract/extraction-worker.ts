// The extraction thread: reads a piece from disk and extracts its text, so that a large PDF
// never blocks the thread that serves or imports. One job at a time, asked by message.
import { readFile } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { extractDocument, ExtractionError, type DocumentFormat } from './document-text.js';
import { preparePdf } from './pdf.js';

export interface ExtractionJob {
  id: number;
  path: string;
  format: DocumentFormat;
}

// pdfjs is loaded while the first piece is staged, not when it is extracted.
preparePdf().catch(() => undefined);

parentPort?.on('message', async (job: ExtractionJob) => {
  try {
    const bytes = await readFile(job.path);
    const document = await extractDocument(bytes, job.format);
    parentPort?.postMessage({ id: job.id, document });
  } catch (err) {
    const refused = err instanceof ExtractionError;
    parentPort?.postMessage({ id: job.id, error: refused ? err.message : 'extraction impossible (erreur interne)', refused });
  }
});
