// While the checkpoint thread runs, the service's SQLite connection checkpoints only past its backstop and the thread copies every committed frame; under steady writes the WAL file stays bounded; once the thread stops or fails, the connection checkpoints as it did before.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { statSync } from 'node:fs';
import { BACKSTOP_AUTOCHECKPOINT, startCheckpointer } from '../../../src/platform/db/checkpointer.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { withSqlite } from '../../../src/platform/db/statements.js';
import { usingPostgres } from '../../helpers/service.js';

const autocheckpoint = (db: Database) => withSqlite(db, (conn) => conn.pragma('wal_autocheckpoint', { simple: true }) as number);

(usingPostgres ? describe.skip : describe)('WAL checkpoints in a thread of their own (SQLite)', () => {
  let dir: string;
  let db: Database;
  let filename: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
    filename = join(dir, 'service.sqlite');
    db = openDatabase(`sqlite:${filename}`);
    await db.schema.createTable('lignes', (t) => {
      t.increments('id');
      t.text('texte');
    });
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies the committed frames while the connection checkpoints only past its backstop', async () => {
    expect(await autocheckpoint(db)).to.equal(1000);
    const checkpointer = await startCheckpointer(db, filename, { everyMs: 10 });
    try {
      expect(await autocheckpoint(db)).to.equal(BACKSTOP_AUTOCHECKPOINT);
      for (let i = 0; i < 60; i++) await db('lignes').insert(Array.from({ length: 20 }, () => ({ texte: 'x'.repeat(4000) })));
      const deadline = Date.now() + 5000;
      while (!(checkpointer.last && checkpointer.last.log > 0 && checkpointer.last.checkpointed === checkpointer.last.log) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(checkpointer.runs).to.be.greaterThan(0);
      expect(checkpointer.last?.checkpointed).to.equal(checkpointer.last?.log);
      expect(await db('lignes').count({ n: '*' }).first()).to.deep.equal({ n: 1200 });
    } finally {
      await checkpointer.stop();
    }
    expect(await autocheckpoint(db)).to.equal(1000);
  });

  it('keeps the WAL file bounded under steady writes', async () => {
    const checkpointer = await startCheckpointer(db, filename, { everyMs: 5 });
    try {
      // 24,000 commits of one 4 KB row, without a pause: ~200 MB of WAL if it never started again.
      for (let i = 0; i < 24_000; i++) await db('lignes').insert({ texte: 'y'.repeat(4000) });
      expect(statSync(`${filename}-wal`).size).to.be.below((BACKSTOP_AUTOCHECKPOINT + 2000) * 4096 * 2);
    } finally {
      await checkpointer.stop();
    }
  });

  it("gives back the setting it found: a second thread (an import inside the service) leaves the first thread's backstop", async () => {
    const service = await startCheckpointer(db, filename, { everyMs: 10 });
    try {
      const importing = await startCheckpointer(db, filename, { everyMs: 10 });
      expect(await autocheckpoint(db)).to.equal(BACKSTOP_AUTOCHECKPOINT);
      await importing.stop();
      expect(await autocheckpoint(db)).to.equal(BACKSTOP_AUTOCHECKPOINT);
    } finally {
      await service.stop();
    }
    expect(await autocheckpoint(db)).to.equal(1000);
  });

  it('gives the checkpoints back to the connection when its thread fails', async () => {
    let failure = '';
    // A file that does not exist: the thread cannot open it and stops.
    const checkpointer = await startCheckpointer(db, join(dir, 'absente.sqlite'), { everyMs: 10, onFailure: (m) => (failure = m) });
    const deadline = Date.now() + 5000;
    while (!failure && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(failure).to.match(/^fil des points de contrôle/);
    await new Promise((r) => setTimeout(r, 20));
    expect(await autocheckpoint(db)).to.equal(1000);
    await checkpointer.stop();
  });
});
