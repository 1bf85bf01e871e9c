// Listing each company's establishments' departments beside its search document (PostgreSQL) fills the list from the establishments already stored, narrows a department's search to them, and goes back whole; SQLite is untouched.
import { expect } from 'chai';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { down, up } from '../../src/migrations/0038-company-departments-list.js';
import { searchMatches, upsertSearchDocuments } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../helpers/service.js';

const NOW = '2026-11-29T12:00:00.000Z';

describe(`migration 0038, the companies' departments listed (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let migrated: MigratedDatabase;
  before(async () => {
    migrated = await openMigratedDatabase();
  });
  after(() => migrated.close());

  it("fills the lists from the establishments, and drops them going back", async () => {
    const { db } = migrated;
    const establishment = (siret: string, departement: string | null, etat: string) => ({ siret, siren: siret.slice(0, 9), nic: siret.slice(9), siege: false, etat, departement, ingested_at: NOW, updated_at: NOW });
    await db('establishments').insert([establishment('12345678900011', '29', 'A'), establishment('12345678900029', '56', 'F'), establishment('12345678900037', null, 'A'), establishment('98765432100013', '75', 'A')]);
    await upsertSearchDocuments(db, COMPANIES_SEARCH, [
      { key: '123456789', fields: { nom: 'Charpentes du Léon' } },
      { key: '987654321', fields: { nom: 'Charpentes de Paris' } },
      { key: '111111111', fields: { nom: 'Charpentes sans établissement' } },
    ]);
    if (!usingPostgres) {
      await down(db);
      await up(db);
      expect(await db.schema.hasColumn('companies_search', 'departements')).to.equal(false);
      return;
    }
    await down(db);
    expect(await db.schema.hasColumn('companies_search', 'departements')).to.equal(false);
    await up(db);
    const lists = (await db('companies_search').orderBy('key').select('key', 'departements')) as { key: string; departements: string[] }[];
    expect(lists).to.deep.equal([
      { key: '111111111', departements: [] },
      { key: '123456789', departements: ['29', '56'] },
      { key: '987654321', departements: ['75'] },
    ]);
    const inDepartement = async (departement: string) =>
      ((await db.select('key').from(searchMatches(db, COMPANIES_SEARCH, parseQuery('charpentes'), { narrow: { departements: [departement] } }).as('m'))) as { key: string }[]).map((r) => r.key);
    expect(await inDepartement('29')).to.deep.equal(['123456789']);
    expect(await inDepartement('13')).to.deep.equal([]);
    const indexes = (await db.raw("select indexname from pg_indexes where schemaname = current_schema() and indexname = 'companies_search_departements'")).rows as unknown[];
    expect(indexes).to.have.length(1);
  });
});
