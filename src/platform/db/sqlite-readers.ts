// Reading threads of a SQLite file (sqlite-reader-worker.ts). better-sqlite3 runs each
// statement synchronously: a search the result cache cannot answer held the event loop for
// 10 to 300 ms on the large demo set, and every call of the process waited behind it, those
// the cache answers in a millisecond included. Work wrapped in `offLoop` sends its read
// statements (outside a transaction) to a thread instead; the rest of the process goes on
// meanwhile. A thread reads with a connection of its own: in WAL, each statement sees every
// transaction committed before it starts, as the service's connection does.
import { AsyncLocalStorage } from 'node:async_hooks';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import type { Knex } from 'knex';
import { startModuleWorker } from '../worker.js';
import type { ReadAnswer, ReaderData, ReaderReady } from './sqlite-reader-worker.js';

const ENTRY = new URL(`./sqlite-reader-worker${extname(fileURLToPath(import.meta.url))}`, import.meta.url).href;

export interface ReadersOptions extends ReaderData {
  threads: number;
  /** A statement not answered within this is given up (its thread replaced). */
  timeoutMs: number;
}

interface Pending {
  resolve: (rows: unknown[]) => void;
  reject: (err: Error) => void;
  /** The statement's time, counted once the thread has started (its start bounded apart). */
  timer?: NodeJS.Timeout;
}

/** How long a reading thread may take to start, on top of a statement's time. */
const THREAD_START_MS = 5_000;

class ReadingThread {
  private worker: Worker | null = null;
  /** While the current thread starts: resolved when it has opened its connection (null once it has). */
  private starting: Promise<void> | null = null;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly data: ReaderData) {}

  get load(): number {
    return this.pending.size;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = startModuleWorker(ENTRY, { ...this.data });
    // A thread waiting for statements keeps no process alive (tests, CLIs end without closing).
    worker.unref();
    let opened: () => void = () => undefined;
    const starting = new Promise<void>((resolve) => (opened = resolve));
    this.starting = starting;
    const ready = () => {
      if (this.starting === starting) this.starting = null;
      opened();
    };
    worker.on('message', (answer: ReadAnswer | ReaderReady) => {
      if ('ready' in answer) return ready();
      const waiting = this.pending.get(answer.id);
      if (!waiting) return;
      this.pending.delete(answer.id);
      clearTimeout(waiting.timer);
      if ('rows' in answer) waiting.resolve(answer.rows);
      else waiting.reject(Object.assign(new Error(answer.error.message), answer.error.code ? { code: answer.error.code } : {}));
    });
    const lost = (reason: string) => {
      ready();
      if (this.worker !== worker) return;
      this.worker = null;
      this.failAll(reason);
    };
    worker.on('error', () => lost('fil de lecture de la base en erreur'));
    worker.on('exit', () => lost('fil de lecture de la base arrêté'));
    return (this.worker = worker);
  }

  private failAll(reason: string): void {
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      this.pending.delete(id);
      waiting.reject(new Error(reason));
    }
  }

  read(id: number, sql: string, bindings: unknown[], timeoutMs: number): Promise<unknown[]> {
    const worker = this.started();
    const starting = this.starting;
    return new Promise<unknown[]>((resolve, reject) => {
      const waiting: Pending = { resolve, reject };
      const arm = (ms: number) => {
        clearTimeout(waiting.timer);
        waiting.timer = setTimeout(() => {
          // The statement cannot be interrupted in its thread: the thread is replaced, and
          // every statement waiting in it fails with this one.
          if (this.worker === worker) this.worker = null;
          this.failAll(`lecture de la base interrompue après ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`);
          void worker.terminate();
        }, ms);
      };
      this.pending.set(id, waiting);
      // Sent at once (a thread starting takes it once started), timed from the thread's
      // start: under load, starting a thread (loading its modules, opening the file) took over
      // a second. A start that never ends is bounded too.
      arm(starting ? timeoutMs + THREAD_START_MS : timeoutMs);
      worker.postMessage({ id, sql, bindings });
      void starting?.then(() => {
        if (this.pending.get(id) === waiting) arm(timeoutMs);
      });
    });
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    this.failAll('fil de lecture de la base fermé');
    if (worker) await worker.terminate();
  }
}

/** The reading threads of one SQLite database: each statement goes to the least loaded. */
export class SqliteReaders {
  private readonly threads: ReadingThread[];
  private nextId = 1;

  constructor(private readonly options: ReadersOptions) {
    this.threads = Array.from({ length: Math.max(1, options.threads) }, () => new ReadingThread(options));
  }

  read(sql: string, bindings: unknown[]): Promise<unknown[]> {
    let thread = this.threads[0] as ReadingThread;
    for (const t of this.threads) if (t.load < thread.load) thread = t;
    return thread.read(this.nextId++, sql, bindings, this.options.timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}

const offLoopReaders = new AsyncLocalStorage<SqliteReaders>();

/** The reading threads of `db` (SQLite opened with `readThreads`), if any. */
export function readersOf(db: Knex): SqliteReaders | null {
  return (db.client as { readers?: SqliteReaders | null }).readers ?? null;
}

/**
 * Runs `work` with its read statements on `db` outside a transaction sent to `db`'s reading
 * threads (none: on the calling thread, as any statement).
 */
export function offLoop<T>(db: Knex, work: () => Promise<T>): Promise<T> {
  const readers = readersOf(db);
  if (!readers) return work();
  // Awaited inside: a query builder runs when awaited, which must happen in the context.
  return offLoopReaders.run(readers, async () => {
    const result = await work();
    return result;
  });
}

/** `actions` with each run in `offLoop(db, …)`: a domain's handlers whose reads all go off the loop (give their map type as `A`, so that their arguments are typed). */
export function offLoopEach<A extends Record<string, (...params: never[]) => Promise<unknown>>>(db: Knex, actions: A): A {
  return Object.fromEntries(Object.entries(actions).map(([name, action]) => [name, (...params: never[]) => offLoop(db, () => action(...params))])) as A;
}

/** The reading threads a statement of `readers`'s database run now may go to (null: run it here). */
export function offLoopReadersFor(readers: SqliteReaders | null | undefined): SqliteReaders | null {
  return readers && offLoopReaders.getStore() === readers ? readers : null;
}
