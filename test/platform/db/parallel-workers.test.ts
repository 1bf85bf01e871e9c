// On PostgreSQL a pool opened with `parallelWorkers` sets `max_parallel_workers_per_gather` on every connection it opens, one without keeps the server's setting, and the API's pool of a running service carries the configured value.
import { expect } from 'chai';
import type { Knex } from 'knex';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { freshDatabase, startTestService, usingPostgres, type TestDatabaseUrl } from '../../helpers/service.js';

const shown = async (db: Knex) => String(((await db.raw('show max_parallel_workers_per_gather')) as { rows: { max_parallel_workers_per_gather: string }[] }).rows[0]?.max_parallel_workers_per_gather);

describe('parallel workers per statement on PostgreSQL', () => {
  let database: TestDatabaseUrl;

  before(async function () {
    if (!usingPostgres) this.skip();
    database = freshDatabase();
    await database.prepare();
  });
  after(async () => database?.cleanup());

  it('sets the count on each connection of the pool, and leaves the server setting without it', async () => {
    const plain = openDatabase(database.databaseUrl);
    const server = await shown(plain);
    const none = openDatabase(database.databaseUrl, { parallelWorkers: 0, poolSize: 3 });
    const three = openDatabase(database.databaseUrl, { parallelWorkers: 3, poolSize: 3 });
    try {
      // Held together, the statements open every connection of each pool.
      const held = (db: Database) => db.transaction((trx) => shown(trx));
      expect(await Promise.all([held(none), held(none), held(none)])).to.deep.equal(['0', '0', '0']);
      expect(await Promise.all([held(three), held(three), held(three)])).to.deep.equal(['3', '3', '3']);
      expect(await shown(plain)).to.equal(server);
      expect(server).to.not.equal('3');
    } finally {
      await Promise.all([plain.destroy(), none.destroy(), three.destroy()]);
    }
  });

  it('refuses a count that is not a whole number', () => {
    expect(() => openDatabase(database.databaseUrl, { parallelWorkers: 1.5 })).to.throw('Nombre de processus parallèles invalide : 1.5');
  });

  it("gives the API's connections of a running service the configured count", async () => {
    const service = await startTestService({ config: { pgParallelWorkers: 1 } });
    try {
      expect(await shown(service.db)).to.equal('1');
    } finally {
      await service.close();
    }
  });
});
