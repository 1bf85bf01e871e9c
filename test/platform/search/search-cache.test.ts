// The search result cache is exact: a repeated question is answered from it, and any committed write to a table the search reads — by this connection, another pool or another process, to the records, their filters or the index — is seen by the next call; an uncommitted write is not; a write to a table no search reads (the quota log) leaves it alone; only tables with a version counter are cached; on PostgreSQL a page one process computed answers the others until the version changes.
import { expect } from 'chai';
import { openDatabase, type Database } from '../../../src/platform/db/database.js';
import { migrateLatest } from '../../../src/migrations/index.js';
import { createSearchIndex, defineSearchIndex, upsertSearchDocuments, deleteSearchDocuments } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { searchPage } from '../../../src/platform/search/search-page.js';
import { cachedSearch, MISSES_AT_ONCE, searchCacheStats, searchDataVersion, sweepSharedSearchCache, tablesOf } from '../../../src/platform/search/search-cache.js';
import { sqliteVersionTriggers } from '../../../src/migrations/0032-sqlite-search-versions.js';
import { SEARCHED_TABLES } from '../../../src/migrations/0030-search-under-load.js';
import { TABLES_MOVED_TO_RECORDS } from '../../../src/migrations/0037-search-documents-in-records.js';
import { freshDatabase, usingPostgres, type TestDatabaseUrl } from '../../helpers/service.js';

const INDEX = defineSearchIndex({ name: 'cache_search', columns: [{ name: 'titre', weight: 'A' }] });

describe(`search result cache (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, function () {
  this.timeout(60000);
  let database: TestDatabaseUrl;
  let db: Database;
  let other: Database;

  before(async () => {
    database = freshDatabase();
    await database.prepare();
    db = openDatabase(database.databaseUrl);
    await migrateLatest(db);
    await db.schema.createTable('cache_records', (t) => {
      t.string('id').primary();
      t.string('departement').notNullable();
      t.string('date').nullable();
    });
    await db.schema.createTable('cache_tags', (t) => {
      t.string('id').notNullable();
      t.string('tag').notNullable();
    });
    await createSearchIndex(db, INDEX);
    // What migrations 0030 (PostgreSQL) and 0032 (SQLite) do for every searched table.
    for (const table of ['cache_records', 'cache_tags', 'cache_search']) {
      await db('search_data_versions').insert({ name: table });
      if (usingPostgres) await db.raw('create trigger search_data_changed after insert or update or delete or truncate on ?? for each statement execute function search_data_changed()', [table]);
      else for (const sql of sqliteVersionTriggers(table, table === 'cache_search')) await db.raw(sql);
    }
    const rows = Array.from({ length: 40 }, (_, i) => ({ id: `r${String(i).padStart(3, '0')}`, departement: i % 2 ? '29' : '35', date: `2026-01-${String(1 + (i % 28)).padStart(2, '0')}` }));
    await db('cache_records').insert(rows);
    await db('cache_tags').insert(rows.map((r) => ({ id: r.id, tag: r.departement === '29' ? 'breton' : 'autre' })));
    await db.transaction((trx) => upsertSearchDocuments(trx, INDEX, rows.map((r, i) => ({ key: r.id, fields: { titre: `toiture ${i % 3 ? 'ecole' : 'mairie'}` } }))));
    // Another pool on the same database: another process, as far as caches go.
    other = openDatabase(database.databaseUrl);
  });
  after(async () => {
    await other?.destroy();
    await db?.destroy();
    await database?.cleanup();
  });

  const spec = (departement?: string, tag?: string) => {
    const base = db('cache_records as c');
    if (departement) base.where('c.departement', departement);
    if (tag) base.whereExists(db('cache_tags as t').select(db.raw('1')).whereRaw('t.id = c.id').where('t.tag', tag));
    return { index: INDEX, base, key: 'c.id', then: { column: 'c.date', order: 'desc' as const }, filtered: !!departement || !!tag };
  };
  const page = { offset: 0, limit: 50, countCap: 1000 };
  const hits = () => searchCacheStats().cache_search?.hits ?? 0;

  it('names the tables a query reads, subqueries included', () => {
    const { sql } = spec('29', 'breton').base.toSQL();
    expect(tablesOf(sql)).to.deep.equal(['cache_records', 'cache_tags']);
  });

  it('answers a repeated question from the cache, the same answer', async () => {
    const first = await searchPage(db, parseQuery('toiture'), spec('29'), page);
    const before = hits();
    const second = await searchPage(db, parseQuery('toiture'), spec('29'), page);
    expect(second).to.deep.equal(first);
    expect(hits()).to.equal(before + 1);
    // A caller changing its copy changes nothing cached.
    second.keys.length = 0;
    expect((await searchPage(db, parseQuery('toiture'), spec('29'), page)).keys).to.deep.equal(first.keys);
  });

  it('keeps questions apart: other words, filters or page', async () => {
    const a = await searchPage(db, parseQuery('toiture'), spec('29'), page);
    const b = await searchPage(db, parseQuery('toiture'), spec('35'), page);
    const c = await searchPage(db, parseQuery('mairie'), spec('29'), page);
    const d = await searchPage(db, parseQuery('toiture'), spec('29'), { offset: 5, limit: 5, countCap: 1000 });
    expect(b.keys).to.not.deep.equal(a.keys);
    expect(c.keys.length).to.be.lessThan(a.keys.length);
    expect(d.keys).to.deep.equal(a.keys.slice(5, 10));
  });

  it('sees a record written through the same pool at the next call', async () => {
    const before = await searchPage(db, parseQuery('toiture'), spec('29'), page);
    await db('cache_records').where('id', before.keys[0]).update({ departement: '56' });
    const after = await searchPage(db, parseQuery('toiture'), spec('29'), page);
    expect(after.keys).to.deep.equal(before.keys.slice(1));
    expect(after.total).to.equal(before.total - 1);
  });

  it('sees writes of another pool (another process) to the records, a filter table and the index', async () => {
    const before = await searchPage(db, parseQuery('toiture'), spec(undefined, 'breton'), page);
    await other('cache_tags').where('id', before.keys[0]).update({ tag: 'autre' });
    const untagged = await searchPage(db, parseQuery('toiture'), spec(undefined, 'breton'), page);
    expect(untagged.keys).to.not.include(before.keys[0]);

    const inIndex = await searchPage(db, parseQuery('mairie'), spec(), page);
    await other.transaction((trx) => deleteSearchDocuments(trx, INDEX, [inIndex.keys[0] as string]));
    expect((await searchPage(db, parseQuery('mairie'), spec(), page)).keys).to.not.include(inIndex.keys[0]);

    await other('cache_records').insert({ id: 'r999', departement: '35', date: '2027-01-01' });
    await other.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'r999', fields: { titre: 'mairie' } }]));
    expect((await searchPage(db, parseQuery('mairie'), spec(), page)).keys).to.include('r999');
  });

  it('does not show a write before its commit, and shows it after', async () => {
    const before = await searchPage(db, parseQuery('ecole'), spec('35'), page);
    const trx = await other.transaction();
    try {
      await trx('cache_records').where('id', before.keys[0]).update({ departement: '29' });
      // Read again while the writer holds its transaction open.
      expect((await searchPage(db, parseQuery('ecole'), spec('35'), page)).keys).to.deep.equal(before.keys);
      await trx.commit();
    } catch (err) {
      await trx.rollback();
      throw err;
    }
    expect((await searchPage(db, parseQuery('ecole'), spec('35'), page)).keys).to.deep.equal(before.keys.slice(1));
  });

  it('changes the version at a write of another connection to a searched table, not at its write to the quota log', async () => {
    const tables = ['cache_records', 'cache_search', 'cache_tags'];
    const version = async () => (await searchDataVersion(db, tables))?.of(tables);
    const start = await version();
    expect(start).to.be.a('string');
    // The quota log of an admitted call, written by another connection (another process).
    await other('call_log').insert({ account_id: 'compte-cache', at_ms: Date.now() });
    await other('quota_accounts').insert({ account_id: 'compte-cache', day_count: 1, minute_count: 1 });
    expect(await version()).to.equal(start);
    const first = await searchPage(db, parseQuery('toiture'), spec('35'), page);
    const before = hits();
    await other('quota_accounts').where('account_id', 'compte-cache').update({ day_count: 2 });
    expect(await searchPage(db, parseQuery('toiture'), spec('35'), page)).to.deep.equal(first);
    expect(hits()).to.equal(before + 1);
    // Each searched table, written by the other connection: a new version.
    let last = start;
    for (const write of [
      () => other('cache_tags').insert({ id: 'r998', tag: 'autre' }),
      () => other('cache_tags').where('id', 'r998').update({ tag: 'breton' }),
      () => other('cache_tags').where('id', 'r998').delete(),
      () => other('cache_records').where('id', 'r001').update({ date: '2026-02-01' }),
      () => other.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'r998', fields: { titre: 'gymnase' } }])),
      () => other.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'r998', fields: { titre: 'gymnase rénové' } }])),
      () => other.transaction((trx) => deleteSearchDocuments(trx, INDEX, ['r998'])),
    ]) {
      await write();
      const now = await version();
      expect(now).to.not.equal(last);
      last = now;
    }
    // SQLite: re-indexing an unchanged document writes no row, the version stays (PostgreSQL's
    // statement triggers count the statement, which changes no row, all the same).
    if (!usingPostgres) {
      await other.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'r001', fields: { titre: 'toiture ecole' } }]));
      expect(await version()).to.equal(last);
    }
  });

  it('counts the writes of every searched table of the schema (a counter, and triggers on the table or its full-text keys)', async () => {
    const counters = ((await db('search_data_versions').select('name')) as { name: string }[]).map((r) => r.name);
    // PostgreSQL: the awards' and announcements' documents are columns of their records' tables.
    const searched = usingPostgres ? SEARCHED_TABLES.filter((t) => !TABLES_MOVED_TO_RECORDS.includes(t)) : SEARCHED_TABLES;
    expect(counters).to.include.members([...searched]);
    if (usingPostgres) for (const table of TABLES_MOVED_TO_RECORDS) expect(counters).to.not.include(table);
    const triggers = usingPostgres
      ? ((await db.raw("select c.relname as tbl, t.tgname as name from pg_trigger t join pg_class c on c.oid = t.tgrelid where t.tgname = 'search_data_changed'")).rows as { tbl: string; name: string }[])
      : ((await db.raw("select tbl_name as tbl, name from sqlite_master where type = 'trigger'")) as { tbl: string; name: string }[]);
    for (const table of searched) {
      if (usingPostgres) expect(triggers.some((t) => t.tbl === table), table).to.equal(true);
      else {
        const keys = `${table}_keys`;
        const on = triggers.filter((t) => t.tbl === table || t.tbl === keys).map((t) => t.name);
        expect(on.filter((n) => /_search_version_(insert|update|delete)$/.test(n)), table).to.have.length(3);
      }
    }
  });

  it('caches nothing that reads a table without a version counter', async () => {
    await db.schema.createTable('cache_plain', (t) => t.string('id').primary());
    await db('cache_plain').insert({ id: 'r001' });
    const plain = () => ({ ...spec(), base: db('cache_records as c').whereExists(db('cache_plain as p').select(db.raw('1')).whereRaw('p.id = c.id')) });
    await searchPage(db, parseQuery('toiture'), plain(), page);
    const before = searchCacheStats().cache_search ?? { hits: 0, misses: 0 };
    const found = await searchPage(db, parseQuery('toiture'), plain(), page);
    expect(found.keys).to.deep.equal(['r001']);
    expect(searchCacheStats().cache_search).to.deep.equal(before);
  });

  it('bumps a version for a committed transaction, not for a rolled back one', async () => {
    const version = async () => Number((await db('search_data_versions').where('name', 'cache_records').first('version')).version);
    const start = await version();
    await db.transaction(async (trx) => {
      await trx('cache_records').insert({ id: 'r500', departement: '29', date: null });
      await trx('cache_records').insert({ id: 'r501', departement: '29', date: null });
    });
    // PostgreSQL: once per transaction (statement triggers noted, counted at the commit); SQLite: once per row.
    expect(await version()).to.equal(start + (usingPostgres ? 1 : 2));
    await db
      .transaction(async (trx) => {
        await trx('cache_records').insert({ id: 'r502', departement: '29', date: null });
        throw new Error('annulée');
      })
      .catch(() => undefined);
    expect(await version()).to.equal(start + (usingPostgres ? 1 : 2));
    if (usingPostgres) expect(await db('search_data_changes').count({ n: '*' }).first()).to.deep.include({ n: '0' });
  });

  it('computes at most MISSES_AT_ONCE questions at once on PostgreSQL (the others in turn, none lost), and a question asked inside a computation does not wait', async () => {
    let running = 0;
    let most = 0;
    const asked = MISSES_AT_ONCE * 3;
    const answers = await Promise.all(
      Array.from({ length: asked }, (_, i) =>
        cachedSearch(db, 'cache_search', 'tour', `question ${i}`, async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 20));
          // Every turn taken: a question of its own, queued, would wait for a turn none of them gives back (until the 30 s bound, then 503).
          const inner = await cachedSearch(db, 'cache_search', 'tour', `question ${i} (partagée)`, async () => `partagée ${i}`);
          running -= 1;
          return `${i} ${inner}`;
        }),
      ),
    );
    expect(answers).to.deep.equal(Array.from({ length: asked }, (_, i) => `${i} partagée ${i}`));
    expect(most).to.equal(usingPostgres ? MISSES_AT_ONCE : asked);
  });

  it('shares a computed page with the other processes on PostgreSQL until a write changes the version (each process computes its own on SQLite), and sweeps old entries', async () => {
    const stats = () => searchCacheStats().cache_search ?? { hits: 0, misses: 0, shared: 0 };
    const ask = (pool: Database) => searchPage(pool, parseQuery('ecole toiture'), { ...spec('29'), base: pool('cache_records as c').where('c.departement', '29') }, page);
    const computed = await ask(db);
    const before = stats();
    const elsewhere = await ask(other);
    expect(elsewhere).to.deep.equal(computed);
    expect(stats().shared - before.shared).to.equal(usingPostgres ? 1 : 0);
    expect(stats().misses - before.misses).to.equal(usingPostgres ? 0 : 1);

    // A write seen by both: neither process's entry, nor the shared one, answers any more.
    await db('cache_records').insert({ id: 'r600', departement: '29', date: '2027-02-01' });
    await db.transaction((trx) => upsertSearchDocuments(trx, INDEX, [{ key: 'r600', fields: { titre: 'ecole toiture' } }]));
    const afterWrite = stats();
    const fresh = await ask(other);
    expect(fresh.keys[0]).to.equal('r600');
    expect(fresh.total).to.equal(computed.total + 1);
    expect(stats().misses - afterWrite.misses).to.equal(1);

    // A third pool (a process just started) reads the new answer from the shared table on PostgreSQL.
    const third = openDatabase(database.databaseUrl);
    try {
      const beforeThird = stats();
      expect(await ask(third)).to.deep.equal(fresh);
      expect(stats().shared - beforeThird.shared).to.equal(usingPostgres ? 1 : 0);
    } finally {
      await third.destroy();
    }

    if (!usingPostgres) {
      expect(await sweepSharedSearchCache(db, new Date())).to.equal(0);
      return;
    }
    const stored = async () => Number((await db('search_cache_entries').count({ n: '*' }).first())?.n);
    const kept = await stored();
    expect(kept).to.be.greaterThan(1);
    // Entries stored after the date stay; entries stored before it go.
    expect(await sweepSharedSearchCache(db, new Date(Date.now() - 60_000))).to.equal(0);
    expect(await sweepSharedSearchCache(db, new Date(Date.now() + 60_000))).to.equal(kept);
    expect(await stored()).to.equal(0);
  });
});
