// A prepared statement on PostgreSQL answers as the same text sent through Knex: two texts never share a name, parameters change its answer, and inside a transaction it reads that transaction's uncommitted rows (its connection).
import { expect } from 'chai';
import type { Database } from '../../../src/platform/db/database.js';
import { preparedText } from '../../../src/platform/db/prepared.js';
import { usingPostgres, openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

describe('prepared statements on PostgreSQL', () => {
  let database: MigratedDatabase;
  let db: Database;

  before(async function () {
    if (!usingPostgres) this.skip();
    database = await openMigratedDatabase();
    db = database.db;
    await db.raw('create table prepared_probe (k text primary key, v integer not null)');
    await db('prepared_probe').insert([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
  });
  after(async () => database?.close());

  it('runs each text with its parameters, many times over the pool, as Knex reads it', async () => {
    const byKey = 'select k, v from prepared_probe where k = $1::text';
    const above = 'select k from prepared_probe where v > $1::integer order by k';
    for (let i = 0; i < 30; i++) {
      const [one, two] = await Promise.all([preparedText(db, byKey, [i % 2 ? 'a' : 'b']), preparedText(db, above, [i % 2])]);
      expect(one).to.deep.equal(await db('prepared_probe').where('k', i % 2 ? 'a' : 'b').select('k', 'v'));
      expect(two.map((r) => (r as { k: string }).k)).to.deep.equal(i % 2 ? ['b'] : ['a', 'b']);
    }
  });

  it('reads inside a transaction on its connection, and nothing of it once rolled back', async () => {
    const text = 'select count(*)::integer as n from prepared_probe';
    await db
      .transaction(async (trx) => {
        await trx('prepared_probe').insert({ k: 'c', v: 3 });
        expect(await preparedText(trx, text, [])).to.deep.equal([{ n: 3 }]);
        throw new Error('rollback');
      })
      .catch((err: unknown) => expect((err as Error).message).to.equal('rollback'));
    expect(await preparedText(db, text, [])).to.deep.equal([{ n: 2 }]);
  });
});
