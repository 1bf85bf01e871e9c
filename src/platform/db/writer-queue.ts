// SQLite has one writer at a time and no queue: a connection waiting for the write lock
// (busy_timeout) sleeps, up to 100 ms at a time, and tries again; a writer that commits
// batch after batch (an import) takes the lock back within microseconds of each commit, so
// the sleeper almost never finds it free (seen: `npm run account:create` failing after 30 s
// during the first start's demo import). Waiting writers therefore say so in a folder beside
// the database — one empty file each, named after their process — and long writers look
// there between two transactions and pause while someone waits, a bounded time per turn.
// Files and processes only: the writers are separate processes, and the database itself
// cannot carry the message (writing to it needs the lock). No-op on PostgreSQL (row locks,
// no single writer) and on an in-memory database (one connection).
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sqliteFileOf, type Database } from './database.js';

/**
 * The longest a long writer pauses at one turn for waiting writers. A waiting writer gets
 * the lock within its busy handler's next try (100 ms at most) and most finish in well
 * under a second (an account, a plan); one that needs longer gets the lock back at each
 * following turn, the long writer writing one batch in between.
 */
export const WRITER_TURN_MAX_MS = 2000;

/** How often a pausing writer looks whether the waiting writers are done. */
const POLL_MS = 10;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The folder of the waiting writers of a SQLite file. */
export function writerQueueDir(sqliteFile: string): string {
  return `${sqliteFile}-writers`;
}

/**
 * Puts this process in line as a writer of `db` until the returned function is called.
 * A process that dies without leaving is recognised as gone by the long writers.
 */
export async function queueAsWriter(db: Database): Promise<() => Promise<void>> {
  const file = sqliteFileOf(db);
  if (!file) return async () => undefined;
  const dir = writerQueueDir(file);
  const entry = join(dir, `${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(entry, '');
  } catch {
    // A read-only folder: the writer waits as SQLite makes it, without a place in line.
    return async () => undefined;
  }
  return async () => {
    await rm(entry, { force: true }).catch(() => undefined);
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, under another user.
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** How many writers are waiting; the entries of processes that are gone are removed. */
export async function waitingWriters(db: Database): Promise<number> {
  const file = sqliteFileOf(db);
  if (!file) return 0;
  const dir = writerQueueDir(file);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let waiting = 0;
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) waiting += 1;
    else await rm(join(dir, name), { force: true }).catch(() => undefined);
  }
  return waiting;
}

/**
 * For a long writer, between two transactions: while writers are waiting, pauses (off the
 * event loop) so that they take the lock, `maxMs` at most. Returns the milliseconds paused.
 */
export async function makeRoomForWriters(db: Database, maxMs = WRITER_TURN_MAX_MS): Promise<number> {
  if (!sqliteFileOf(db)) return 0;
  const started = Date.now();
  while ((await waitingWriters(db)) > 0) {
    const waited = Date.now() - started;
    if (waited >= maxMs) return waited;
    await pause(Math.min(POLL_MS, maxMs - waited));
  }
  return Date.now() - started;
}
