// Real SIRENE stock files (older and current layouts) import whole by header name, a legacy activity code (NAP) is never shown as NAF, the NAF 2025 code is kept, and an establishment without its unit is answered and completed when the unit arrives.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { COMPANIES_SEARCH } from '../../../src/domains/companies/search-index.js';
import { searchKeys } from '../../../src/platform/search/full-text.js';
import { parseQuery } from '../../../src/platform/search/query-syntax.js';
import { startTestService, type TestService } from '../../helpers/service.js';

// Published files, read where they are (never copied into the project).
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/sirene/', import.meta.url));
const CURRENT_UNITS = join(SAMPLES, 'joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv');
const OLDER_UNITS = join(SAMPLES, 'sirene_as_api-sample_unites_legales_OK.csv');
const ESTABLISHMENTS = join(SAMPLES, 'sirene_as_api-sample_etablissements_OK.csv');

const silent = () => ({ update: () => undefined, stop: () => undefined });

describe('SIRENE real samples', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  const run = (source: string, path: string) => importFile(svc.db, IMPORTERS[source] as never, path, { progress: silent });
  const get = async (args: Record<string, string>) => {
    const { status, json } = await svc.rest('entreprises.get', args);
    expect(status).to.equal(200);
    return json.results as { id: string; titre: string; resume: string; fields: Record<string, unknown> }[];
  };
  const find = async (q: string) => (await searchKeys(svc.db, COMPANIES_SEARCH, parseQuery(q), { limit: 10 })).map((h) => h.key);

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'sirene-real-'));
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the current units layout (35 columns) and keeps the NAF 2025 code next to the NAF rév. 2 one', async () => {
    const report = await run('sirene-unites', CURRENT_UNITS);
    expect(report).to.include({ read: 9, inserted: 9, updated: 0, skipped: 0 });
    expect(await svc.db('companies').where({ siren: '016750697' }).first()).to.include({
      denomination: 'ETS J VIRLY S A',
      activite_principale: '77.39Z',
      nomenclature_activite: 'NAFRev2',
      activite_principale_naf25: '77.39Y',
      categorie_juridique: '5710',
      tranche_effectifs: '31',
      categorie_entreprise: 'ETI',
      date_creation: '1967-01-01',
      etat: 'A',
      nic_siege: '00050',
    });
    expect(await svc.db('companies').where({ siren: '057808172' }).first()).to.include({ denomination: 'DELTA ASSURANCES', denomination_usuelle: 'COMEGA', etat: 'C' });
    expect(await svc.db('companies').where({ siren: '057502510' }).first()).to.include({ sigle: 'SACDROP ASSURANCES', activite_principale_naf25: '66.22Y' });
    const [record] = await get({ siren: '017051186' });
    expect(record?.fields).to.include({ raison_sociale: 'PENNEQUIN INVEST', code_naf: '43.12B', nomenclature_naf: 'NAFRev2', code_naf_2025: '66.30Y', libelle_naf: 'Travaux de terrassement spécialisés ou de grande masse', etat: 'active' });
    expect(await find('virly')).to.deep.equal(['016750697']);
    // The NAF 2025 code is searchable too (only 017051186 has 66.30Y).
    expect(await find('66.30Y')).to.deep.equal(['017051186']);
  });

  it('reads the older units layout (33 columns, no NAF 2025) and shows a NAP code as NAP, never as NAF', async () => {
    const report = await run('sirene-unites', OLDER_UNITS);
    expect(report).to.include({ read: 3, inserted: 3, skipped: 0 });
    expect(await svc.db('companies').where({ siren: '005410220' }).first()).to.include({
      nom_personne: 'GEORGES WATTEBLED',
      activite_principale: '22.02',
      nomenclature_activite: 'NAP',
      activite_principale_naf25: null,
      date_creation: '1954-12-25',
      etat: 'C',
    });
    const [legacy] = await get({ siren: '005410220' });
    expect(legacy?.fields).to.include({ code_naf: '22.02', nomenclature_naf: 'NAP', code_naf_2025: null, raison_sociale: 'GEORGES WATTEBLED', etat: 'cessee' });
    expect(legacy?.fields.libelle_naf).to.match(/^Code 22\.02 de l’ancienne nomenclature NAP .*pas un code NAF rév\. 2$/);
    expect(legacy?.resume).to.match(/^Code 22\.02 de l’ancienne nomenclature NAP/);
    const [modern] = await get({ siren: '000325175' });
    expect(modern?.fields).to.include({ raison_sociale: 'THIERRY JANOYER', code_naf: '32.12Z', nomenclature_naf: 'NAFRev2', code_naf_2025: null, date_creation: '2000-09-26' });
    // A NAF filter never matches the NAP code 22.02.
    const naf22 = await svc.rest('entreprises.search', { naf: ['22'], actives: false });
    expect(naf22.status).to.equal(200);
    expect(naf22.json.results.map((r: { id: string }) => r.id)).to.not.include('005410220');
  });

  it('answers establishments imported without their unit, by SIRET and by SIREN, and completes them when the unit arrives', async () => {
    const report = await run('sirene-etablissements', ESTABLISHMENTS);
    expect(report).to.include({ read: 3, inserted: 3, skipped: 0 });
    expect(await svc.db('establishments').where({ siret: '00588003400011' }).first()).to.include({
      siren: '005880034',
      nic: '00011',
      etat: 'F',
      date_creation: null,
      activite_principale: '57.10',
      nomenclature_activite: 'NAP',
    });

    const [bySiret] = await get({ siret: '00588003400011' });
    expect(bySiret?.id).to.equal('00588003400011');
    expect(bySiret?.fields).to.include({
      siren: '005880034',
      siret: '00588003400011',
      code_naf: '57.10',
      nomenclature_naf: 'NAP',
      etat: 'cessee',
      raison_sociale: null,
      raison_sociale_connue: false,
      forme_juridique: null,
      categorie: null,
      date_creation: null,
    });
    expect(bySiret?.titre).to.equal('Entreprise 005880034');
    expect(bySiret?.resume).to.match(/unité légale pas encore importée\.$/);
    const [bySiren] = await get({ siren: '005880034' });
    expect(bySiren?.fields).to.include({ siren: '005880034', siret: '00588003400011', code_naf: '57.10', raison_sociale: null });
    expect((await get({ siren: '999999999' })).length).to.equal(0);

    // The unit arrives later, in the older layout (the sample's own header).
    const header = readFileSync(OLDER_UNITS, 'utf8').split('\n')[0] as string;
    const names = header.split(',');
    const cols = names.map(() => '');
    const set = (name: string, value: string) => (cols[names.indexOf(name)] = value);
    set('siren', '005880034');
    set('dateCreationUniteLegale', '1950-01-01');
    set('etatAdministratifUniteLegale', 'C');
    set('denominationUniteLegale', 'ATELIERS DU PORT');
    set('activitePrincipaleUniteLegale', '57.10');
    set('nomenclatureActivitePrincipaleUniteLegale', 'NAP');
    set('nicSiegeUniteLegale', '00011');
    const unitFile = join(dir, 'unite.csv');
    writeFileSync(unitFile, `${header}\n${cols.join(',')}\n`);
    expect(await find('ateliers port')).to.deep.equal([]);
    expect(await run('sirene-unites', unitFile)).to.include({ read: 1, inserted: 1 });
    const [complete] = await get({ siren: '005880034' });
    expect(complete?.fields).to.include({ raison_sociale: 'ATELIERS DU PORT', raison_sociale_connue: true, siret: '00588003400011', date_creation: '1950-01-01' });
    expect(complete?.resume).to.not.match(/pas encore importée/);
    expect(await find('ateliers port')).to.deep.equal(['005880034']);
  });
});
