// Text extraction off the calling thread: one worker thread, jobs in turn, each bounded in
// time and memory (a hostile PDF that loops or swells is stopped, the thread restarted, the
// piece refused with a reason).
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../worker.js';
import { ExtractionError, type DocumentFormat, type DocumentText } from './document-text.js';

const ENTRY = new URL(`./extraction-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

export interface ExtractorOptions {
  /** Per document. */
  timeoutMs: number;
  /** Heap of the thread. */
  maxOldGenerationSizeMb: number;
}

export const EXTRACTOR_DEFAULTS: ExtractorOptions = { timeoutMs: 60_000, maxOldGenerationSizeMb: 512 };

type Answer = { id: number; document?: DocumentText; error?: string; refused?: boolean };

export class Extractor {
  private worker: Worker | null = null;
  private nextId = 1;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ExtractorOptions = EXTRACTOR_DEFAULTS) {}

  /** The text of the piece at `path`, extracted in the thread; jobs run one after the other. */
  extract(path: string, format: DocumentFormat, timeoutMs = this.options.timeoutMs): Promise<DocumentText> {
    const run = this.chain.then(() => this.run(path, format, timeoutMs));
    this.chain = run.catch(() => undefined);
    return run;
  }

  private run(path: string, format: DocumentFormat, timeoutMs: number): Promise<DocumentText> {
    const worker = (this.worker ??= startModuleWorker(ENTRY, {}, { maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb }));
    const id = this.nextId++;
    return new Promise<DocumentText>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const restart = () => {
        if (this.worker === worker) this.worker = null;
        void worker.terminate();
      };
      const timer = setTimeout(() => {
        done();
        restart();
        reject(new ExtractionError(`extraction interrompue après ${Math.round(timeoutMs / 1000)} s (document trop complexe ou piégé)`));
      }, timeoutMs);
      const onMessage = (answer: Answer) => {
        if (answer.id !== id) return;
        done();
        if (answer.document) resolve(answer.document);
        else reject(answer.refused ? new ExtractionError(answer.error) : new Error(answer.error));
      };
      const onError = (err: Error) => {
        done();
        restart();
        // Out of memory in the thread: the document swells beyond what a piece may take.
        reject(/memory|heap/i.test(err.message) ? new ExtractionError('extraction interrompue : le document demande trop de mémoire') : new Error(`extraction impossible : ${err.message}`));
      };
      const onExit = () => {
        done();
        if (this.worker === worker) this.worker = null;
        reject(new Error('fil d’extraction arrêté'));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage({ id, path, format });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }
}
