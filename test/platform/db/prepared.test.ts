// A prepared statement on PostgreSQL answers as the same text sent through Knex: two texts never share a name, parameters change its answer, inside a transaction it reads that transaction's uncommitted rows (its connection), and selects read together answer as each run alone, on both engines.
import { expect } from 'chai';
import type { Database } from '../../../src/platform/db/database.js';
import { preparedRowsTogether, preparedRowsTogetherOf, preparedText } from '../../../src/platform/db/prepared.js';
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

describe('selects read together (preparedRowsTogether, preparedRowsTogetherOf)', () => {
  let database: MigratedDatabase;
  let db: Database;
  const sorted = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => String(a.k).localeCompare(String(b.k)));

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    await db.schema.createTable('together_probe', (t) => {
      t.string('k', 10).primary();
      t.string('g', 10).notNullable();
      t.integer('v').notNullable();
      t.boolean('on').notNullable();
    });
    await db('together_probe').insert([
      { k: 'a', g: 'x', v: 1, on: true },
      { k: 'b', g: 'x', v: 2, on: false },
      { k: 'c', g: 'y', v: 3, on: true },
    ]);
  });
  after(async () => database?.close());

  /** Two selects with a param each, one of them twice, and a constant. */
  const selects = ([group, above]: readonly string[]) => [
    db('together_probe').where('g', group as string).select('k', 'v', 'on'),
    db('together_probe').where('k', '>', above as string).andWhere('v', '<', 100).select('k', 'g'),
    db('together_probe').where('g', group as string).count({ n: '*' }),
  ];

  it('answers each select as it answers alone, whatever the params, compiled once per name', async () => {
    for (const params of [['x', 'a'], ['y', ''], ['z', 'c'], ['x', 'b']]) {
      const alone = [];
      for (const query of selects(params)) alone.push((await query) as Record<string, unknown>[]);
      for (const together of [await preparedRowsTogether(db, selects(params)), await preparedRowsTogetherOf(db, 'together probe', selects, params)]) {
        expect(together).to.have.length(3);
        expect(sorted(together[0] as Record<string, unknown>[])).to.deep.equal(sorted(alone[0] as Record<string, unknown>[]));
        expect(sorted(together[1] as Record<string, unknown>[])).to.deep.equal(sorted(alone[1] as Record<string, unknown>[]));
        expect(Number((together[2] as { n: unknown }[])[0]?.n)).to.equal(Number((alone[2] as { n: unknown }[])[0]?.n));
      }
    }
  });

  it('refuses a read whose params are written into its text (PostgreSQL)', async function () {
    if (!usingPostgres) this.skip();
    const inText = ([group]: readonly string[]) => [db('together_probe').whereRaw(`g = '${(group as string).replace(/'/g, "''")}'`).select('k')];
    let refused: unknown;
    await preparedRowsTogetherOf(db, 'param in text', inText, ['x']).catch((err: unknown) => (refused = err));
    expect((refused as Error).message).to.match(/paramètre figure dans le texte/);
  });
});
