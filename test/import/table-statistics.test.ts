// An import on PostgreSQL leaves the tables it changed enough analyzed (autovacuum's threshold: 50 rows plus 10 % of the table), so that the searches after it are planned from statistics, and analyzes a table during the load each time it has doubled, before the next batch (so that its own batches' reads are too, and a one-batch load's table once); a small change leaves the statistics alone; SQLite has nothing to analyze.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import type { Database } from '../../src/platform/db/database.js';
import { importFile } from '../../src/import/run.js';
import type { Importer } from '../../src/import/importer.js';
import { jsonLineRecords } from '../../src/import/records.js';
import { analyzeChangedTables } from '../../src/platform/db/statistics.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

interface Line {
  k: string;
}

/** Writes each line into `probe` (a table of the test's own). */
const probeImporter: Importer<Line, Line> = {
  name: 'statistics-test',
  input: { unit: 'ligne', layouts: null },
  read: (stream: Readable) => jsonLineRecords(stream) as AsyncIterable<{ position: number; value: Line }>,
  map: (raw) => ({ row: raw }),
  async write(trx, rows) {
    await trx('statistics_probe').insert(rows).onConflict('k').ignore();
    return { inserted: rows.length, updated: 0, kept: 0 };
  },
};

/** PostgreSQL's estimate of the table's rows from its last analysis (-1: never analyzed). */
async function analyzedRows(db: Database): Promise<number> {
  const { rows } = await db.raw(`select reltuples from pg_class where relnamespace = current_schema()::regnamespace and relname = 'statistics_probe'`);
  return Number((rows as { reltuples: number }[])[0]?.reltuples);
}

describe('table statistics after an import', function () {
  this.timeout(60_000);
  let dir: string;
  let database: MigratedDatabase;
  let db: Database;
  const file = (name: string, from: number, count: number) => {
    const path = join(dir, name);
    writeFileSync(path, Array.from({ length: count }, (_, i) => JSON.stringify({ k: `k${from + i}` })).join('\n') + '\n');
    return path;
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'table-statistics-'));
    database = await openMigratedDatabase();
    db = database.db;
    await db.schema.createTable('statistics_probe', (t) => t.string('k', 20).primary());
  });
  after(async () => {
    await database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('analyzes a table an import changed past the threshold, after the load and over all its batches', async function () {
    if (!usingPostgres) this.skip();
    expect(await analyzedRows(db)).to.equal(-1);
    // 300 rows in batches of 40: no batch alone passes the threshold of an empty table (50), the load does.
    await importFile(db, probeImporter, file('first.jsonl', 0, 300), { progress: silent, batchSize: 40 });
    expect(await analyzedRows(db)).to.equal(300);
  });

  it('analyzes a growing table between batches, each time it has doubled, so the load reads it from statistics', async function () {
    if (!usingPostgres) this.skip();
    await db.schema.createTable('statistics_growing', (t) => t.string('k', 20).primary());
    // What PostgreSQL knew of the table when each batch started writing.
    const seen: number[] = [];
    const growing: Importer<Line, Line> = {
      ...probeImporter,
      async write(trx, rows) {
        const { rows: found } = await trx.raw(`select reltuples from pg_class where relnamespace = current_schema()::regnamespace and relname = 'statistics_growing'`);
        seen.push(Number((found as { reltuples: number }[])[0]?.reltuples));
        await trx('statistics_growing').insert(rows);
        return { inserted: rows.length, updated: 0, kept: 0 };
      },
    };
    await importFile(db, growing, file('growing.jsonl', 0, 400), { progress: silent, batchSize: 40 });
    // Never analyzed until 50 rows (after the 2nd batch: 80), then at 50 + 80 more (240), then the load's end.
    expect(seen).to.deep.equal([-1, -1, 80, 80, 80, 80, 240, 240, 240, 240]);
    const { rows } = await db.raw(`select reltuples from pg_class where relnamespace = current_schema()::regnamespace and relname = 'statistics_growing'`);
    expect(Number((rows as { reltuples: number }[])[0]?.reltuples)).to.equal(400);
  });

  it('analyzes the table of a one-batch load once, at its end, not also between batches', async function () {
    if (!usingPostgres) this.skip();
    await db.schema.createTable('statistics_once', (t) => t.string('k', 20).primary());
    const once: Importer<Line, Line> = {
      ...probeImporter,
      async write(trx, rows) {
        await trx('statistics_once').insert(rows);
        return { inserted: rows.length, updated: 0, kept: 0 };
      },
    };
    const analyses: string[] = [];
    const listen = (q: { sql: string }) => {
      if (/^analyze\b/i.test(q.sql) && q.sql.includes('statistics_once')) analyses.push(q.sql);
    };
    db.on('query', listen);
    try {
      // 300 rows in one batch: past the growing threshold of an empty table (50), and the last batch.
      await importFile(db, once, file('once.jsonl', 0, 300), { progress: silent, batchSize: 1000 });
    } finally {
      db.off('query', listen);
    }
    expect(analyses).to.have.length(1);
    const { rows } = await db.raw(`select reltuples from pg_class where relnamespace = current_schema()::regnamespace and relname = 'statistics_once'`);
    expect(Number((rows as { reltuples: number }[])[0]?.reltuples)).to.equal(300);
  });

  it('leaves the statistics alone when the change stays below the threshold', async function () {
    if (!usingPostgres) this.skip();
    // 50 + 10 % of 300 = 80: 70 new rows do not pass it.
    await importFile(db, probeImporter, file('small.jsonl', 1000, 70), { progress: silent, batchSize: 40 });
    expect(await analyzedRows(db)).to.equal(300);
    expect(Number((await db('statistics_probe').count<{ n: number | string }[]>('* as n'))[0]?.n)).to.equal(370);
  });

  it('has nothing to analyze on SQLite', async function () {
    if (usingPostgres) this.skip();
    await importFile(db, probeImporter, file('sqlite.jsonl', 0, 300), { progress: silent, batchSize: 40 });
    expect(await analyzeChangedTables(db, new Map([['statistics_probe', 300]]))).to.deep.equal([]);
  });
});
