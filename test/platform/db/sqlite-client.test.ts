// On SQLite, a statement run on its own waits out another connection's write lock within the service's budget (off the event loop), then fails as DatabaseBusyError; inside a transaction it fails as before; without a budget, at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Sqlite from 'better-sqlite3';
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { DatabaseBusyError, isBusy } from '../../../src/platform/db/busy.js';
import { usingPostgres } from '../../helpers/service.js';

describe('SQLite client: lone statements wait out another writer', function () {
  if (usingPostgres) return;
  let dir: string;
  let file: string;
  let other: Sqlite.Database;
  const opened: Database[] = [];
  let release: NodeJS.Timeout | undefined;
  const open = (lockBudgetMs: number) => {
    const db = openDatabase(`sqlite:${file}`, { busyTimeoutMs: 10, lockBudgetMs });
    opened.push(db);
    return db;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sqlite-client-'));
    file = join(dir, 'db.sqlite');
    const setup = openDatabase(`sqlite:${file}`);
    await setup.raw('create table t (id integer primary key, v text)');
    await setup.destroy();
    other = new Sqlite(file);
  });
  afterEach(async () => {
    clearTimeout(release);
    if (other.inTransaction) other.exec('rollback');
    other.close();
    while (opened.length) await opened.pop()?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The error a statement fails with (null when it succeeds). */
  const failureOf = (run: PromiseLike<unknown>) =>
    Promise.resolve(run).then(
      () => null,
      (e: unknown) => e,
    );

  /** Another connection takes the write lock now and gives it back after `ms` (committing a row). */
  const holdLock = (ms: number) => {
    other.exec("begin immediate; insert into t (v) values ('autre')");
    release = setTimeout(() => other.exec('commit'), ms);
  };

  it('writes once the other connection commits, the event loop free meanwhile', async () => {
    const db = open(1500);
    await db('t').count({ n: '*' });
    holdLock(150);
    let ticks = 0;
    const ticking = setInterval(() => (ticks += 1), 10);
    try {
      await db('t').insert({ v: 'service' });
    } finally {
      clearInterval(ticking);
    }
    expect(await db('t').orderBy('id').pluck('v')).to.deep.equal(['autre', 'service']);
    // The pauses run off the loop: timers fired while the statement waited.
    expect(ticks).to.be.greaterThan(1);
  });

  it('gives up after its budget with DatabaseBusyError, having written nothing', async () => {
    const db = open(100);
    holdLock(1000);
    const err = await failureOf(db('t').insert({ v: 'service' }));
    expect(err).to.be.instanceOf(DatabaseBusyError);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await db('t').pluck('v')).to.deep.equal(['autre']);
  });

  it('fails at once without a budget (the command-line tools wait in busy_timeout instead)', async () => {
    const db = open(0);
    holdLock(200);
    const err = await failureOf(db('t').insert({ v: 'service' }));
    expect(isBusy(err)).to.equal(true);
    expect(err).not.to.be.instanceOf(DatabaseBusyError);
  });

  it('leaves a statement inside a transaction to fail: the transaction would have to run again', async () => {
    const db = open(1500);
    holdLock(200);
    const err = await failureOf(
      db.transaction(async (trx) => {
        await trx('t').insert({ v: 'service' });
      }),
    );
    expect(isBusy(err)).to.equal(true);
  });
});
