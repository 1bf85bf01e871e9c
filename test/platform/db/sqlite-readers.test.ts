// Inside offLoop, a lone read on a SQLite file runs in a reading thread on a connection of its own, the event loop and the service's connection free meanwhile; writes and a transaction's statements stay on the service's connection; a thread's error or overrun fails that read only, its start not counted in the statement's time.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { offLoop, readersOf } from '../../../src/platform/db/sqlite-readers.js';

/** A read that keeps SQLite busy a while (hundreds of milliseconds on this machine). */
const LONG_READ = 'with recursive n(i) as (select 1 union all select i + 1 from n where i < ?) select count(*) as c from n';

describe('SQLite reading threads', () => {
  let dir: string;
  let db: Database;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'readers-'));
    db = openDatabase(`sqlite:${join(dir, 'base.sqlite')}`, { readThreads: 1, statementTimeoutMs: 60_000 });
    await db.schema.createTable('items', (t) => {
      t.integer('id').primary();
      t.string('label');
    });
    await db('items').insert([
      { id: 1, label: 'un' },
      { id: 2, label: 'deux' },
    ]);
  });
  after(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads on a connection of its own: a temporary table of the service’s connection is not there', async () => {
    await db.raw('create temp table seen_here (x integer)');
    try {
      expect(await db('seen_here').count({ n: '*' })).to.deep.equal([{ n: 0 }]);
      let failure: unknown = null;
      await offLoop(db, () => db('seen_here').count({ n: '*' })).catch((err: unknown) => (failure = err));
      expect(String((failure as Error | null)?.message)).to.match(/no such table: seen_here/);
      expect((failure as { code?: string }).code).to.equal('SQLITE_ERROR');
    } finally {
      await db.raw('drop table temp.seen_here');
    }
  });

  it('gives the same rows as the service’s connection, for the builder’s select, first and pluck and for raw SQL', async () => {
    const here = [await db('items').select('*').orderBy('id'), await db('items').where({ id: 2 }).first(), await db('items').orderBy('id').pluck('label'), await db.raw('select label from items where id = ?', [1])];
    const there = await offLoop(db, async () => [
      await db('items').select('*').orderBy('id'),
      await db('items').where({ id: 2 }).first(),
      await db('items').orderBy('id').pluck('label'),
      await db.raw('select label from items where id = ?', [1]),
    ]);
    expect(there).to.deep.equal(here);
    expect(there[1]).to.deep.equal({ id: 2, label: 'deux' });
  });

  it('leaves the service’s connection free while a long read runs in the thread', async () => {
    const order: string[] = [];
    const long = offLoop(db, () => db.raw(LONG_READ, [3_000_000])).then(() => order.push('longue'));
    // Asked after the long read, answered before it: the long read does not hold the loop nor the connection.
    await db('items').count({ n: '*' }).then(() => order.push('courte'));
    await long;
    expect(order).to.deep.equal(['courte', 'longue']);
    // Without offLoop, the same long read holds the connection until it ends.
    const inline: string[] = [];
    const held = db.raw(LONG_READ, [1_000_000]).then(() => inline.push('longue'));
    await db('items').count({ n: '*' }).then(() => inline.push('courte'));
    await held;
    expect(inline).to.deep.equal(['longue', 'courte']);
  });

  it('writes on the service’s connection, and the next read in the thread sees the write', async () => {
    const seen = await offLoop(db, async () => {
      await db('items').insert({ id: 3, label: 'trois' });
      await db('items').where({ id: 3 }).update({ label: 'trois bis' });
      return db('items').where({ id: 3 }).first();
    });
    expect(seen).to.deep.equal({ id: 3, label: 'trois bis' });
    await db('items').where({ id: 3 }).del();
  });

  it('keeps a transaction’s reads on the transaction’s connection (its own writes seen before the commit)', async () => {
    await db.transaction(async (trx) => {
      await trx('items').insert({ id: 4, label: 'quatre' });
      const inside = await offLoop(db, () => trx('items').where({ id: 4 }).first());
      expect(inside).to.deep.equal({ id: 4, label: 'quatre' });
      await trx('items').where({ id: 4 }).del();
    });
  });

  it('fails a read that overruns its time, and the next read is served by a new thread', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'readers-'));
    const short = openDatabase(`sqlite:${join(dir2, 'base.sqlite')}`, { readThreads: 1, statementTimeoutMs: 1000 });
    try {
      await short.raw('create table t (x integer)');
      let failure: unknown = null;
      await offLoop(short, () => short.raw(LONG_READ, [30_000_000])).catch((err: unknown) => (failure = err));
      expect(String((failure as Error | null)?.message)).to.match(/lecture de la base interrompue après 1 s$/);
      expect(await offLoop(short, () => short('t').count({ n: '*' }))).to.deep.equal([{ n: 0 }]);
    } finally {
      await short.destroy();
      rmSync(dir2, { recursive: true, force: true });
    }
  });

  it('times a statement from its thread’s start: a start longer than the statement’s time fails nothing', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'readers-'));
    // 150 ms for the statement; starting the thread (its modules loaded, the file opened) takes longer here.
    const quick = openDatabase(`sqlite:${join(dir2, 'base.sqlite')}`, { readThreads: 1, statementTimeoutMs: 150 });
    try {
      await quick.raw('create table t (x integer)');
      expect(await offLoop(quick, () => quick('t').count({ n: '*' }))).to.deep.equal([{ n: 0 }]);
    } finally {
      await quick.destroy();
      rmSync(dir2, { recursive: true, force: true });
    }
  });

  it('has no thread for an in-memory database, nor without readThreads: offLoop runs the reads here', async () => {
    const memory = openDatabase('sqlite::memory:', { readThreads: 2 });
    try {
      expect(readersOf(memory)).to.equal(null);
      await memory.raw('create table t (x integer)');
      expect(await offLoop(memory, () => memory('t').count({ n: '*' }))).to.deep.equal([{ n: 0 }]);
    } finally {
      await memory.destroy();
    }
  });
});
