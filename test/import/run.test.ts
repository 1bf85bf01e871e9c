// An import reads its next batch while it writes the one before, on both databases, and a read that fails meanwhile is reported after the batch being written is committed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { expect } from 'chai';
import type { Database } from '../../src/platform/db/database.js';
import type { Importer, RawRecord } from '../../src/import/importer.js';
import { importFile } from '../../src/import/run.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

/** Resolves once `done()` holds, or after `ms` milliseconds, with whether it held. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 5));
  return done();
}

/** An importer of one record per line, whose rows are buyers; `failAfter` lines read, its reading fails. */
function lineImporter(options: { onWrite: (rows: string[]) => Promise<void>; failAfter?: number; mapped: { count: number } }): Importer<string, string> {
  return {
    name: 'essai',
    input: { unit: 'ligne', layouts: null },
    async *read(stream: Readable): AsyncIterable<RawRecord<string>> {
      let position = 0;
      for (const line of (await text(stream)).split('\n')) {
        if (options.failAfter !== undefined && position === options.failAfter) throw new Error('lecture interrompue');
        position += 1;
        // The lines come one event-loop turn apart, as a file's chunks do.
        await new Promise((resolve) => setImmediate(resolve));
        yield { position, value: line };
      }
    },
    map: (line) => {
      options.mapped.count += 1;
      return { row: line };
    },
    async write(trx, rows) {
      await options.onWrite(rows);
      await trx('buyers').insert(rows.map((id) => ({ id: `essai:${id}`, nom: id, siret: null, ingested_at: 'x' })));
      return { inserted: rows.length, updated: 0, kept: 0 };
    },
  };
}

describe('import run', function () {
  this.timeout(30000);
  let database: MigratedDatabase;
  let db: Database;
  let dir: string;
  let path: string;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    dir = mkdtempSync(join(tmpdir(), 'import-run-test-'));
    path = join(dir, 'lignes.txt');
    writeFileSync(path, ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'].join('\n'));
  });
  afterEach(async () => {
    await db('buyers').where('id', 'like', 'essai:%').delete();
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the next batch while the one before is written', async () => {
    const mapped = { count: 0 };
    const seen: number[] = [];
    const importer = lineImporter({
      mapped,
      // The first batch's write waits (2 s at most) for the lines after it to be read.
      onWrite: async (rows) => {
        if (rows[0] === 'a1') await until(() => mapped.count > 2, 2000);
        seen.push(mapped.count);
      },
    });
    const report = await importFile(db, importer, path, { progress: silent, batchSize: 2, readIn: 'thread' });
    expect(report).to.include({ read: 6, inserted: 6 });
    expect(seen[0], 'lignes lues pendant l’écriture du premier lot').to.be.greaterThan(2);
    expect(await db('buyers').where('id', 'like', 'essai:%').count({ n: '*' }).first()).to.satisfy((r: { n: number | string }) => Number(r.n) === 6);
  });

  it('reports a read that fails during a write once that batch is committed', async () => {
    const importer = lineImporter({
      mapped: { count: 0 },
      failAfter: 3,
      // Long enough for the reading to fail meanwhile.
      onWrite: () => new Promise((resolve) => setTimeout(resolve, 200)),
    });
    const err = await importFile(db, importer, path, { progress: silent, batchSize: 2, readIn: 'thread' }).catch((e: unknown) => e);
    expect((err as Error).message).to.equal('lecture interrompue');
    const ids = (await db('buyers').where('id', 'like', 'essai:%').orderBy('id').pluck('id')) as string[];
    expect(ids).to.deep.equal(['essai:a1', 'essai:a2']);
  });
});
