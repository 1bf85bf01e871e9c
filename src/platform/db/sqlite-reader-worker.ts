// A reading thread of a SQLite file: runs the read statements it is sent on a connection of
// its own, so that a long search statement never holds the event loop of the process that
// serves the calls. Read-only (`query_only`): a statement that would write is refused.
import Sqlite from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { loadRanking } from './sqlite-ranking.js';

export interface ReadRequest {
  id: number;
  sql: string;
  bindings: unknown[];
}

export type ReadAnswer = { id: number; rows: unknown[] } | { id: number; error: { message: string; code?: string } };

/** Sent once, when the thread has opened its connection: statements are timed from then. */
export interface ReaderReady {
  ready: true;
}

export interface ReaderData {
  filename: string;
  cacheKib: number;
  busyTimeoutMs: number;
}

/** Prepared statements kept per thread: a search runs a few shapes of statement, each many times. */
const KEPT_STATEMENTS = 200;

const { filename, cacheKib, busyTimeoutMs } = workerData as ReaderData;
const db = new Sqlite(filename, { fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma(`cache_size = -${cacheKib}`);
db.pragma('query_only = ON');
loadRanking(db);
const statements = new Map<string, Sqlite.Statement>();

function statementOf(sql: string): Sqlite.Statement {
  let statement = statements.get(sql);
  if (statement) {
    // Most recently used last: the first key is the one to drop.
    statements.delete(sql);
  } else {
    statement = db.prepare(sql);
    if (!statement.reader) throw Object.assign(new Error('le fil de lecture ne lit que des requêtes de lecture'), { code: 'NOT_A_READ' });
    if (statements.size >= KEPT_STATEMENTS) statements.delete(statements.keys().next().value as string);
  }
  statements.set(sql, statement);
  return statement;
}

parentPort?.on('message', (request: ReadRequest) => {
  let answer: ReadAnswer;
  try {
    answer = { id: request.id, rows: statementOf(request.sql).all(request.bindings) };
  } catch (err) {
    const { message, code } = err as { message?: unknown; code?: unknown };
    answer = { id: request.id, error: { message: String(message), ...(typeof code === 'string' ? { code } : {}) } };
  }
  parentPort?.postMessage(answer);
});
parentPort?.postMessage({ ready: true } satisfies ReaderReady);
