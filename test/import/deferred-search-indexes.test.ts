// A first load into an empty search table builds its GIN index after the load (PostgreSQL): the same indexes and the same search answers as a load keeping the index, and no stopped load (an error, a killed process) leaves the service without the index.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { expect } from 'chai';
import { kindOf, type Database } from '../../src/platform/db/database.js';
import { importFile } from '../../src/import/run.js';
import type { Importer } from '../../src/import/importer.js';
import { jsonLineRecords } from '../../src/import/records.js';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { deferrableSearchTables, searchKeys, upsertSearchDocuments } from '../../src/platform/search/full-text.js';
import { deferIndexes, restoreDeferredIndexes } from '../../src/platform/db/deferred-indexes.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { migrateAtStart } from '../../src/server.js';
import { up as storeDeferredIndexes } from '../../src/migrations/0034-deferred-indexes.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

interface Line {
  key: string;
  nom: string;
  lieu: string;
}

/** Whether the companies' search table has its GIN index now (always true on SQLite, which has none to defer). */
async function documentIndexed(db: Database): Promise<boolean> {
  if (kindOf(db) !== 'postgres') return true;
  const { rows } = await db.raw(`select count(*)::int as n from pg_indexes where schemaname = current_schema() and indexname = 'companies_search_document'`);
  return (rows as { n: number }[])[0]?.n === 1;
}

/** A search-writing importer as the domains' are: documents written in the batch's transaction; it notes whether the index was there at each batch, and fails at batch `failAt`. */
function documentImporter(seen: boolean[], failAt?: number): Importer<Line, Line> {
  return {
    name: 'documents-test',
    input: { unit: 'ligne', layouts: null },
    read: (stream: Readable) => jsonLineRecords(stream) as AsyncIterable<{ position: number; value: Line }>,
    map: (raw) => ({ row: raw }),
    async write(trx, rows) {
      seen.push(await documentIndexed(trx));
      if (failAt !== undefined && seen.length === failAt) throw new Error('écriture interrompue (test)');
      await upsertSearchDocuments(trx, COMPANIES_SEARCH, rows.map((r) => ({ key: r.key, fields: { nom: r.nom, activite: null, lieu: r.lieu } })));
      return { inserted: rows.length, updated: 0, kept: 0 };
    },
  };
}

const TRADES = ['toiture', 'couverture', 'menuiserie', 'peinture', 'plomberie', 'chauffage', 'maconnerie'];
const TOWNS = ['brest', 'quimper', 'rennes', 'lorient'];
const LINES: Line[] = Array.from({ length: 120 }, (_, i) => ({
  key: String(100_000_000 + i),
  nom: `${TRADES[i % TRADES.length]} ${TRADES[(i * 3) % TRADES.length]} ${i % 5 === 0 ? 'generale' : 'bretagne'}`,
  lieu: `${TOWNS[i % TOWNS.length]} 29${String(i % 10).padStart(3, '0')}`,
}));
const QUERIES = ['toiture', 'menuiserie brest', 'peint', '"chauffage generale"', 'plomberie, couverture', 'rennes', 'maconnerie quimper', '29003'];

/** The definitions of the current schema's indexes (PostgreSQL) or of every index (SQLite), the schema's name taken out. */
async function indexDefinitions(db: Database): Promise<string[]> {
  if (kindOf(db) === 'postgres') {
    const { rows } = await db.raw(`select indexdef from pg_indexes where schemaname = current_schema() order by indexname`);
    const schema = ((await db.raw('select current_schema() as s')).rows as { s: string }[])[0]?.s as string;
    return (rows as { indexdef: string }[]).map((r) => r.indexdef.split(`${schema}.`).join(''));
  }
  return ((await db.raw(`select sql from sqlite_master where type = 'index' and sql is not null order by name`)) as { sql: string }[]).map((r) => r.sql);
}

async function answers(db: Database): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of QUERIES) out.push((await searchKeys(db, COMPANIES_SEARCH, parseQuery(q), { limit: 200 })).map((h) => `${h.key} ${h.rank.toFixed(6)}`));
  return out;
}

describe('first load with deferred search indexes', function () {
  this.timeout(60_000);
  let dir: string;
  let file: string;
  const opened: MigratedDatabase[] = [];
  const fresh = async () => {
    const m = await openMigratedDatabase();
    opened.push(m);
    return m.db;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'deferred-indexes-'));
    file = join(dir, 'documents.jsonl');
    writeFileSync(file, LINES.map((l) => JSON.stringify(l)).join('\n') + '\n');
  });
  after(async () => {
    for (const m of opened) await m.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the same indexes and the same search answers as a load that keeps the index', async () => {
    const deferred = await fresh();
    const kept = await fresh();
    const seenDeferred: boolean[] = [];
    const seenKept: boolean[] = [];
    await importFile(deferred, documentImporter(seenDeferred), file, { progress: silent, batchSize: 25, deferIndexes: true });
    await importFile(kept, documentImporter(seenKept), file, { progress: silent, batchSize: 25, deferIndexes: false });
    expect(seenDeferred).to.have.length(5);
    // PostgreSQL: the empty table's index was out during the load, and kept by the other load.
    expect(seenDeferred.every((indexed) => indexed === !usingPostgres)).to.equal(true);
    expect(seenKept.every(Boolean)).to.equal(true);
    expect(await documentIndexed(deferred)).to.equal(true);
    expect(await indexDefinitions(deferred)).to.deep.equal(await indexDefinitions(kept));
    const found = await answers(deferred);
    expect(found.every((list) => list.length > 0)).to.equal(true);
    expect(found).to.deep.equal(await answers(kept));
  });

  it('keeps the index of a search table that already holds documents', async () => {
    const db = await fresh();
    await upsertSearchDocuments(db, COMPANIES_SEARCH, [{ key: '999999999', fields: { nom: 'deja la', activite: null, lieu: null } }]);
    const seen: boolean[] = [];
    await importFile(db, documentImporter(seen), file, { progress: silent, batchSize: 60, deferIndexes: true });
    expect(seen).to.deep.equal([true, true]);
  });

  it('builds the index back when the load stops on an error, the batches written before it searchable', async () => {
    const db = await fresh();
    const seen: boolean[] = [];
    let failure: unknown = null;
    await importFile(db, documentImporter(seen, 3), file, { progress: silent, batchSize: 25, deferIndexes: true }).catch((err: unknown) => (failure = err));
    expect((failure as Error | null)?.message).to.equal('écriture interrompue (test)');
    expect(seen).to.have.length(3);
    expect(seen.every((indexed) => indexed === !usingPostgres)).to.equal(true);
    expect(await documentIndexed(db)).to.equal(true);
    const hits = await searchKeys(db, COMPANIES_SEARCH, parseQuery('toiture'), { limit: 200 });
    expect(hits.map((h) => h.key).sort()).to.deep.equal(LINES.slice(0, 50).filter((l) => l.nom.includes('toiture')).map((l) => l.key).sort());
  });

  it('builds an index a killed load left missing at the next start, and at the end of the next import', async () => {
    const db = await fresh();
    // What a process killed during its first load leaves: the index dropped, some documents written.
    const dropped = await deferIndexes(db, await deferrableSearchTables(db));
    if (usingPostgres) expect(dropped).to.include('companies_search_document');
    else expect(dropped).to.deep.equal([]);
    await upsertSearchDocuments(db, COMPANIES_SEARCH, LINES.slice(0, 10).map((r) => ({ key: r.key, fields: { nom: r.nom, activite: null, lieu: r.lieu } })));
    expect(await documentIndexed(db)).to.equal(!usingPostgres);
    await migrateAtStart(db);
    expect(await documentIndexed(db)).to.equal(true);
    // Nothing left to build: a second call does nothing.
    expect(await restoreDeferredIndexes(db)).to.deep.equal([]);

    // Killed again, in another empty database: the next import (a small file: it defers nothing itself) builds it at its end.
    const next = await fresh();
    await deferIndexes(next, await deferrableSearchTables(next));
    const seen: boolean[] = [];
    await importFile(next, documentImporter(seen), file, { progress: silent, batchSize: 60 });
    expect(seen).to.deep.equal([!usingPostgres, !usingPostgres]);
    expect(await documentIndexed(next)).to.equal(true);
  });

  it('builds at the next start an index that a load killed before the definitions were stored left missing', async () => {
    const db = await fresh();
    // The state the former deferral left: the GIN index dropped, nothing stored; then the migration that stores definitions.
    await db.schema.dropTable('deferred_indexes');
    await db.raw(usingPostgres ? 'drop index companies_search_document' : 'select 1');
    await storeDeferredIndexes(db);
    expect(await documentIndexed(db)).to.equal(!usingPostgres);
    await migrateAtStart(db);
    expect(await documentIndexed(db)).to.equal(true);
    expect(await db('deferred_indexes').select()).to.deep.equal([]);
  });
});
