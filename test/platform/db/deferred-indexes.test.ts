// A first load into empty tables builds their secondary indexes once at its end (PostgreSQL): every index of the migrations is there after it, reads and stored rows are the same, a killed load's indexes are built back at the next start or import, and a table holding rows keeps its indexes throughout.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { kindOf, type Database } from '../../../src/platform/db/database.js';
import { deferIndexes, restoreDeferredIndexes } from '../../../src/platform/db/deferred-indexes.js';
import { importFile } from '../../../src/import/run.js';
import { deferrableTablesOf } from '../../../src/import/importer.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { COMPANIES_SEARCH } from '../../../src/domains/companies/search-index.js';
import { countMatches } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { migrateAtStart } from '../../../src/server.js';
import { openMigratedDatabase, usingPostgres, type MigratedDatabase } from '../../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

// The published headers, read where they are (never copied into the project).
const REAL_SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/', import.meta.url));
const SAMPLES = join(REAL_SAMPLES, 'sirene');
const header = (file: string) => (readFileSync(join(SAMPLES, file), 'utf8').split('\n')[0] as string).trim().split(',');
const ESTABLISHMENT_COLUMNS = header('sirene_as_api-sample_etablissements_OK.csv');
const UNIT_COLUMNS = header('joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv');
const line = (columns: string[], values: Record<string, string>) => columns.map((c) => values[c] ?? '').join(',');

const NAF = ['43.91A', '43.32A', '43.34Z', '41.20A', '71.12B'];
const COMMUNES = [
  ['29019', 'BREST'],
  ['35238', 'RENNES'],
  ['33063', 'BORDEAUX'],
  ['69123', 'LYON'],
];
const siren = (i: number) => String(300_000_000 + i * 7);
const unit = (i: number) =>
  line(UNIT_COLUMNS, {
    siren: siren(i),
    denominationUniteLegale: `SOCIETE ${i} TOITURE`,
    categorieJuridiqueUniteLegale: '5499',
    activitePrincipaleUniteLegale: NAF[i % NAF.length] as string,
    nomenclatureActivitePrincipaleUniteLegale: 'NAFRev2',
    dateCreationUniteLegale: '2015-06-01',
    etatAdministratifUniteLegale: i % 9 === 0 ? 'C' : 'A',
    nicSiegeUniteLegale: '00011',
    dateDernierTraitementUniteLegale: '2024-01-01T00:00:00',
  });
const establishment = (i: number, n: number) => {
  const [code, commune] = COMMUNES[(i + n) % COMMUNES.length] as [string, string];
  const nic = String(11 + n * 8).padStart(5, '0');
  return line(ESTABLISHMENT_COLUMNS, {
    siren: siren(i),
    nic,
    siret: `${siren(i)}${nic}`,
    etablissementSiege: String(n === 0),
    etatAdministratifEtablissement: (i + n) % 5 === 0 ? 'F' : 'A',
    dateCreationEtablissement: '2016-03-01',
    activitePrincipaleEtablissement: NAF[(i + n) % NAF.length] as string,
    nomenclatureActivitePrincipaleEtablissement: 'NAFRev2',
    libelleCommuneEtablissement: commune,
    codeCommuneEtablissement: code,
    codePostalEtablissement: `${code.slice(0, 2)}000`,
    dateDernierTraitementEtablissement: '2024-01-01T00:00:00',
  });
};
const UNITS = Array.from({ length: 240 }, (_, i) => unit(i));
const ESTABLISHMENTS = Array.from({ length: 240 }, (_, i) => [0, 1].map((n) => establishment(i, n))).flat();

/** The current schema's indexes (PostgreSQL: name, definition without the schema, and identity, which a rebuild changes); SQLite's, by their SQL. */
async function indexes(db: Database): Promise<{ name: string; definition: string; oid: number }[]> {
  if (kindOf(db) !== 'postgres') {
    return ((await db.raw(`select name, sql from sqlite_master where type = 'index' and sql is not null order by name`)) as { name: string; sql: string }[]).map((r) => ({ name: r.name, definition: r.sql, oid: 0 }));
  }
  const { rows } = await db.raw(
    `select i.indexname as name, i.indexdef as definition, c.oid::int as oid
       from pg_indexes i join pg_class c on c.relname = i.indexname and c.relnamespace = current_schema()::regnamespace
      where i.schemaname = current_schema() order by i.indexname`,
  );
  const schema = ((await db.raw('select current_schema() as s')).rows as { s: string }[])[0]?.s as string;
  return (rows as { name: string; definition: string; oid: number }[]).map((r) => ({ ...r, definition: r.definition.split(`${schema}.`).join('') }));
}

const definitions = async (db: Database) => (await indexes(db)).map((i) => `${i.name} ${i.definition}`);
const oids = async (db: Database) => new Map((await indexes(db)).map((i) => [i.name, i.oid]));

/** Reads through the indexes a first load builds at its end, and through those it keeps. */
async function answers(db: Database): Promise<unknown[]> {
  return [
    await db('companies').where({ activite_principale: '43.91A' }).orderBy('siren').pluck('siren'),
    await db('companies').where('ingested_at', '>=', '2000-01-01').count({ n: '*' }),
    await db('establishments').where({ departement: '29', etat: 'A' }).orderBy('siren').pluck('siret'),
    await db('establishments').whereIn('siren', [siren(3), siren(100)]).orderBy('siret').pluck('siret'),
    await db('companies').where({ unit_known: false }).orderBy('siren').pluck('siren'),
  ];
}

/** The indexes of the tables the SIRENE imports fill (every empty search table's GIN index is deferred too). */
const loaded = (name: string) => /^(companies|establishments)_/.test(name);

const waiting = async (db: Database) => Number(((await db('deferred_indexes').count({ n: '*' })) as { n: number | string }[])[0]?.n);

describe('first load with deferred secondary indexes', function () {
  this.timeout(60_000);
  let dir: string;
  const files: Record<string, string> = {};
  const opened: MigratedDatabase[] = [];
  const fresh = async () => {
    const m = await openMigratedDatabase();
    opened.push(m);
    return m.db;
  };
  const load = (db: Database, source: string, file: string, deferIndexes?: boolean) =>
    importFile(db, IMPORTERS[source] as never, files[file] as string, { progress: silent, batchSize: 100, ...(deferIndexes === undefined ? {} : { deferIndexes }) });

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'deferred-btree-'));
    const write = (name: string, columns: string[], lines: string[]) => {
      files[name] = join(dir, `${name}.csv`);
      writeFileSync(files[name] as string, `${columns.join(',')}\n${lines.join('\n')}\n`);
    };
    write('units', UNIT_COLUMNS, UNITS);
    write('establishments', ESTABLISHMENT_COLUMNS, ESTABLISHMENTS);
    write('more-units', UNIT_COLUMNS, Array.from({ length: 50 }, (_, i) => unit(1000 + i)));
    write('few-establishments', ESTABLISHMENT_COLUMNS, [establishment(0, 0)]);
  });
  after(async () => {
    for (const m of opened) await m.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names, per SIRENE, BODACC, DVF, BOAMP and DECP source, tables whose reads during the load keep their index', () => {
    expect(deferrableTablesOf(IMPORTERS['sirene-unites'] as object)).to.deep.equal([{ table: 'companies', keep: ['companies_provisional'] }]);
    expect(deferrableTablesOf(IMPORTERS['sirene-etablissements'] as object).map((t) => t.table)).to.deep.equal(['establishments', 'companies', 'companies_search']);
    expect(deferrableTablesOf(IMPORTERS['bodacc'] as object).map((t) => t.table)).to.deep.equal(['announcements', 'announcement_sirens']);
    expect(deferrableTablesOf(IMPORTERS['dvf'] as object)).to.deep.equal([{ table: 'sales' }]);
    expect(deferrableTablesOf(IMPORTERS['boamp'] as object).map((t) => t.table)).to.deep.equal(['notices', 'notice_departements', 'notice_corrections', 'buyers', 'awards', 'award_winners']);
    expect(deferrableTablesOf(IMPORTERS['decp'] as object).map((t) => t.table)).to.deep.equal(['buyers', 'awards', 'award_winners']);
    expect(deferrableTablesOf(IMPORTERS['rne'] as object)).to.deep.equal([]);
  });

  /**
   * Loads into two fresh databases, with and without the deferral; checks every index of the
   * migrations is back with none waiting; returns the indexes rebuilt (but the search
   * documents', in their own tables or their records', and the companies' lists of departments) and each table's rows from both loads, by key, times left out.
   */
  const loadedAlike = async (run: (db: Database, defer: boolean) => Promise<void>, tables: readonly (readonly [string, string])[]) => {
    const deferred = await fresh();
    const kept = await fresh();
    const migrated = await definitions(deferred);
    const before = await oids(deferred);
    await run(deferred, true);
    await run(kept, false);
    expect(await definitions(deferred)).to.deep.equal(migrated);
    expect(await waiting(deferred)).to.equal(0);
    const after = await oids(deferred);
    const rebuilt = [...after.keys()].filter((name) => after.get(name) !== before.get(name) && !/_document$|_search_departements$/.test(name)).sort();
    const stored = async (db: Database) => {
      const out: string[][] = [];
      for (const [table, key] of tables)
        out.push(((await db(table).orderBy(key).select('*')) as Record<string, unknown>[]).map((r) => JSON.stringify(Object.entries(r).filter(([c]) => !/_at$|_le$/.test(c)))));
      return out;
    };
    return { rebuilt, rows: await stored(deferred), keptRows: await stored(kept) };
  };

  it('loads BOAMP notices (their awards, corrections and departments) and DECP awards alike with their indexes deferred, then builds them back', async () => {
    const { rebuilt, rows, keptRows } = await loadedAlike(
      async (db, defer) => {
        await importFile(db, IMPORTERS.boamp as never, join(REAL_SAMPLES, 'boamp/boamp-explore-v2.1-records-limit5-jpbenga.json'), { progress: silent, batchSize: 2, deferIndexes: defer });
        await importFile(db, IMPORTERS.decp as never, join(REAL_SAMPLES, 'decp/decp-2024-megalis-59920013600241-2024-07-09-01.json'), { progress: silent, batchSize: 2, deferIndexes: defer });
      },
      [['notices', 'marche_id'], ['notice_departements', 'marche_id'], ['notice_corrections', 'annonce_id'], ['buyers', 'id'], ['awards', 'award_key'], ['award_winners', 'award_key']],
    );
    expect(rebuilt).to.deep.equal(
      usingPostgres
        ? [
            'award_winners_siren_index',
            'awards_buyer_id_index',
            'awards_date_notification_index',
            'awards_departement_index',
            'awards_ingested_at_index',
            'buyers_siret_index',
            'notice_corrections_correction_id_index',
            'notice_departements_departement_index',
            'notices_buyer_id_index',
            'notices_date_limite_index',
            'notices_date_parution_index',
            'notices_ingested_at_index',
            'notices_modifie_le_index',
          ]
        : [],
    );
    expect((rows[0] as string[]).length).to.be.greaterThan(0);
    expect((rows[4] as string[]).length).to.be.greaterThan(0);
    expect(rows).to.deep.equal(keptRows);
  });

  it('loads DVF sales alike with their indexes deferred (the lines of a mutation over several batches), then builds them back', async () => {
    const { rebuilt, rows, keptRows } = await loadedAlike(
      async (db, defer) => {
        for (const file of ['geo-dvf-2024-dep01-thimothe-das-example.csv', 'dvf-etalab-variant-2023-thimothe-das-dvf.csv'])
          await importFile(db, IMPORTERS.dvf as never, join(REAL_SAMPLES, 'dvf', file), { progress: silent, batchSize: 2, deferIndexes: defer });
      },
      [['sales', 'id_mutation']],
    );
    expect(rebuilt).to.deep.equal(
      usingPostgres ? ['sales_commune_date_idx', 'sales_date_idx', 'sales_departement_date_idx', 'sales_departement_type_date_idx', 'sales_ingested_idx', 'sales_postal_date_idx', 'sales_type_date_idx'] : [],
    );
    expect((rows[0] as string[]).length).to.be.greaterThan(1);
    expect(rows).to.deep.equal(keptRows);
  });

  it('rebuilds the deferred indexes after a first load: the same indexes as the migrations made, the same answers', async () => {
    const deferred = await fresh();
    const kept = await fresh();
    const migrated = await definitions(deferred);
    const before = await oids(deferred);
    await load(deferred, 'sirene-unites', 'units', true);
    await load(deferred, 'sirene-etablissements', 'establishments', true);
    await load(kept, 'sirene-unites', 'units', false);
    await load(kept, 'sirene-etablissements', 'establishments', false);
    expect(await definitions(deferred)).to.deep.equal(migrated);
    expect(await definitions(kept)).to.deep.equal(migrated);
    expect(await waiting(deferred)).to.equal(0);
    const after = await oids(deferred);
    const rebuilt = [...after.keys()].filter((name) => loaded(name) && after.get(name) !== before.get(name)).sort();
    if (usingPostgres) {
      // Dropped and built again (another identity): the loaded tables' secondary indexes, but those the loads read.
      expect(rebuilt).to.deep.equal(['companies_activite_principale_index', 'companies_ingested_at_index', 'companies_search_departements', 'companies_search_document', 'establishments_departement_etat_siren']);
    } else expect(rebuilt).to.deep.equal([]);
    const found = await answers(deferred);
    expect((found[0] as string[]).length).to.be.greaterThan(0);
    expect((found[2] as string[]).length).to.be.greaterThan(0);
    expect(found).to.deep.equal(await answers(kept));
  });

  it('keeps every index of a table that holds rows at the start, but the companies\' documents that a first load of the establishments rewrites', async () => {
    const db = await fresh();
    await load(db, 'sirene-unites', 'units', false);
    const before = await oids(db);
    // Companies hold rows, establishments are empty: the establishments' index is deferred, and the documents' they rewrite.
    await load(db, 'sirene-unites', 'more-units', true);
    await load(db, 'sirene-etablissements', 'establishments', true);
    const after = await oids(db);
    const rebuilt = [...after.keys()].filter((name) => loaded(name) && after.get(name) !== before.get(name));
    expect(rebuilt).to.deep.equal(usingPostgres ? ['companies_search_departements', 'companies_search_document', 'establishments_departement_etat_siren'] : []);
    expect([...after.keys()]).to.deep.equal([...before.keys()]);
    expect(await waiting(db)).to.equal(0);
    // The documents rewritten with the establishments' towns, found through the index built again.
    const kept = await fresh();
    await load(kept, 'sirene-unites', 'units', false);
    await load(kept, 'sirene-unites', 'more-units', false);
    await load(kept, 'sirene-etablissements', 'establishments', false);
    for (const words of ['brest', 'toiture rennes', 'lyon']) {
      const found = await countMatches(db, COMPANIES_SEARCH, parseQuery(words), 10_000);
      expect(found, words).to.be.greaterThan(0);
      expect(found, words).to.equal(await countMatches(kept, COMPANIES_SEARCH, parseQuery(words), 10_000));
    }
    if (usingPostgres) {
      // Written anew after the load that rewrote every document: the room of their first versions given back.
      const pages = async (d: Database) => Number(((await d.raw(`select pg_relation_size('companies_search') / 8192 as n`)).rows as { n: string }[])[0]?.n);
      expect(await pages(db)).to.be.lessThan(await pages(kept));
    }
  });

  it('keeps the companies\' documents\' index when the establishments\' file is small beside it (more than eight times smaller)', async () => {
    const db = await fresh();
    await load(db, 'sirene-unites', 'units', false);
    const before = await oids(db);
    await load(db, 'sirene-etablissements', 'few-establishments', true);
    const after = await oids(db);
    const rebuilt = [...after.keys()].filter((name) => loaded(name) && after.get(name) !== before.get(name));
    expect(rebuilt).to.deep.equal(usingPostgres ? ['establishments_departement_etat_siren'] : []);
    expect(await countMatches(db, COMPANIES_SEARCH, parseQuery('brest'), 10_000)).to.equal(1);
  });

  it('builds the indexes a killed load left missing at the next start, and at the end of the next import', async () => {
    const db = await fresh();
    const migrated = await definitions(db);
    // What a process killed during its first load leaves: the indexes dropped, their definitions stored, rows written.
    const dropped = await deferIndexes(db, deferrableTablesOf(IMPORTERS['sirene-etablissements'] as object));
    expect(dropped).to.deep.equal(usingPostgres ? ['establishments_departement_etat_siren', 'companies_activite_principale_index', 'companies_ingested_at_index'] : []);
    await db('companies').insert({ siren: siren(1), etat: 'A', unit_known: true, ingested_at: '2026-01-01', updated_at: '2026-01-01' });
    expect(await waiting(db)).to.equal(usingPostgres ? 3 : 0);
    expect((await definitions(db)).length).to.equal(migrated.length - dropped.length);
    await migrateAtStart(db);
    expect(await definitions(db)).to.deep.equal(migrated);
    expect(await waiting(db)).to.equal(0);
    // Nothing left to build: a second call does nothing.
    expect(await restoreDeferredIndexes(db)).to.deep.equal([]);

    // Killed again, in another empty database: the next import of a small file (it defers nothing itself) builds them at its end.
    const next = await fresh();
    // PostgreSQL: the announcements' six indexes and their documents' (a column of theirs).
    expect(await deferIndexes(next, deferrableTablesOf(IMPORTERS.bodacc as object))).to.have.length(usingPostgres ? 7 : 0);
    await load(next, 'sirene-unites', 'more-units');
    expect(await definitions(next)).to.deep.equal(migrated);
    expect(await waiting(next)).to.equal(0);
  });
});
