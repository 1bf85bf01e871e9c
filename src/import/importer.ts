// What the import engine knows of an importer: how to read its records, map them to rows and
// write a batch of rows. The importers themselves live with their domain (src/domains/*/
// import-*.ts) and are listed in src/domains/importers.ts, which names its own module here so
// that the reading thread of a large file can load them without the engine importing a domain.
import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import type { DeferrableTable } from '../platform/db/deferred-indexes.js';
import type { ZipEntries } from './input.js';

/**
 * A record, or the reason it cannot be read, with its place in the file. `stop`: the input
 * cannot be read further (a syntax error in a JSON document): not a record, the reason says
 * where reading stopped. `nulls`: values the format cannot hold (NaN, Infinity) read as null.
 */
export type RawRecord<T> = { position: number; value: T; nulls?: number } | { position: number; error: string; stop?: true; nulls?: number };

/**
 * A row, or why the record is skipped. `notes`: what was dropped from a row that is kept
 * (a detail field unreadable, a contact detail removed), in French, counted in the report.
 */
export type Mapped<Row> = { row: Row; notes?: readonly string[] } | { skip: string };

export interface Importer<Raw, Row> {
  /** The source name, as given to `npm run import`. */
  name: string;
  /**
   * What the import's messages call a record (`ligne` for a CSV row, `enregistrement` for a
   * JSON record), and the layouts understood, said when a file gives nothing.
   */
  input: { unit: 'ligne' | 'enregistrement'; layouts: string | null; zipEntries?: ZipEntries };
  read(stream: Readable): AsyncIterable<RawRecord<Raw>>;
  map(raw: Raw, now: string): Mapped<Row>;
  /** Writes a batch in the transaction; returns how many rows were new, replaced a stored one, or were kept out (older). */
  write(trx: Knex.Transaction, rows: Row[], now: string): Promise<WriteCounts>;
  /**
   * The key the table is stored by: rows are then written in its order within each window
   * of SORT_WINDOW_BATCHES batches (see `importFile`). Without it, in the file's order.
   */
  sortKey?(row: Row): string;
}

/** What a batch write did: rows new, rows replacing the stored one, rows kept out (an older version). */
export interface WriteCounts {
  inserted: number;
  updated: number;
  /** Rows not written because the stored version is newer (`versionColumn`). */
  kept: number;
  /** What the write found out about rows kept (a company known by one source only…), in French, with how many rows each: counted in the report's notes. */
  notes?: Record<string, number>;
}

const catalogues = new WeakMap<object, string>();
const deferrable = new WeakMap<object, readonly DeferrableTable[]>();

/**
 * Declares the module (its `import.meta.url`) that exports these importers as `IMPORTERS`, by
 * source name. An importer listed so can be run by the reading thread (read-worker.ts), which
 * imports that module; one that is not (a test's) is read in the import's own thread.
 * `firstLoad`: per source name, the tables whose secondary indexes a first load of it builds
 * at its end (PostgreSQL, `deferIndexes`).
 */
export function importerCatalogue<T extends Record<string, Importer<never, never>>>(
  moduleUrl: string,
  importers: T,
  firstLoad: Partial<Record<keyof T, readonly DeferrableTable[]>> = {},
): T {
  for (const [name, importer] of Object.entries(importers)) {
    // The reading thread finds an importer by its name: the key must be that name.
    if (importer.name !== name) throw new Error(`Importateur ${importer.name} inscrit sous le nom ${name}.`);
    catalogues.set(importer, moduleUrl);
    const tables = firstLoad[name as keyof T];
    if (tables) deferrable.set(importer, tables);
  }
  for (const name of Object.keys(firstLoad)) if (!(name in importers)) throw new Error(`Importateur ${name} inconnu (index différés).`);
  return importers;
}

/** The module exporting this importer in its `IMPORTERS`, if it was declared by `importerCatalogue`. */
export function catalogueOf(importer: object): string | undefined {
  return catalogues.get(importer);
}

/** The tables whose secondary indexes a first load of this importer builds at its end (its catalogue's `firstLoad`). */
export function deferrableTablesOf(importer: object): readonly DeferrableTable[] {
  return deferrable.get(importer) ?? [];
}
