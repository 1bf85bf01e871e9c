// Moving the awards' and announcements' search documents into their records' tables (PostgreSQL) keeps every document of a record, drops the documents without one, keeps the search cache's counters exact, and goes back whole; SQLite is untouched.
import { expect } from 'chai';
import { ANNOUNCEMENTS_SEARCH } from '../../src/domains/announcements/search-index.js';
import { AWARDS_SEARCH } from '../../src/domains/awards/search-index.js';
import { down, TABLES_MOVED_TO_RECORDS, up } from '../../src/migrations/0037-search-documents-in-records.js';
import { searchKeys, upsertSearchDocuments } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../helpers/service.js';

const NOW = '2026-11-29T12:00:00.000Z';

describe(`migration 0037, search documents in their records (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let migrated: MigratedDatabase;
  before(async () => {
    migrated = await openMigratedDatabase();
  });
  after(() => migrated.close());

  const found = async (query: string) => (await searchKeys(migrated.db, AWARDS_SEARCH, parseQuery(query), { limit: 10 })).map((h) => h.key);

  it('moves the indexes declared with their documents in their records', () => {
    expect(TABLES_MOVED_TO_RECORDS).to.deep.equal([AWARDS_SEARCH.name, ANNOUNCEMENTS_SEARCH.name]);
    expect([AWARDS_SEARCH.postgresRecords, ANNOUNCEMENTS_SEARCH.postgresRecords]).to.deep.equal([
      { table: 'awards', key: 'award_key' },
      { table: 'announcements', key: 'id' },
    ]);
  });

  it('moves the documents back and forth, the orphans dropped, the counters following the tables', async () => {
    const { db } = migrated;
    await db('awards').insert({ award_key: 'k1', id: 'a1', departement: '29', ingested_at: NOW, updated_at: NOW });
    await db('announcements').insert({ id: 'b1', date_parution: '2026-11-02', sirens: '[]', details_illisibles: '', ingested_at: NOW, updated_at: NOW });
    await upsertSearchDocuments(db, AWARDS_SEARCH, [{ key: 'k1', fields: { objet: 'Charpente et couverture' } }]);
    await upsertSearchDocuments(db, ANNOUNCEMENTS_SEARCH, [{ key: 'b1', fields: { denomination: 'Menuiserie Kerlann' } }]);
    expect(await found('charpente')).to.deep.equal(['k1']);
    if (!usingPostgres) {
      // Nothing to move: the FTS5 tables stay.
      await down(db);
      await up(db);
      expect(await found('charpente')).to.deep.equal(['k1']);
      return;
    }
    await down(db);
    expect(await db.schema.hasColumn('awards', 'document')).to.equal(false);
    expect(await db('awards_search').pluck('key')).to.deep.equal(['k1']);
    expect(await db('announcements_search').pluck('key')).to.deep.equal(['b1']);
    expect(await db('search_data_versions').whereIn('name', ['awards_search', 'announcements_search']).pluck('name')).to.have.members(['awards_search', 'announcements_search']);
    // A document whose award no longer exists: no search could find it.
    await db('awards_search').insert({ key: 'orphan', document: db.raw("?::tsvector", ["'charpente':1A"]) });
    await up(db);
    expect(await db.schema.hasTable('awards_search')).to.equal(false);
    expect(await db.schema.hasTable('announcements_search')).to.equal(false);
    expect(await db('search_data_versions').whereIn('name', ['awards_search', 'announcements_search']).pluck('name')).to.deep.equal([]);
    expect(await found('charpente')).to.deep.equal(['k1']);
    expect((await searchKeys(db, ANNOUNCEMENTS_SEARCH, parseQuery('kerlann'), { limit: 10 })).map((h) => h.key)).to.deep.equal(['b1']);
    const indexes = (await db.raw("select indexname from pg_indexes where schemaname = current_schema() and indexname in ('awards_document', 'announcements_document')")).rows as { indexname: string }[];
    expect(indexes.map((i) => i.indexname).sort()).to.deep.equal(['announcements_document', 'awards_document']);
    // A write to the awards bumps their counter, which the searches of awards read.
    const version = async () => Number((await db('search_data_versions').where('name', 'awards').first('version')).version);
    const before = await version();
    await upsertSearchDocuments(db, AWARDS_SEARCH, [{ key: 'k1', fields: { objet: 'Zinguerie' } }]);
    expect(await version()).to.equal(before + 1);
    expect(await found('zinguerie')).to.deep.equal(['k1']);
  });
});
