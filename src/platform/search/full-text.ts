// French full-text search behind one interface, identical matches on SQLite FTS5 and on
// PostgreSQL full-text search. The text is folded in JavaScript (`searchWords`) at index
// time and at query time, so both engines see the same words [a-z0-9]+ and match alike.
//
// SQLite: a contentless-delete FTS5 table `<name>` (tokenizer `unicode61 remove_diacritics
// 2`), one column per field, whose rowid is the id of `<name>_keys (id, key unique, hash)`:
// FTS5 cannot look a document up by an UNINDEXED column, the key table gives replace and
// delete by key in O(log n), and the hash of the indexed text lets an unchanged document
// (a re-import) skip the index. Ranked by bm25 with the columns' weights.
// PostgreSQL: a table `<name> (key primary key, document tsvector)` with a GIN index, or,
// for an index declared with `postgresRecords`, a `document tsvector` column of the records'
// own table with its GIN index (see `PostgresRecords`). The
// tsvector is built here from the folded words (not by `to_tsvector`, whose parser splits
// some words FTS5 keeps whole, e.g. `3e4x` → `3e4` + `x`), one weight class per column and
// a one-position gap between columns so that a phrase never spans two fields (as in FTS5);
// the tsquery is built here too and passed as a parameter. Ranked by ts_rank (length
// normalisation 1) with the same weights.
//
// Matching is identical on both engines (the tests check both against `matchesWords`);
// scores differ (bm25 against ts_rank) but both put first a document matching more of the
// query or matching it in a heavier column, and both break ties by key (byte order).
// Known limit: PostgreSQL keeps 256 positions per word and document, so a phrase through
// a later occurrence of a word repeated more than 256 times in one document is found on
// SQLite only.
import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import { kindOf } from '../db/database.js';
import type { DeferrableTable } from '../db/deferred-indexes.js';
import { CACHED_RANKING } from '../db/sqlite-ranking.js';
import { withSqlite, statement } from '../db/statements.js';
import { arrayLiteral, columnArrays, pipelined } from '../db/pipelined.js';
import { searchWords, type ParsedQuery, type QueryTerm } from './query-syntax.js';

/** PostgreSQL's weight classes; the same values weigh the columns in bm25 on SQLite. */
export type SearchWeight = 'A' | 'B' | 'C' | 'D';
export const SEARCH_WEIGHTS: Readonly<Record<SearchWeight, number>> = { A: 1, B: 0.4, C: 0.2, D: 0.1 };

/** Words indexed per document (over all its fields, in column order): PostgreSQL positions stop at 16383. */
export const MAX_INDEXED_WORDS = 10_000;

export interface SearchColumn {
  readonly name: string;
  readonly weight: SearchWeight;
}
/** One search index: made once by `defineSearchIndex`, then given to every function here. */
export interface SearchIndex {
  readonly name: string;
  readonly columns: readonly SearchColumn[];
  readonly postgresRecords?: PostgresRecords;
  /** PostgreSQL: the lists of values the documents carry beside their words (see `SearchIndexDefinition.postgresLists`). */
  readonly postgresLists?: readonly string[];
}

/**
 * PostgreSQL: the documents kept as a `document tsvector` column of the records' own table
 * (GIN index `<table>_document`) rather than in a table of their own, so that a search
 * filtering the records (a department, a family) reads the GIN index and the filter's B-tree
 * together (a BitmapAnd) before reading any row, instead of checking every match against its
 * record. Measured on the large set's awards (« menuiseries interieures » in the Finistère):
 * the capped count 173–273 → 8.4–12 ms. A record is best written with its document
 * (`recordDocument`, in the record's own statement); `upsertSearchDocuments` updates the
 * documents of records already written, and ignores a document whose record does not exist.
 * Deleting a record deletes its document. SQLite keeps its FTS5 table.
 */
export interface PostgresRecords {
  /** The records' table. */
  readonly table: string;
  /** Its key column (unique), whose values are the documents' keys. */
  readonly key: string;
}
export interface SearchIndexDefinition {
  /** Table name, e.g. `companies_search`: lower case letters, digits, underscores. */
  name: string;
  /** Indexed fields, most important first; a bare name weighs A for the first column, B for the others. */
  columns: readonly (string | { name: string; weight?: SearchWeight })[];
  /** PostgreSQL: the documents in a column of the records' table (see `PostgresRecords`). */
  postgresRecords?: PostgresRecords;
  /**
   * PostgreSQL, an index in a table of its own: `text[]` columns of the search table (GIN
   * index `<table>_<list>` each), a list of values per document (`SearchDocument.lists`)
   * that holds, for every record a domain filter lets through, the value the filter asks
   * for: the companies' departments of their establishments. A search narrowed by a list
   * (`searchMatches`'s `narrow`) reads its matches among the documents listing a value,
   * the two GIN indexes intersected before any row is read; the domain's query keeps the
   * filter itself, so that the answer stays exact. SQLite ignores the lists.
   */
  postgresLists?: readonly string[];
}

const IDENTIFIER = /^[a-z][a-z0-9_]{0,39}$/;
const RESERVED = new Set(['key', 'rank', 'rowid', 'oid', 'document', 'id']);

export function defineSearchIndex(definition: SearchIndexDefinition): SearchIndex {
  const { name } = definition;
  if (!IDENTIFIER.test(name) || name.endsWith('_keys')) throw new Error(`Nom d'index de recherche invalide : ${name}`);
  if (!definition.columns.length) throw new Error(`Index ${name} : au moins une colonne.`);
  const columns = definition.columns.map((c, i): SearchColumn => {
    const column = typeof c === 'string' ? { name: c } : c;
    if (!IDENTIFIER.test(column.name) || RESERVED.has(column.name) || column.name === name) throw new Error(`Index ${name} : nom de colonne invalide : ${column.name}`);
    return { name: column.name, weight: column.weight ?? (i === 0 ? 'A' : 'B') };
  });
  if (new Set(columns.map((c) => c.name)).size !== columns.length) throw new Error(`Index ${name} : colonne en double.`);
  const records = definition.postgresRecords;
  const lists = definition.postgresLists;
  if (lists) {
    if (records) throw new Error(`Index ${name} : des listes seulement dans une table de l'index.`);
    if (!lists.length || new Set(lists).size !== lists.length || lists.some((l) => !IDENTIFIER.test(l) || RESERVED.has(l) || columns.some((c) => c.name === l)))
      throw new Error(`Index ${name} : listes invalides.`);
    return Object.freeze({ name, columns: Object.freeze(columns), postgresLists: Object.freeze([...lists]) });
  }
  if (!records) return Object.freeze({ name, columns: Object.freeze(columns) });
  if (!IDENTIFIER.test(records.table) || !IDENTIFIER.test(records.key) || records.key === 'document') throw new Error(`Index ${name} : table des fiches invalide.`);
  return Object.freeze({ name, columns: Object.freeze(columns), postgresRecords: Object.freeze({ table: records.table, key: records.key }) });
}

const keysTable = (index: SearchIndex) => `${index.name}_keys`;

/** The records' table holding the documents, on PostgreSQL, for an index declared so. */
function recordsOf(db: Knex, index: SearchIndex): PostgresRecords | undefined {
  return kindOf(db) === 'postgres' ? index.postgresRecords : undefined;
}

/** The table holding an index's documents on this engine (its writes change the search's answers). */
export function searchIndexTable(db: Knex, index: SearchIndex): string {
  return recordsOf(db, index)?.table ?? index.name;
}

/** PostgreSQL: the selected column giving a document's key (`key`, or the records' key under that name). */
function keyColumn(db: Knex, index: SearchIndex): string {
  const records = recordsOf(db, index);
  return records ? `${records.key} as key` : 'key';
}

/** The index as its own table of documents alone, whatever its declaration: the layout of the migrations written before `postgresRecords` and `postgresLists`. */
export function inOwnTable(index: SearchIndex): SearchIndex {
  return Object.freeze({ name: index.name, columns: index.columns });
}

/** Creates the index's tables (inside a migration, typically). */
export async function createSearchIndex(db: Knex, index: SearchIndex): Promise<void> {
  if (kindOf(db) === 'sqlite') {
    // `hash`: of the indexed text, so that re-importing an unchanged document costs a lookup.
    await db.raw(`create table "${keysTable(index)}" (id integer primary key, key text not null unique, hash integer not null)`);
    const columns = index.columns.map((c) => `"${c.name}"`).join(', ');
    await db.raw(
      `create virtual table "${index.name}" using fts5(${columns}, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`,
    );
  } else if (index.postgresRecords) {
    await db.raw(`alter table "${index.postgresRecords.table}" add column document tsvector`);
    await db.raw(documentIndexSql(index.postgresRecords.table));
  } else {
    const lists = (index.postgresLists ?? []).map((l) => `, "${l}" text[] not null default '{}'`).join('');
    await db.raw(`create table "${index.name}" (key text primary key, document tsvector not null${lists})`);
    await db.raw(documentIndexSql(index.name));
    for (const list of index.postgresLists ?? []) await db.raw(listIndexSql(index.name, list));
  }
}

/** PostgreSQL: the GIN index of a search table's list (`postgresLists`). */
export const listIndexSql = (table: string, list: string) => `create index if not exists "${table}_${list}" on "${table}" using gin ("${list}")`;

/** PostgreSQL: the GIN index of a search table's documents, as the migrations create it. */
export const documentIndexSql = (table: string) => `create index if not exists "${table}_document" on "${table}" using gin (document)`;

/**
 * PostgreSQL: the search tables of the current schema (a `document tsvector` column, as
 * `createSearchIndex` makes them), and whether each has its GIN index.
 */
export async function searchTables(db: Knex): Promise<{ name: string; indexed: boolean }[]> {
  const { rows } = await db.raw(
    `select c.relname as name,
            exists (select 1 from pg_index x join pg_class i on i.oid = x.indexrelid where x.indrelid = c.oid and i.relname = c.relname || '_document') as indexed
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
       join pg_attribute a on a.attrelid = c.oid and a.attname = 'document' and a.atttypid = 'tsvector'::regtype and not a.attisdropped
      where c.relkind = 'r' and c.relname ~ '^[a-z][a-z0-9_]*$'
      order by c.relname`,
  );
  return rows as { name: string; indexed: boolean }[];
}

/**
 * PostgreSQL: every search table, as a table whose GIN index a first load builds at its end
 * (`deferIndexes`, which takes it only from an empty table; nothing on SQLite). Kept up to
 * date row by row, the GIN index of the search documents was most of a first load's time;
 * built once over the loaded documents, it costs a fraction. A search in a table without it
 * reads the table through, with the same answers. Its GIN indexes (the documents', the
 * lists') are deferred, no other: a records' table holding its documents (`postgresRecords`)
 * leaves its other indexes to its own importer.
 */
export async function deferrableSearchTables(db: Knex): Promise<DeferrableTable[]> {
  if (kindOf(db) !== 'postgres') return [];
  const { rows } = await db.raw(
    `select c.relname as table, coalesce(array_agg(i.relname order by i.relname) filter (where i.relname is not null), '{}') as others
       from pg_class c
       join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
       left join pg_index x on x.indrelid = c.oid
       left join pg_class i on i.oid = x.indexrelid and i.relam <> (select oid from pg_am where amname = 'gin')
      where c.relname = any(?)
      group by c.relname`,
    [(await searchTables(db)).map((t) => t.name)],
  );
  return (rows as { table: string; others: string[] }[]).map((t) => ({ table: t.table, keep: t.others }));
}

export async function dropSearchIndex(db: Knex, index: SearchIndex): Promise<void> {
  const records = recordsOf(db, index);
  if (records) {
    await db.raw(`alter table "${records.table}" drop column if exists document`);
    return;
  }
  await db.raw(`drop table if exists "${index.name}"`);
  if (kindOf(db) === 'sqlite') await db.raw(`drop table if exists "${keysTable(index)}"`);
}

export interface SearchDocument {
  key: string;
  /** Text of each column of the index (a missing column or null: no text). */
  fields: Readonly<Record<string, string | null | undefined>>;
  /** PostgreSQL: the values of each of the index's lists (`postgresLists`; a missing list: none). */
  lists?: Readonly<Record<string, readonly string[]>>;
}

/**
 * The words of texts recently indexed: many documents share a text (an activity and its
 * label, a town, a buyer), folded once instead of once per document on the import's hot
 * path. Bounded: emptied when full. The arrays are never handed out, only copies of them.
 */
const recentWords = new Map<string, string[]>();
const RECENT_WORDS_MAX = 4096;

function wordsOf(text: string | null | undefined): string[] {
  if (!text) return [];
  let words = recentWords.get(text);
  if (!words) {
    words = searchWords(text);
    if (recentWords.size >= RECENT_WORDS_MAX) recentWords.clear();
    recentWords.set(text, words);
  }
  return words;
}

/** The indexed text of texts recently indexed (their words joined by spaces), and its number of words. */
const recentTexts = new Map<string, { text: string; count: number }>();

function textOf(text: string | null | undefined): { text: string; count: number } {
  if (!text) return { text: '', count: 0 };
  let folded = recentTexts.get(text);
  if (!folded) {
    const words = searchWords(text);
    folded = { text: words.join(' '), count: words.length };
    if (recentTexts.size >= RECENT_WORDS_MAX) recentTexts.clear();
    recentTexts.set(text, folded);
  }
  return folded;
}

function checkFields(index: SearchIndex, fields: SearchDocument['fields']): void {
  const names = Object.keys(fields);
  if (names.length <= index.columns.length && names.every((name, i) => index.columns[i]?.name === name)) return;
  for (const name of names) if (!index.columns.some((c) => c.name === name)) throw new Error(`Index ${index.name} : pas de colonne ${name}.`);
}

/**
 * What SQLite indexes for a document: each column's words joined by spaces, the same words
 * as `indexedWords` (`MAX_INDEXED_WORDS` in all), without an array per column.
 */
function indexedTexts(index: SearchIndex, fields: SearchDocument['fields']): string[] {
  checkFields(index, fields);
  let room = MAX_INDEXED_WORDS;
  return index.columns.map((c) => {
    const folded = textOf(fields[c.name]);
    if (folded.count <= room) {
      room -= folded.count;
      return folded.text;
    }
    const words = wordsOf(fields[c.name]).slice(0, room);
    room = 0;
    return words.join(' ');
  });
}

/** The words indexed for a document, field by field in column order (`MAX_INDEXED_WORDS` in all). */
export function indexedWords(index: SearchIndex, fields: SearchDocument['fields']): string[][] {
  checkFields(index, fields);
  let room = MAX_INDEXED_WORDS;
  return index.columns.map((c) => {
    const words = wordsOf(fields[c.name]).slice(0, room);
    room -= words.length;
    return words;
  });
}

/** The last version of each key (a batch may name a key twice). */
function lastByKey(docs: readonly SearchDocument[]): SearchDocument[] {
  const byKey = new Map<string, SearchDocument>();
  for (const doc of docs) {
    if (typeof doc.key !== 'string' || !doc.key) throw new Error('Document de recherche sans clé.');
    byKey.delete(doc.key);
    byKey.set(doc.key, doc);
  }
  return [...byKey.values()];
}

/**
 * A prepared statement of a batch of `n` rows: kept per connection for full batches (the
 * bulk case), prepared once otherwise, so partial batches do not fill the cache with one
 * statement per size.
 */
function batchStatement(conn: BetterSqlite3.Database, sql: string, n: number, full: number): BetterSqlite3.Statement {
  return n === full ? statement(conn, sql) : conn.prepare(sql);
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A 53-bit hash (cyrb53) of a document's indexed texts joined by U+0001 (the joined text is
 * not built): an unchanged document is not indexed again.
 */
function textsHash(texts: readonly string[]): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let t = 0; t < texts.length; t++) {
    if (t > 0) {
      h1 = Math.imul(h1 ^ 1, 2654435761);
      h2 = Math.imul(h2 ^ 1, 1597334677);
    }
    const text = texts[t] as string;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** Documents per statement (SQLite allows 32766 parameters). */
const SQLITE_BATCH = 500;
const POSTGRES_BATCH = 2500;

/**
 * Indexes the documents, replacing those of the same keys; atomic (a savepoint inside the
 * caller's transaction, if any). Give it batches (hundreds to thousands): on SQLite, the
 * key table is read and written 500 keys per statement, and FTS5 writes the batch's terms
 * out as one segment; on PostgreSQL, 2,000 documents per statement.
 */
export async function upsertSearchDocuments(db: Knex, index: SearchIndex, docs: readonly SearchDocument[]): Promise<void> {
  const latest = lastByKey(docs);
  if (!latest.length) return;
  if (kindOf(db) === 'sqlite') {
    const size = Math.min(SQLITE_BATCH, Math.floor(30_000 / (index.columns.length + 1)));
    const columns = ['rowid', ...index.columns.map((c) => `"${c.name}"`)].join(', ');
    const rowMarks = `(${['?', ...index.columns.map(() => '?')].join(', ')})`;
    const keys = `"${keysTable(index)}"`;
    const marks = (n: number, mark = '?') => Array.from({ length: n }, () => mark).join(', ');
    await withSqlite(db, (conn) =>
      conn.transaction(() => {
        // First the key table, for every document: which are new, which changed.
        const fresh: { id: number; texts: string[] }[] = [];
        const changed: { id: number; texts: string[] }[] = [];
        for (const batch of chunks(latest, size)) {
          const texts = batch.map((d) => indexedTexts(index, d.fields));
          const hashes = texts.map(textsHash);
          const known = new Map<string, { id: number; hash: number }>();
          const found = batchStatement(conn, `select id, key, hash from ${keys} where key in (${marks(batch.length)})`, batch.length, size).all(
            ...batch.map((r) => r.key),
          ) as { id: number; key: string; hash: number }[];
          for (const r of found) known.set(r.key, r);
          const freshHere: number[] = [];
          batch.forEach((r, i) => {
            const old = known.get(r.key);
            if (!old) freshHere.push(i);
            else if (old.hash !== hashes[i]) {
              statement(conn, `update ${keys} set hash = ? where id = ?`).run(hashes[i], old.id);
              changed.push({ id: old.id, texts: texts[i] as string[] });
            }
          });
          if (freshHere.length) {
            // New keys take the next ids (the write transaction holds the database alone):
            // cheaper than `returning` and a map of the keys back to their rows.
            const first = (statement(conn, `select coalesce(max(id), 0) as last from ${keys}`).get() as { last: number }).last + 1;
            batchStatement(conn, `insert into ${keys} (id, key, hash) values ${marks(freshHere.length, '(?, ?, ?)')}`, freshHere.length, size).run(
              ...freshHere.flatMap((i, n) => [first + n, (batch[i] as SearchDocument).key, hashes[i]]),
            );
            freshHere.forEach((i, n) => fresh.push({ id: first + n, texts: texts[i] as string[] }));
          }
        }
        // Then the full-text index, one document per statement. A statement that writes
        // several rows opens a statement journal, and every statement journal makes FTS5
        // write its pending terms out as a new segment: with 500-row statements, a segment
        // per 500 documents and merges without end (the large SIRENE import spent a third
        // of its SQLite time there). One row per statement opens none, so the terms of the
        // whole batch go out together at the commit (or when FTS5's buffer is full).
        const insert = statement(conn, `insert into "${index.name}" (${columns}) values ${rowMarks}`);
        for (const d of fresh) insert.run(d.id, ...d.texts);
        // contentless_delete: REPLACE removes the old version's tokens, then indexes the new one.
        const replace = statement(conn, `insert or replace into "${index.name}" (${columns}) values ${rowMarks}`);
        for (const d of changed) replace.run(d.id, ...d.texts);
      })(),
    );
    return;
  }
  // Each chunk's words and literals built while the database runs the chunk before. The
  // documents travel as one text array per column (`unnest`), each list as its array's
  // literal: PostgreSQL reads them in four fifths of the time it took to read the same rows
  // from JSON (`json_to_recordset`): 100,000 companies' documents inserted in 0.99–1.04 s
  // against 1.27–1.31 s, alternated twice.
  const records = recordsOf(db, index);
  const lists = records ? [] : (index.postgresLists ?? []);
  const sql = records
    ? `update "${records.table}" as r set document = d.document::tsvector from unnest(?::text[], ?::text[]) as d(key, document) ` +
      `where r."${records.key}" = d.key and r.document is distinct from d.document::tsvector`
    : ownTableUpsertSql(index);
  const columns = ['key', 'document', ...lists];
  const row = (d: SearchDocument): Record<string, string> => {
    const values = listsOf(index, d);
    const out: Record<string, string> = { key: d.key, document: tsvectorLiteral(index, indexedWords(index, d.fields)) };
    for (const l of lists) out[l] = arrayLiteral(values[l] ?? []) as string;
    return out;
  };
  const run = (trx: Knex) =>
    pipelined(
      chunks(latest, POSTGRES_BATCH),
      (batch) => columnArrays(batch.map(row), columns),
      (arrays) => trx.raw(sql, arrays),
    );
  await (db.isTransaction ? run(db) : db.transaction(run));
}

/**
 * Whether the index's documents are a column of their records' table on this engine
 * (PostgreSQL, `postgresRecords`): then a record is written with its document
 * (`recordDocument`) in the record's own statement, rather than indexed after it.
 */
export function documentsInRecords(db: Knex, index: SearchIndex): boolean {
  return !!recordsOf(db, index);
}

/**
 * A record's search document, as the value of its `document` column (`documentsInRecords`).
 * Written with the record, one version of its row; written after it (`upsertSearchDocuments`),
 * the update made a second: a first load of the large set's awards left the table 790 MB
 * instead of 485 MB until a full vacuum.
 */
export function recordDocument(index: SearchIndex, fields: SearchDocument['fields']): string {
  return tsvectorLiteral(index, indexedWords(index, fields));
}

/** PostgreSQL: the upsert of a batch of documents (a text array per column) into an index's own table, an unchanged document left alone. */
function ownTableUpsertSql(index: SearchIndex): string {
  const lists = (index.postgresLists ?? []).map((l) => `"${l}"`);
  const columns = ['document', ...lists];
  const changed = columns.map((c) => `"${index.name}".${c}`).join(', ');
  const given = columns.map((c) => `excluded.${c}`).join(', ');
  return (
    `insert into "${index.name}" (key, ${columns.join(', ')}) select key, document::tsvector${lists.map((l) => `, ${l}::text[]`).join('')} ` +
    `from unnest(?::text[], ?::text[]${lists.map(() => ', ?::text[]').join('')}) as d(key, document${lists.map((l) => `, ${l}`).join('')}) ` +
    `on conflict (key) do update set ${columns.map((c) => `${c} = excluded.${c}`).join(', ')} where (${changed}) is distinct from (${given})`
  );
}

/** A document's lists (`postgresLists`), each value once, in order: a list the index does not have is refused. */
function listsOf(index: SearchIndex, doc: SearchDocument): Record<string, string[]> {
  const lists = index.postgresLists ?? [];
  for (const name of Object.keys(doc.lists ?? {})) if (!lists.includes(name)) throw new Error(`Index ${index.name} : pas de liste ${name}.`);
  return Object.fromEntries(lists.map((l) => [l, [...new Set(doc.lists?.[l] ?? [])].sort()]));
}

/** Removes the documents of these keys (unknown keys are ignored). */
export async function deleteSearchDocuments(db: Knex, index: SearchIndex, keys: readonly string[]): Promise<void> {
  const unique = [...new Set(keys)];
  if (!unique.length) return;
  if (kindOf(db) === 'sqlite') {
    await withSqlite(db, (conn) =>
      conn.transaction(() => {
        for (const batch of chunks(unique, SQLITE_BATCH)) {
          const marks = batch.map(() => '?').join(', ');
          const ids = batchStatement(conn, `delete from "${keysTable(index)}" where key in (${marks}) returning id`, batch.length, SQLITE_BATCH)
            .pluck()
            .all(batch) as number[];
          if (ids.length) conn.prepare(`delete from "${index.name}" where rowid in (${ids.map(() => '?').join(', ')})`).run(ids);
        }
      })(),
    );
    return;
  }
  const records = recordsOf(db, index);
  for (const batch of chunks(unique, POSTGRES_BATCH))
    if (records)
      await db.raw(`update "${records.table}" set document = null where "${records.key}" in (select json_array_elements_text(?::json)) and document is not null`, [JSON.stringify(batch)]);
    else await db.raw(`delete from "${index.name}" where key in (select json_array_elements_text(?::json))`, [JSON.stringify(batch)]);
}

// --- Queries -----------------------------------------------------------------------------

/**
 * PostgreSQL tsvector text: each word's positions with its column's weight, a gap between
 * columns. Each word's positions grow as one short text and the words are joined once at the
 * end: half the time of a list per word joined word by word, and a flat string, which
 * `JSON.stringify` reads at once (a string appended word by word took it 2.5 times longer).
 */
function tsvectorLiteral(index: SearchIndex, fields: readonly (readonly string[])[]): string {
  const positions = new Map<string, string>();
  let position = 1;
  for (let i = 0; i < fields.length; i++) {
    const weight = (index.columns[i] as SearchColumn).weight;
    for (const word of fields[i] as readonly string[]) {
      const list = positions.get(word);
      positions.set(word, list === undefined ? `${position}${weight}` : `${list},${position}${weight}`);
      position += 1;
    }
    position += 1;
  }
  const parts = new Array<string>(positions.size);
  let n = 0;
  for (const [word, list] of positions) parts[n++] = `${pgLexeme(word)}:${list}`;
  return parts.join(' ');
}

// Words are [a-z0-9]+ by construction (`searchWords`); both quotings are complete anyway.
const pgLexeme = (word: string) => (word.includes('\\') || word.includes("'") ? `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}'` : `'${word}'`);
const ftsString = (text: string) => `"${text.replace(/"/g, '""')}"`;

const WORD = /^[a-z0-9]+$/;

/** A query from `parseQuery` passes; a hand-made one with an empty group or an unfolded word is a bug. */
function checkParsed(parsed: ParsedQuery): void {
  const ok =
    parsed.groups.length > 0 &&
    parsed.groups.every((g) => g.terms.length > 0 && g.terms.every((t) => (t.kind === 'word' ? WORD.test(t.word) : t.words.length > 0 && t.words.every((w) => WORD.test(w)))));
  if (!ok) throw new Error('Requête de recherche invalide : la construire avec parseQuery.');
}

/** The FTS5 MATCH expression: every term a quoted string, so no user text is FTS5 syntax. */
export function fts5Query(parsed: ParsedQuery): string {
  checkParsed(parsed);
  const term = (t: QueryTerm) => (t.kind === 'word' ? `${ftsString(t.word)}${t.prefix ? '*' : ''}` : ftsString(t.words.join(' ')));
  return parsed.groups.map((g) => `(${g.terms.map(term).join(' AND ')})`).join(' OR ');
}

/**
 * SQLite: the relevance of a match (higher is better), FTS5's bm25 with the columns' weights,
 * negated. With the ranking extension (`CACHED_RANKING`), `bm25_cached`: the same scores,
 * each phrase's count of documents (the first row of every bm25 statement reads all of
 * them: about 40 ms for a word in most of the large set's companies) and each match's
 * length (a lookup per match: 80 of the 100 ms of ranking « travaux batiment ») kept by the
 * connection at the index's data version, which it reads in the statement's transaction.
 * Its phrases are given as the query has them, in order: `fts5Query`'s terms, words joined
 * by a space, `*` after a prefix.
 */
export function sqliteRank(index: SearchIndex, parsed: ParsedQuery, cached = CACHED_RANKING): { sql: string; bindings: string[] } {
  const weights = index.columns.map((c) => SEARCH_WEIGHTS[c.weight]).join(', ');
  if (!cached) return { sql: `-bm25("${index.name}", ${weights})`, bindings: [] };
  const phrases = parsed.groups.flatMap((g) => g.terms.map((t) => (t.kind === 'word' ? `${t.word}${t.prefix ? '*' : ''}` : t.words.join(' '))));
  return {
    sql: `-bm25_cached("${index.name}", ?, ${weights})`,
    bindings: [[index.name, ...phrases].join('|')],
  };
}

/** The PostgreSQL tsquery text (cast with ::tsquery, so no parser runs on the words). */
export function tsqueryText(parsed: ParsedQuery): string {
  checkParsed(parsed);
  const term = (t: QueryTerm) => (t.kind === 'word' ? `${pgLexeme(t.word)}${t.prefix ? ':*' : ''}` : `(${t.words.map(pgLexeme).join(' <-> ')})`);
  return parsed.groups.map((g) => `(${g.terms.map(term).join(' & ')})`).join(' | ');
}

/**
 * The matching documents as a derived table of two columns, `key` and `rank` (higher is
 * better), to JOIN into a domain query, which adds its filters, its order and its page.
 * `among`: a query of one column listing keys (a key may be listed more than once): only
 * the matches among them, with the same ranks (the index's statistics stay the whole
 * index's). `narrow` (PostgreSQL, an index with `postgresLists`): only the documents whose
 * list holds one of the values, with the same ranks; ignored on SQLite.
 *
 *     const query = db('notices as n')
 *       .join(searchMatches(db, NOTICES_SEARCH, parsed).as('m'), 'm.key', 'n.marche_id')
 *       .where('n.departement', '69')
 *       .select('n.*');
 *     orderByRelevance(db, query, { rank: 'm.rank', then: [{ column: 'n.date_parution', order: 'desc' }], key: 'n.marche_id' })
 *       .limit(page.limit + 1).offset(page.offset);
 */
export function searchMatches(db: Knex, index: SearchIndex, parsed: ParsedQuery, options: { among?: Knex.QueryBuilder; narrow?: Readonly<Record<string, readonly string[]>> } = {}): Knex.QueryBuilder {
  if (kindOf(db) === 'sqlite') {
    const rank = sqliteRank(index, parsed);
    const query = db
      .select('k.key as key', db.raw(`${rank.sql} as rank`, rank.bindings))
      .from(index.name)
      .join(`${keysTable(index)} as k`, 'k.id', `${index.name}.rowid`)
      .whereRaw(`"${index.name}" match ?`, [fts5Query(parsed)]);
    // The listed keys gathered once, then each match's key checked against them: the unary
    // `+` keeps SQLite from driving the statement from the list (a lookup of each key, then
    // an FTS5 query per rowid, each reading the words' statistics again). Measured on the
    // large set: cheaper than gathering the listed keys' rowids (a lookup per listed key).
    if (options.among) query.whereRaw(`+k.key in (?)`, [options.among as unknown as Knex.Raw]);
    return query;
  }
  const query = tsqueryText(parsed);
  const matches = db
    .select(keyColumn(db, index), db.raw(`ts_rank(document, ?::tsquery, 1)::float8 as rank`, [query]))
    .from(searchIndexTable(db, index))
    .whereRaw('document @@ ?::tsquery', [query]);
  if (options.among) matches.whereIn(recordsOf(db, index)?.key ?? 'key', options.among);
  for (const [list, values] of Object.entries(options.narrow ?? {})) {
    if (!index.postgresLists?.includes(list)) throw new Error(`Index ${index.name} : pas de liste ${list}.`);
    matches.whereRaw(`"${list}" && ?::text[]`, [[...values]]);
  }
  return matches;
}

/**
 * PostgreSQL, an index declared with `postgresRecords`: the records of `query` (the records'
 * table under `alias`, with the domain's filters) narrowed to the matches, and their rank as
 * a selected column `rank` — the filters and the words read in one scan of the table, the GIN
 * index and the filters' B-trees intersected. Undefined on SQLite and for other indexes
 * (join `searchMatches` instead).
 */
export function matchingRecords(db: Knex, index: SearchIndex, parsed: ParsedQuery, query: Knex.QueryBuilder, alias: string): { records: Knex.QueryBuilder; rank: Knex.Raw } | undefined {
  if (!recordsOf(db, index)) return undefined;
  if (!IDENTIFIER.test(alias)) throw new Error(`Alias invalide : ${alias}`);
  const tsquery = tsqueryText(parsed);
  return {
    records: query.whereRaw(`"${alias}".document @@ ?::tsquery`, [tsquery]),
    rank: db.raw(`ts_rank("${alias}".document, ?::tsquery, 1)::float8 as rank`, [tsquery]),
  };
}

/** The matching keys alone, for `whereIn(column, matchingKeys(…))` (alerts, filters without ranking). */
export function matchingKeys(db: Knex, index: SearchIndex, parsed: ParsedQuery): Knex.QueryBuilder {
  if (kindOf(db) === 'sqlite')
    return db
      .select('k.key')
      .from(index.name)
      .join(`${keysTable(index)} as k`, 'k.id', `${index.name}.rowid`)
      .whereRaw(`"${index.name}" match ?`, [fts5Query(parsed)]);
  return db
    .select(keyColumn(db, index))
    .from(searchIndexTable(db, index))
    .whereRaw('document @@ ?::tsquery', [tsqueryText(parsed)]);
}

export interface SearchHit {
  key: string;
  /** Relevance, higher is better; comparable within one engine only. */
  rank: number;
}

/**
 * ORDER BY relevance (best first), then the `then` columns (a date, typically; nulls last
 * on both engines), then the key in byte order, so that ties fall alike on both engines
 * (PostgreSQL compares text by its locale otherwise). For `searchMatches` joined into a domain query:
 *
 *     orderByRelevance(db, query, { rank: 'm.rank', then: [{ column: 'n.date_parution', order: 'desc' }], key: 'n.marche_id' })
 */
export function orderByRelevance(
  db: Knex,
  query: Knex.QueryBuilder,
  options: { rank?: string; key?: string; then?: readonly { column: string; order: 'asc' | 'desc' }[] } = {},
): Knex.QueryBuilder {
  const then = options.then ?? [];
  // Nulls last on both engines (each puts them first in one direction).
  const postgres = kindOf(db) === 'postgres';
  const sql = ['?? desc', ...then.map((t) => `?? ${t.order} nulls last`), `??${postgres ? ' collate "C"' : ''}`];
  return query.orderByRaw(sql.join(', '), [options.rank ?? 'rank', ...then.map((t) => t.column), options.key ?? 'key']);
}

/** A page of the matching keys, best first, ties by key. */
export async function searchKeys(db: Knex, index: SearchIndex, parsed: ParsedQuery, page: { limit: number; offset?: number }): Promise<SearchHit[]> {
  const offset = page.offset ?? 0;
  if (!Number.isInteger(page.limit) || page.limit < 1 || !Number.isInteger(offset) || offset < 0) throw new Error('Page de recherche invalide.');
  const query = db.select('key', 'rank').from(searchMatches(db, index, parsed).as('m'));
  const rows = (await orderByRelevance(db, query).limit(page.limit).offset(offset)) as { key: string; rank: number | string }[];
  return rows.map((r) => ({ key: r.key, rank: Number(r.rank) }));
}

/**
 * The `count` best matches and every match tied with the last of them (best first, in no
 * set order among equal ranks): what a page of `offset + limit` results ordered by rank,
 * then by the domain's own columns, can hold. Ranked in the index alone, without joining
 * every match to its record: a broad query (tens of thousands of matches) costs the index's
 * time only. The best `count + TIES_READ` in one pass, on both engines (ties are common:
 * notices of one template share a rank; keeping the best thousand costs about what keeping
 * ten does); only a tie running past them reads the matches again from the last rank on.
 * PostgreSQL read `count + 1` before, then every match again at a tie: « travaux batiment »
 * on the large set's companies (169,319 matches, 200 asked) ranked them twice. `narrow`:
 * among the documents listing one of the values (PostgreSQL, `searchMatches`).
 */
/** Matches read beyond the `count` asked by `bestMatches`, for the ties of the last one. */
export const TIES_READ = 1000;

export async function bestMatches(
  db: Knex,
  index: SearchIndex,
  parsed: ParsedQuery,
  count: number,
  options: { tiesRead?: number; narrow?: Readonly<Record<string, readonly string[]>> } = {},
): Promise<SearchHit[]> {
  if (!Number.isInteger(count) || count < 1) throw new Error('Nombre de résultats invalide.');
  const tiesRead = options.tiesRead ?? TIES_READ;
  if (kindOf(db) !== 'sqlite') {
    const matches = () => searchMatches(db, index, parsed, { narrow: options.narrow });
    const read = count + tiesRead;
    // Filtered in the statement: only the `count` best and their ties travel, with how many
    // were read and the lowest rank read (a tie running past them).
    const top = orderByRelevance(db, db.select('key', 'rank').from(matches().as('m'))).limit(read);
    const window = 'rows between unbounded preceding and unbounded following';
    const ranked = db
      .select('key', 'rank', db.raw('count(*) over () as n_read'), db.raw('min(rank) over () as lowest'), db.raw(`nth_value(rank, ?) over (order by rank desc ${window}) as last`, [count]))
      .from(top.as('t'));
    const rows = (await db
      .select('key', 'rank', 'n_read', 'lowest', 'last')
      .from(ranked.as('w'))
      .where((w) => w.whereNull('last').orWhereRaw('rank >= last'))) as { key: string; rank: number | string; n_read: number | string; lowest: number | string; last: number | string | null }[];
    const first = rows[0];
    if (!first || first.last === null || Number(first.n_read) < read || Number(first.lowest) !== Number(first.last)) return rows.map((r) => ({ key: r.key, rank: Number(r.rank) }));
    const last = Number(first.last);
    // A tie running past what was read: every match from the last rank on.
    const all = (await db.select('key', 'rank').from(matches().as('m')).where('rank', '>=', last)) as { key: string; rank: number | string }[];
    return all.map((r) => ({ key: r.key, rank: Number(r.rank) }));
  }
  const rank = sqliteRank(index, parsed);
  const match = fts5Query(parsed);
  // Through Knex, not on the connection directly: inside `offLoop` the statements go to a
  // reading thread. Ranking broad words costs 100 to 250 ms on the large set (bm25 over
  // every match), and on the process's connection it held the event loop that long.
  const ranked = `select rowid as id, ${rank.sql} as rank from "${index.name}" where "${index.name}" match ?`;
  const keyed = (rows: string) => `select k.key as key, r.rank as rank from (${rows}) r join "${keysTable(index)}" k on k.id = r.id`;
  const read = count + tiesRead;
  const rows = (await db.raw(`${keyed(`${ranked} order by rank desc limit ?`)} order by r.rank desc`, [...rank.bindings, match, read])) as SearchHit[];
  if (rows.length < count) return rows;
  const last = (rows[count - 1] as SearchHit).rank;
  // A tie running past what was read: every match from the last rank on, with its key in the
  // same statement (thousands of ties, each looked up alone, cost more).
  if (rows.length === read && (rows[read - 1] as SearchHit).rank === last) return (await db.raw(`${keyed(ranked)} where r.rank >= ?`, [...rank.bindings, match, last])) as SearchHit[];
  return rows.filter((r) => r.rank >= last);
}

/** How many documents match, counted up to `cap` at most (`min(count, cap)`). */
export async function countMatches(db: Knex, index: SearchIndex, parsed: ParsedQuery, cap: number): Promise<number> {
  if (!Number.isInteger(cap) || cap < 0) throw new Error('Plafond de comptage invalide.');
  if (cap === 0) return 0;
  if (kindOf(db) === 'sqlite') {
    // The index alone: every document has its key (both are written and deleted together);
    // looking each key up cost a few µs a match, the count's whole cost for common words.
    // Through Knex: in a reading thread inside `offLoop` (broad words: tens of milliseconds).
    const [row] = (await db.raw(`select count(*) as n from (select rowid from "${index.name}" where "${index.name}" match ? limit ?)`, [fts5Query(parsed), cap])) as { n: number }[];
    return Number(row?.n ?? 0);
  }
  const row = (await db
    .count({ n: '*' })
    .from(matchingKeys(db, index, parsed).limit(cap).as('m'))
    .first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
