// The search pages the processes share have an unlogged table of their own on PostgreSQL, dropped going back; SQLite has none.
import { expect } from 'chai';
import { down, up } from '../../src/migrations/0039-shared-search-cache.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../helpers/service.js';

describe(`migration 0039, the shared search cache (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let migrated: MigratedDatabase;
  before(async () => {
    migrated = await openMigratedDatabase();
  });
  after(() => migrated.close());

  it('creates the unlogged table on PostgreSQL only, and drops it going back', async () => {
    const { db } = migrated;
    expect(await db.schema.hasTable('search_cache_entries')).to.equal(usingPostgres);
    await down(db);
    expect(await db.schema.hasTable('search_cache_entries')).to.equal(false);
    await up(db);
    expect(await db.schema.hasTable('search_cache_entries')).to.equal(usingPostgres);
    if (!usingPostgres) return;
    const [table] = (await db.raw("select relpersistence from pg_class where oid = to_regclass('search_cache_entries')")).rows as { relpersistence: string }[];
    expect(table?.relpersistence).to.equal('u');
  });
});
