// A company known only by its establishments (StockEtablissement imported before, or without, StockUniteLegale) is found by entreprises.search and its filters, and its unit, when it arrives, replaces it as one new company (no duplicate, the name searchable).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { startTestService, type TestService } from '../../helpers/service.js';

// The published headers, read where they are (never copied into the project).
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/sirene/', import.meta.url));
const header = (file: string) => (readFileSync(join(SAMPLES, file), 'utf8').split('\n')[0] as string).trim().split(',');
const ESTABLISHMENT_COLUMNS = header('sirene_as_api-sample_etablissements_OK.csv');
const UNIT_COLUMNS = header('joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv');

function line(columns: string[], values: Record<string, string>): string {
  return columns.map((c) => values[c] ?? '').join(',');
}
const establishment = (siret: string, o: { siege: boolean; etat: 'A' | 'F'; commune: string; code: string; enseigne?: string; naf: string }) =>
  line(ESTABLISHMENT_COLUMNS, {
    siren: siret.slice(0, 9),
    nic: siret.slice(9),
    siret,
    etablissementSiege: String(o.siege),
    etatAdministratifEtablissement: o.etat,
    dateCreationEtablissement: '2019-03-01',
    activitePrincipaleEtablissement: o.naf,
    nomenclatureActivitePrincipaleEtablissement: 'NAFRev2',
    enseigne1Etablissement: o.enseigne ?? '',
    libelleCommuneEtablissement: o.commune,
    codeCommuneEtablissement: o.code,
    codePostalEtablissement: `${o.code.slice(0, 2)}000`,
  });

const silent = () => ({ update: () => undefined, stop: () => undefined });

describe('companies known only by their establishments', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  const run = (source: string, name: string, lines: string[], columns: string[], batchSize?: number) => {
    const path = join(dir, name);
    writeFileSync(path, `${columns.join(',')}\n${lines.join('\n')}\n`);
    return importFile(svc.db, IMPORTERS[source] as never, path, { progress: silent, ...(batchSize ? { batchSize } : {}) });
  };
  const search = async (args: Record<string, unknown>) => {
    const { status, json } = await svc.rest('entreprises.search', args);
    expect(status, JSON.stringify(json)).to.equal(200);
    return json as { results: { id: string; titre: string; fields: Record<string, unknown> }[]; total_estimated: number };
  };

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'establishments-first-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds them by sign, town and filters, and answers their record from the establishments', async () => {
    // 812345670: a closed secondary establishment first (another batch order), then its open head office.
    const report = await run(
      'sirene-etablissements',
      'etab.csv',
      [
        establishment('81234567000027', { siege: false, etat: 'F', commune: 'BREST', code: '29019', naf: '43.91A' }),
        establishment('81234567000019', { siege: true, etat: 'A', commune: 'MORLAIX', code: '29151', enseigne: 'COUVERTURES DU TREGOR', naf: '43.91B' }),
        establishment('79876543200011', { siege: true, etat: 'F', commune: 'RENNES', code: '35238', enseigne: 'PLATRERIE VILAINE', naf: '43.31Z' }),
      ],
      ESTABLISHMENT_COLUMNS,
    );
    expect(report).to.include({ read: 3, inserted: 3, skipped: 0 });

    const bySign = await search({ query: 'couvertures tregor' });
    expect(bySign.results.map((r) => r.id)).to.deep.equal(['812345670']);
    expect(bySign.results[0]?.fields).to.include({ siren: '812345670', siret: '81234567000019', raison_sociale: null, raison_sociale_connue: false, code_naf: '43.91B', etat: 'active' });
    expect((await search({ query: 'brest' })).results.map((r) => r.id)).to.deep.equal(['812345670']);
    // Filters read the head office's activity and the state of the open establishment.
    expect((await search({ naf: ['43.91B'], localisation: { dept: '29' } })).results.map((r) => r.id)).to.deep.equal(['812345670']);
    expect((await search({ naf: ['43.91A'] })).results.map((r) => r.id)).to.deep.equal([]);
    // A company whose only establishment is closed is ceased: out of the default (active) search, in with actives false.
    expect((await search({ query: 'platrerie vilaine' })).results.map((r) => r.id)).to.deep.equal([]);
    expect((await search({ query: 'platrerie vilaine', actives: false })).results.map((r) => r.id)).to.deep.equal(['798765432']);
  });

  it('indexes a provisional company with the activity of a head office that a later batch brings', async () => {
    // One establishment per batch: the closed secondary one makes the provisional row, the head office then gives its activity.
    await run(
      'sirene-etablissements',
      'etab-batches.csv',
      [
        establishment('82345678500024', { siege: false, etat: 'F', commune: 'QUIMPER', code: '29232', naf: '43.91A' }),
        establishment('82345678500016', { siege: true, etat: 'A', commune: 'QUIMPER', code: '29232', naf: '43.22A' }),
      ],
      ESTABLISHMENT_COLUMNS,
      1,
    );
    expect(await svc.db('companies').where({ siren: '823456785' }).first('activite_principale', 'etat')).to.deep.equal({ activite_principale: '43.22A', etat: 'A' });
    // The document carries the head office's activity, not the first batch's.
    expect((await search({ query: 'installation gaz quimper' })).results.map((r) => r.id)).to.deep.equal(['823456785']);
    expect((await search({ query: 'charpente quimper', actives: false })).results.map((r) => r.id)).to.deep.equal([]);
  });

  it('counts the unit that arrives later as a new company and replaces the provisional one', async () => {
    const unit = line(UNIT_COLUMNS, {
      siren: '812345670',
      dateCreationUniteLegale: '2019-03-01',
      etatAdministratifUniteLegale: 'A',
      denominationUniteLegale: 'SARL KERGUELEN TOITURES',
      activitePrincipaleUniteLegale: '43.91B',
      nomenclatureActivitePrincipaleUniteLegale: 'NAFRev2',
      nicSiegeUniteLegale: '00019',
      categorieJuridiqueUniteLegale: '5499',
      dateDernierTraitementUniteLegale: '2026-01-05T10:00:00',
    });
    const report = await run('sirene-unites', 'unites.csv', [unit], UNIT_COLUMNS);
    expect(report).to.include({ read: 1, inserted: 1, updated: 0, skipped: 0 });
    const byName = await search({ query: 'kerguelen toitures' });
    expect(byName.results.map((r) => r.id)).to.deep.equal(['812345670']);
    expect(byName.results[0]?.fields).to.include({ raison_sociale: 'SARL KERGUELEN TOITURES', raison_sociale_connue: true, siret: '81234567000019' });
    // Still one company, found by its establishments' words too.
    expect((await search({ query: 'couvertures tregor' })).results.map((r) => r.id)).to.deep.equal(['812345670']);
    const [{ n }] = (await svc.db('companies').where({ siren: '812345670' }).count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
    expect(Number(n)).to.equal(1);
  });
});
