// PostgreSQL: the secondary indexes of the tables a first load fills, dropped before the load
// and built once after it, rather than kept up to date row by row. The definitions of the
// dropped indexes are kept in `deferred_indexes` (migration 0034), written in the transaction
// that drops them: whatever stops a load (an error, a killed process), the next import or the
// service's start builds them back from there. SQLite: nothing is deferred.
import type { Knex } from 'knex';
import { kindOf } from './database.js';

/**
 * A table whose secondary indexes a first load may build at its end, and the indexes kept
 * while it loads (by name): those the load's own reads use. Primary keys, unique indexes and
 * the indexes of constraints are always kept (the upserts' ON CONFLICT needs them).
 */
export interface DeferrableTable {
  table: string;
  keep?: readonly string[];
  /**
   * A table holding rows that a first load of another table rewrites nearly whole (the
   * companies' search documents, rewritten with their establishments' towns by a first load of
   * the establishments): its indexes are deferred when that other table is empty, rather than
   * this one, and this table (indexes included) is at most REWRITTEN_TABLE_PER_FILE_BYTE times
   * the file's size, so that a small file never makes a large index be built again.
   */
  rewrittenByFirstLoadOf?: string;
}

/**
 * The largest size of a rewritten table, per byte of the file, for its indexes to be deferred
 * (`rewrittenByFirstLoadOf`). The national set's establishments file (67.5 MB of CSV) rewrites
 * companies' documents of 49 MB; the real stock is published zipped, a fifth of its CSV's
 * size; the worst a small file can cost is building again the index of a table eight times
 * its size.
 */
const REWRITTEN_TABLE_PER_FILE_BYTE = 8;

const TABLE_NAME = /^[a-z][a-z0-9_]*$/;

/**
 * One lock for dropping and rebuilding deferred indexes (a transaction-level advisory lock):
 * two processes (the service's workers starting, an import ending, another import starting)
 * never drop or build the same index at once.
 */
const DEFERRED_INDEX_LOCK = 0x5ea4c41d;

/** Where the definitions of the dropped indexes wait for their build (migration 0034). */
const STORE = 'deferred_indexes';

/**
 * Memory for building an index (`maintenance_work_mem` of that transaction only;
 * PostgreSQL's default is 64 MB): a build sorts the keys (a GIN index, the documents' words)
 * in it, and spills to disk in several passes when it is too small.
 */
const INDEX_BUILD_MEMORY = '512MB';

async function storeExists(db: Knex): Promise<boolean> {
  const { rows } = await db.raw(`select to_regclass(?) is not null as present`, [STORE]);
  return !!(rows as { present: boolean }[])[0]?.present;
}

/**
 * PostgreSQL, before a load of a file of `fileBytes`: for each of these tables that exists and
 * is empty (or, for a rewritten one, whose loaded table is empty and which is at most
 * REWRITTEN_TABLE_PER_FILE_BYTE times the file's size), drops its secondary indexes but those
 * kept (see `DeferrableTable`), their definitions stored in the same transaction; returns
 * the indexes dropped (nothing on SQLite). Until they are built again, a read of the table
 * goes through it (it holds what the load wrote so far), with the same answers.
 */
export async function deferIndexes(db: Knex, tables: readonly DeferrableTable[], fileBytes = 0): Promise<string[]> {
  if (kindOf(db) !== 'postgres' || !tables.length) return [];
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [DEFERRED_INDEX_LOCK]);
    // Not migrated yet (an import run on an older schema): nothing deferred, nothing lost.
    if (!(await storeExists(trx))) return [];
    const dropped: string[] = [];
    const exists = async (table: string) => {
      if (!TABLE_NAME.test(table)) throw new Error(`Table ${table} : nom invalide.`);
      const { rows } = await trx.raw(`select to_regclass(quote_ident(?)) is not null as present`, [table]);
      return !!(rows as { present: boolean }[])[0]?.present;
    };
    const filled = async (table: string) => {
      const { rows } = await trx.raw(`select exists (select 1 from "${table}") as filled`);
      return !!(rows as { filled: boolean }[])[0]?.filled;
    };
    for (const { table, keep = [], rewrittenByFirstLoadOf: loaded } of tables) {
      if (!(await exists(table))) continue;
      if (loaded === undefined) {
        if (await filled(table)) continue;
      } else {
        if (!(await exists(loaded)) || (await filled(loaded))) continue;
        const { rows: size } = await trx.raw(`select pg_total_relation_size(quote_ident(?)) as bytes`, [table]);
        if (Number((size as { bytes: string | number }[])[0]?.bytes) > REWRITTEN_TABLE_PER_FILE_BYTE * fileBytes) continue;
      }
      const { rows } = await trx.raw(
        `select i.relname as name, pg_get_indexdef(i.oid) as definition
           from pg_index x
           join pg_class i on i.oid = x.indexrelid
          where x.indrelid = ?::regclass
            and not x.indisprimary and not x.indisunique and not x.indisexclusion and x.indisvalid
            and not exists (select 1 from pg_constraint c where c.conindid = i.oid)
          order by i.relname`,
        [table],
      );
      for (const index of rows as { name: string; definition: string }[]) {
        if (keep.includes(index.name)) continue;
        await trx.raw(`insert into ${STORE} (name, table_name, definition) values (?, ?, ?) on conflict (name) do update set definition = excluded.definition`, [
          index.name,
          table,
          index.definition,
        ]);
        await trx.raw(`drop index "${index.name}"`);
        dropped.push(index.name);
      }
    }
    return dropped;
  });
}

/**
 * PostgreSQL, after a load and before its indexes are built: each of these tables that a first
 * load of another rewrote (`rewrittenByFirstLoadOf`) and whose indexes this load deferred
 * (`dropped`, as `deferIndexes` returned them; not those an earlier stopped load left) is
 * written anew (`VACUUM FULL`), without the room its rows' earlier versions left. The establishments'
 * first load rewrites every company's document: on the large set the documents' table then
 * held 30.5 % of free space (49,061 pages for 33,970 written whole), and ranking the matches
 * of the broadest words read a third more pages than they fill (« travaux batiment »,
 * 229–259 ms against 183–199 ms on the table copied whole). The rewrite locks the table
 * against reads too; a first load is already without its words' index. Returns the tables
 * written anew (nothing on SQLite).
 */
export async function compactRewrittenTables(db: Knex, tables: readonly DeferrableTable[], dropped: readonly string[]): Promise<string[]> {
  if (kindOf(db) !== 'postgres' || !dropped.length || !(await storeExists(db))) return [];
  const compacted: string[] = [];
  for (const { table, rewrittenByFirstLoadOf } of tables) {
    if (rewrittenByFirstLoadOf === undefined) continue;
    if (!TABLE_NAME.test(table)) throw new Error(`Table ${table} : nom invalide.`);
    const { rows } = await db.raw(`select exists (select 1 from ${STORE} where table_name = ? and name = any(?::text[])) as deferred`, [table, dropped as string[]]);
    if (!(rows as { deferred: boolean }[])[0]?.deferred) continue;
    await db.raw(`vacuum full "${table}"`);
    compacted.push(table);
  }
  return compacted;
}

/**
 * PostgreSQL: builds every index whose definition waits in `deferred_indexes` (a first
 * load's, or one a stopped load left there), and deletes its row, in one transaction: a
 * build that fails leaves nothing half done, and is tried again at the next call. Returns
 * the indexes built (nothing on SQLite). Writes to those tables wait meanwhile; reads do not.
 */
export async function restoreDeferredIndexes(db: Knex): Promise<string[]> {
  if (kindOf(db) !== 'postgres' || !(await storeExists(db))) return [];
  const { rows: waiting } = await db.raw(`select exists (select 1 from ${STORE}) as waiting`);
  if (!(waiting as { waiting: boolean }[])[0]?.waiting) return [];
  return db.transaction(async (trx) => {
    await trx.raw('select pg_advisory_xact_lock(?)', [DEFERRED_INDEX_LOCK]);
    await trx.raw(`set local maintenance_work_mem = '${INDEX_BUILD_MEMORY}'`);
    const built: string[] = [];
    // Read under the lock: another process may have built some meanwhile.
    const { rows } = await trx.raw(
      `select name, definition, to_regclass(quote_ident(name)) is not null as present, to_regclass(quote_ident(table_name)) is not null as table_present
         from ${STORE} order by table_name, name`,
    );
    for (const index of rows as { name: string; definition: string; present: boolean; table_present: boolean }[]) {
      // Built meanwhile (by hand), or its table gone since (a migration): nothing to build.
      if (!index.present && index.table_present) {
        await trx.raw(index.definition);
        built.push(index.name);
      }
      await trx.raw(`delete from ${STORE} where name = ?`, [index.name]);
    }
    return built;
  });
}
