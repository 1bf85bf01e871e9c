// The SQLite extension ranking the search matches, `bm25_cached` (src/platform/search/
// bm25-cached.c, built at install by scripts/build-sqlite-ranking.mjs): FTS5's bm25() with
// each word's count of documents and each document's length kept between statements.
// Loaded into every connection of the service when it was built; without it the searches
// rank with bm25(), the same scores.
import Sqlite from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const EXTENSION = fileURLToPath(new URL('../../../build/sqlite/bm25-cached.so', import.meta.url));
const ENTRY_POINT = 'sqlite3_bmcached_init';

/** better-sqlite3 takes the entry point as a second argument; its types (9.6) do not say so. */
const load = (conn: Sqlite.Database) => (conn.loadExtension as (path: string, entryPoint: string) => Sqlite.Database).call(conn, EXTENSION, ENTRY_POINT);

/** Whether the extension was built and loads (tried once, on a connection of its own). */
function loads(): boolean {
  if (!existsSync(EXTENSION)) return false;
  try {
    const probe = new Sqlite(':memory:');
    try {
      load(probe);
    } finally {
      probe.close();
    }
    return true;
  } catch {
    return false;
  }
}

/** Whether every SQLite connection of the process has `bm25_cached`. */
export const CACHED_RANKING = loads();

/** Gives a new connection `bm25_cached` when the extension is there. */
export function loadRanking(conn: Sqlite.Database): void {
  if (CACHED_RANKING) load(conn);
}
