// A writer waiting for SQLite's lock is seen by long writers, which pause for it between two transactions — a bounded time per turn — and never for a process that is gone; nothing is queued on PostgreSQL or an in-memory database.
import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { openDatabase, sqliteFileOf } from '../../../src/platform/db/database.js';
import { makeRoomForWriters, queueAsWriter, waitingWriters, writerQueueDir } from '../../../src/platform/db/writer-queue.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../../helpers/service.js';

/** The id of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid as number;
}

describe('writer queue (SQLite write lock shared fairly)', () => {
  let database: MigratedDatabase;
  beforeEach(async () => {
    database = await openMigratedDatabase();
  });
  afterEach(async () => database.close());

  if (usingPostgres) {
    it('queues nothing on PostgreSQL (row locks, no single writer)', async () => {
      const leave = await queueAsWriter(database.db);
      expect(await waitingWriters(database.db)).to.equal(0);
      expect(await makeRoomForWriters(database.db)).to.equal(0);
      await leave();
    });
    return;
  }

  it('counts a queued writer until it leaves', async () => {
    expect(await waitingWriters(database.db)).to.equal(0);
    const leave = await queueAsWriter(database.db);
    expect(await waitingWriters(database.db)).to.equal(1);
    await leave();
    expect(await waitingWriters(database.db)).to.equal(0);
  });

  it('pauses a long writer until the waiting writer has left', async () => {
    const leave = await queueAsWriter(database.db);
    let left = false;
    setTimeout(() => {
      left = true;
      void leave();
    }, 100);
    await makeRoomForWriters(database.db);
    expect(left).to.equal(true);
  });

  it('pauses at most the turn it is given, then goes on while the writer still waits', async () => {
    const leave = await queueAsWriter(database.db);
    try {
      await makeRoomForWriters(database.db, 50);
      expect(await waitingWriters(database.db)).to.equal(1);
    } finally {
      await leave();
    }
  });

  it('forgets the entry of a process that is gone', async () => {
    const dir = writerQueueDir(sqliteFileOf(database.db) as string);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `${await deadPid()}-abcd1234`), '');
    expect(await waitingWriters(database.db)).to.equal(0);
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('queues nothing for an in-memory database', async () => {
    const memory = openDatabase('sqlite::memory:');
    try {
      const leave = await queueAsWriter(memory);
      expect(await waitingWriters(memory)).to.equal(0);
      await leave();
    } finally {
      await memory.destroy();
    }
  });
});
