// The change stamp changes whenever committed data a caller's identity is read from may have changed: on SQLite a write of this process (through Knex or not) or a commit of another connection, on PostgreSQL a committed write of the identity's tables by any connection; it stays the same for excused writes (the quota log) and for reads.
import type BetterSqlite3 from 'better-sqlite3';
import { expect } from 'chai';
import { changeStamp, excusingWrites } from '../../../src/platform/db/change-stamp.js';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { createQuotaStore } from '../../../src/access/quota-store.js';
import { IDENTITY_TABLES } from '../../../src/migrations/0029-postgres-call-path.js';
import { withSqlite } from '../../../src/platform/db/statements.js';
import { usingPostgres, openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

describe('database change stamp', () => {
  let database: MigratedDatabase;
  let db: Database;

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
  });
  after(async () => {
    await database.close();
  });

  if (usingPostgres)
    describe('on PostgreSQL', () => {
      it('stays the same over reads, quota admissions and file openings', async () => {
        const store = createQuotaStore(db);
        const before = await changeStamp(db);
        await db('organisations').select('*');
        const limits = { callsPerMinute: 2, callsPerDay: 10, filesPerDay: 1 };
        await Promise.all([1, 2, 3].map((i) => store.admitCall('compte-tampon', limits, Date.parse('2026-11-21T10:00:00Z') + i)));
        await store.openFile('compte-tampon', 'dce-1', '2026-11-21', limits, Date.parse('2026-11-21T10:00:00Z'));
        await db('call_log').where('account_id', 'compte-tampon').delete();
        expect(await changeStamp(db)).to.equal(before);
      });

      for (const table of IDENTITY_TABLES)
        it(`changes on a committed write of ${table}, from any connection, only once committed`, async () => {
          const before = await changeStamp(db);
          const other = openDatabase(database.databaseUrl);
          try {
            const trx = await other.transaction();
            // A statement that changes no row counts too: the stamp is raised per statement.
            await trx(table).whereRaw('1 = 0').delete();
            expect(await changeStamp(db)).to.equal(before);
            await trx.commit();
          } finally {
            await other.destroy();
          }
          expect(await changeStamp(db)).to.not.equal(before);
        });

      it('stays the same when the write is rolled back', async () => {
        const before = await changeStamp(db);
        await db
          .transaction(async (trx) => {
            await trx('plan_limits').where({ plan: 'free' }).update({ files_per_day: 6 });
            throw new Error('annulé');
          })
          .catch(() => undefined);
        expect(await changeStamp(db)).to.equal(before);
      });
    });
  else
    describe('on SQLite', () => {
      it('stays the same over reads', async () => {
        const before = await changeStamp(db);
        await db('organisations').select('*');
        await db.raw('select count(*) from plan_limits');
        expect(await changeStamp(db)).to.equal(before);
      });

      it('changes on a write of this process through Knex, even one rolled back', async () => {
        let before = await changeStamp(db);
        await db('plan_limits').where({ plan: 'free' }).update({ files_per_day: 5 });
        expect(await changeStamp(db)).to.not.equal(before);
        before = await changeStamp(db);
        await db
          .transaction(async (trx) => {
            await trx('plan_limits').where({ plan: 'free' }).update({ files_per_day: 6 });
            throw new Error('annulé');
          })
          .catch(() => undefined);
        expect(await changeStamp(db)).to.not.equal(before);
      });

      it('changes on a commit of another connection (another process, the CLI)', async () => {
        const before = await changeStamp(db);
        const other = openDatabase(database.databaseUrl);
        try {
          // A different value: an update that leaves the row as it was commits no change at all.
          await other('plan_limits').where({ plan: 'free' }).update({ files_per_day: 9 });
        } finally {
          await other.destroy();
        }
        expect(await changeStamp(db)).to.not.equal(before);
      });

      it('stays the same over excused writes: quota admissions and file openings, admitted or refused', async () => {
        const store = createQuotaStore(db);
        const before = await changeStamp(db);
        const limits = { callsPerMinute: 2, callsPerDay: 10, filesPerDay: 1 };
        await Promise.all([1, 2, 3].map((i) => store.admitCall('compte-tampon', limits, Date.parse('2026-11-21T10:00:00Z') + i)));
        await store.openFile('compte-tampon', 'dce-1', '2026-11-21', limits, Date.parse('2026-11-21T10:00:00Z'));
        await store.openFile('compte-tampon', 'dce-2', '2026-11-21', limits, Date.parse('2026-11-21T10:00:00Z'));
        expect(await changeStamp(db)).to.equal(before);
        await withSqlite(db, (conn: BetterSqlite3.Database) => excusingWrites(conn, () => conn.prepare("delete from call_log where account_id = 'compte-tampon'").run()));
        expect(await changeStamp(db)).to.equal(before);
        // The same kind of write outside `excusingWrites` counts.
        await withSqlite(db, (conn: BetterSqlite3.Database) => conn.prepare("delete from quota_accounts where account_id = 'compte-tampon'").run());
        expect(await changeStamp(db)).to.not.equal(before);
      });
    });
});
