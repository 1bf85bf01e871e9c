// What an import does to rows already stored, on both databases: each row counted once as
// inserted, updated or kept (an older version), a newer version always winning whatever
// the order of the rows and the batches, `ingested_at` kept; the search documents follow
// what is stored; a failure rolls back its own batch only.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Knex } from 'knex';
import type { Database } from '../../src/platform/db/database.js';
import { COMPANIES_SEARCH } from '../../src/domains/companies/search-index.js';
import { searchKeys } from '../../src/platform/search/full-text.js';
import { parseQuery } from '../../src/platform/search/query-syntax.js';
import type { Importer } from '../../src/import/importer.js';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { upsertRows } from '../../src/import/upsert.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

const UL_COLUMNS = ['siren', 'dateCreationUniteLegale', 'dateDernierTraitementUniteLegale', 'etatAdministratifUniteLegale', 'denominationUniteLegale', 'activitePrincipaleUniteLegale'];
const unit = (siren: string, name: string, updated: string) => [siren, '2015-03-02', updated, 'A', name, '43.91B'].join(',');
const ET_COLUMNS = ['siret', 'dateCreationEtablissement', 'dateDernierTraitementEtablissement', 'etatAdministratifEtablissement', 'etablissementSiege', 'codePostalEtablissement', 'libelleCommuneEtablissement', 'codeCommuneEtablissement'];
const establishment = (siret: string, town: string, postcode: string, updated: string) => [siret, '2015-03-02', updated, 'A', 'true', postcode, town, '29103'].join(',');

describe('import upserts', function () {
  this.timeout(30000);
  let database: MigratedDatabase;
  let db: Database;
  let dir: string;
  let n = 0;
  const csv = (header: string[], lines: string[]) => {
    const path = join(dir, `f${++n}.csv`);
    writeFileSync(path, [header.join(','), ...lines].join('\n'));
    return path;
  };
  const units = (lines: string[], options: { batchSize?: number } = {}) =>
    importFile(db, IMPORTERS['sirene-unites'] as never, csv(UL_COLUMNS, lines), { progress: silent, batchSize: 2, ...options });
  const establishments = (lines: string[]) => importFile(db, IMPORTERS['sirene-etablissements'] as never, csv(ET_COLUMNS, lines), { progress: silent, batchSize: 2 });
  const company = (siren: string) => db('companies').where({ siren }).first();
  const find = async (q: string) => (await searchKeys(db, COMPANIES_SEARCH, parseQuery(q), { limit: 10 })).map((h) => h.key);

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
    dir = mkdtempSync(join(tmpdir(), 'upsert-test-'));
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts each row once: inserted, updated (same or newer version) or kept (older version)', async () => {
    const first = await units([unit('732829320', 'Alpha', '2026-01-10T10:00:00'), unit('383474814', 'Beta', '2026-01-10T10:00:00'), unit('419223004', 'Gamma', '2026-01-10T10:00:00')]);
    expect(first).to.include({ read: 3, inserted: 3, updated: 0, kept: 0, skipped: 0 });
    const ingested = (await company('732829320')).ingested_at;

    const second = await units([
      unit('732829320', 'Alpha', '2026-01-10T10:00:00'), // the same version: written again
      unit('383474814', 'Beta nouveau', '2026-06-01T08:00:00'), // newer: replaces
      unit('419223004', 'Gamma ancien', '2025-01-01T08:00:00'), // older: kept out
      unit('552100554', 'Delta', '2026-01-10T10:00:00'), // new
    ]);
    expect(second).to.include({ read: 4, inserted: 1, updated: 2, kept: 1, skipped: 0 });
    expect((await company('383474814')).denomination).to.equal('Beta nouveau');
    expect((await company('419223004')).denomination).to.equal('Gamma');
    expect((await company('732829320')).ingested_at).to.equal(ingested);
    // The documents follow what is stored: the newer name, not the older one kept out.
    expect(await find('beta nouveau')).to.deep.equal(['383474814']);
    expect(await find('gamma ancien')).to.deep.equal([]);
    expect(await find('gamma')).to.deep.equal(['419223004']);
  });

  it('keeps the newest version of a key given twice, whatever their order and batches', async () => {
    for (const batchSize of [1, 2, 10]) {
      const siren = batchSize === 1 ? '130025265' : batchSize === 2 ? '130005481' : '180020026';
      const report = await units(
        [unit(siren, 'Récent', '2026-09-01T00:00:00'), unit('732829320', 'Alpha', '2026-01-10T10:00:00'), unit(siren, 'Ancien', '2026-02-01T00:00:00')],
        { batchSize },
      );
      // The key is new: inserted once, then its older version kept out.
      expect(report, `lots de ${batchSize}`).to.include({ read: 3, inserted: 1, updated: 1, kept: 1 });
      expect((await company(siren)).denomination, `lots de ${batchSize}`).to.equal('Récent');
      expect(await find('recent'), `lots de ${batchSize}`).to.include(siren);
      expect(await find('ancien'), `lots de ${batchSize}`).to.not.include(siren);
    }
  });

  it('indexes a company with its establishments, whichever file comes first', async () => {
    // Establishments first: a provisional document from the establishments, completed by the unit.
    const et = await establishments([establishment('35600000000048', 'LANDERNEAU', '29800', '2026-01-10T10:00:00'), establishment('35600000000055', 'BREST', '29200', '2026-01-10T10:00:00')]);
    expect(et).to.include({ inserted: 2, kept: 0 });
    expect(await find('landerneau')).to.deep.equal(['356000000']);
    expect(await find('epsilon')).to.deep.equal([]);
    await units([unit('356000000', 'Epsilon', '2026-01-10T10:00:00')]);
    expect(await find('epsilon landerneau')).to.deep.equal(['356000000']);
    expect(await find('brest')).to.deep.equal(['356000000']);
    // An older establishment changes nothing; a newer one moves the company.
    const older = await establishments([establishment('35600000000048', 'QUIMPER', '29000', '2025-01-01T00:00:00')]);
    expect(older).to.include({ read: 1, kept: 1, updated: 0 });
    expect(await find('quimper')).to.deep.equal([]);
    const newer = await establishments([establishment('35600000000048', 'MORLAIX', '29600', '2026-03-01T00:00:00')]);
    expect(newer).to.include({ read: 1, updated: 1 });
    expect(await find('morlaix')).to.deep.equal(['356000000']);
    expect(await find('landerneau')).to.deep.equal([]);
  });

  it('upserts in order and tells which rows were written (upsertRows)', async () => {
    const now = '2026-11-21T00:00:00.000Z';
    const row = (siren: string, denomination: string, version: string | null) => ({
      siren,
      denomination,
      sigle: null,
      nom_personne: null,
      denomination_usuelle: null,
      categorie_juridique: null,
      activite_principale: null,
      tranche_effectifs: null,
      categorie_entreprise: null,
      date_creation: null,
      etat: 'A',
      nic_siege: null,
      source_updated: version,
      ingested_at: now,
      updated_at: now,
    });
    const rows = [row('900000001', 'Un', '2026-01-01'), row('900000002', 'Deux', null), row('900000001', 'Un ancien', '2025-01-01'), row('900000002', 'Deux daté', '2026-01-01')];
    const outcome = await db.transaction((trx) => upsertRows(trx, 'companies', 'siren', rows, { keepOnUpdate: ['ingested_at'], versionColumn: 'source_updated' }));
    expect(outcome).to.include({ inserted: 2, updated: 1, kept: 1 });
    // A version given beats none; for each key, the last row written is what is stored.
    expect(outcome.applied.map((r) => r.denomination)).to.have.members(['Un', 'Deux', 'Deux daté']);
    expect((await company('900000002')).denomination).to.equal('Deux daté');
    expect((await company('900000001')).denomination).to.equal('Un');
  });

  it('writes a batch of several statements whole, texts with quotes, backslashes, braces and commas as given', async () => {
    // 6,001 links: several statements on PostgreSQL (their arrays built while the one before runs).
    const odd = ['a"b', 'c\\d', '{e,f}', 'NULL', '', ' g ', 'h\'i', 'é, ü', '\\"'];
    const links = Array.from({ length: 6001 }, (_, i) => ({
      announcement_id: `A${String(i).padStart(6, '0')}`,
      siren: String(100000000 + (i % 7)),
      date_parution: '2026-01-02',
      famille: i % 10 === 9 ? null : (odd[i % 10] as string),
    }));
    const first = await db.transaction((trx) => upsertRows(trx, 'announcement_sirens', ['announcement_id', 'siren'], links));
    expect(first).to.include({ inserted: 6001, updated: 0, kept: 0 });
    expect(first.applied).to.have.length(6001);
    const changed = links.map((l, i) => ({ ...l, famille: i % 2 ? 'modifiée' : l.famille }));
    const second = await db.transaction((trx) => upsertRows(trx, 'announcement_sirens', ['announcement_id', 'siren'], changed));
    expect(second).to.include({ inserted: 0, updated: 6001, kept: 0 });
    const stored = (await db('announcement_sirens').orderBy('announcement_id').select('announcement_id', 'famille')) as { announcement_id: string; famille: string | null }[];
    expect(stored.map((r) => r.famille)).to.deep.equal(changed.map((l) => l.famille));
  });

  it('writes in key order within each window of batches, a key given twice in the order read', async () => {
    const batches: string[][] = [];
    const recording: Importer<Record<string, string>, { siren: string; nom: string }> = {
      name: 'essai-ordre',
      input: { unit: 'ligne', layouts: null },
      read: IMPORTERS['sirene-unites']!.read as never,
      map: (r) => ({ row: { siren: r.siren as string, nom: r.denominationUniteLegale as string } }),
      sortKey: (row) => row.siren,
      async write(_trx, rows) {
        batches.push(rows.map((r) => `${r.siren.slice(-1)}${r.nom}`));
        return { inserted: rows.length, updated: 0, kept: 0 };
      },
    };
    const read = [['100000009', 'a'], ['100000003', 'b'], ['100000007', 'c'], ['100000003', 'd'], ['100000001', 'e'], ['100000005', 'f'], ['100000002', 'g'], ['100000001', 'h']];
    const path = csv(UL_COLUMNS, read.map(([siren, nom]) => unit(siren as string, nom as string, '2026-01-01')));
    const report = await importFile(db, recording, path, { progress: silent, batchSize: 2, sortWindowBatches: 3 });
    // The first batch alone (the writes start at once), then windows growing to 3 batches of 2 rows: the next four rows sorted together, then the rest.
    expect(batches).to.deep.equal([['3b', '9a'], ['1e', '3d'], ['5f', '7c'], ['1h', '2g']]);
    expect(report).to.include({ read: 8, inserted: 8 });
  });

  it('writes each batch in a transaction of its own: a failure rolls back its batch only', async () => {
    const failing: Importer<Record<string, string>, { siren: string }> = {
      name: 'essai',
      input: { unit: 'ligne', layouts: null },
      read: IMPORTERS['sirene-unites']!.read as never,
      map: (r) => ({ row: { siren: r.siren as string } }),
      async write(trx: Knex.Transaction, rows) {
        if (rows.some((r) => r.siren === '999999999')) throw new Error('échec voulu');
        await trx('buyers').insert(rows.map((r) => ({ id: `essai:${r.siren}`, nom: r.siren, siret: null, ingested_at: 'x' })));
        return { inserted: rows.length, updated: 0, kept: 0 };
      },
    };
    const lines = ['100000001', '100000002', '100000003', '100000004', '100000005', '999999999'].map((s) => unit(s, 'X', '2026-01-01'));
    const path = csv(UL_COLUMNS, lines);
    const err = await importFile(db, failing, path, { progress: silent, batchSize: 2 }).catch((e: unknown) => e);
    expect((err as Error).message).to.equal('échec voulu');
    // The first two batches were committed; row 5, in the batch that failed, was not.
    const ids = (await db('buyers').where('id', 'like', 'essai:%').orderBy('id').select('id')).map((r: { id: string }) => r.id);
    expect(ids).to.deep.equal(['essai:100000001', 'essai:100000002', 'essai:100000003', 'essai:100000004']);
    // The connection is usable afterwards.
    expect(await units([unit('100000009', 'Après', '2026-01-01')])).to.include({ inserted: 1 });
  });
});
