// Real DECP files (2019 and 2024 shapes) import as awards with their buyer, amount, date and winners, and a concession contract is never an empty award: it is skipped with its reason, counted in the summary.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { CONCESSION_SKIPPED, decp } from '../../../src/domains/awards/import-decp.js';
import type { Database } from '../../../src/platform/db/database.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

// Published files, read where they are (never copied into the project).
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/decp/', import.meta.url));
const sample = (name: string) => join(SAMPLES, name);
const silent = () => ({ update: () => undefined, stop: () => undefined });
const NOW = '2026-11-24T00:00:00.000Z';

describe('DECP real samples', function () {
  this.timeout(30000);
  let database: MigratedDatabase;
  let db: Database;
  const run = (name: string) => importFile(db, IMPORTERS.decp as never, sample(name), { progress: silent });
  const award = (key: string) => db('awards').where({ award_key: key }).first();
  const winners = (key: string) => db('award_winners').where({ award_key: key }).orderBy('siret').select('siret', 'siren', 'denomination');

  before(async () => {
    database = await openMigratedDatabase();
    db = database.db;
  });
  after(async () => {
    await database.close();
  });

  it('2019 official example: imports the contract, skips the concession with its reason', async () => {
    const report = await run('decp-2019-official-example-paquet.json');
    expect(report).to.include({ read: 2, inserted: 1, skipped: 1 });
    expect(report.problems).to.deep.equal([{ position: 2, reason: CONCESSION_SKIPPED }]);
    expect(await award('21350238800019:2010345211200')).to.include({
      acheteur_siret: '21350238800019',
      acheteur_nom: 'Ville de Rennes',
      objet: 'Entretien des jardins municipaux',
      nature: 'Accord-cadre',
      cpv: '77313000-7',
      departement: '35',
      montant: 127000,
      date_notification: '2007-08-13',
      duree_mois: 24,
      forme_prix: 'Ferme et actualisable',
    });
    // The winner identified by a VAT number has no SIRET: only the SIRET one is a winner.
    expect(await winners('21350238800019:2010345211200')).to.deep.equal([{ siret: '81223113200026', siren: '812231132', denomination: 'Garami SARL' }]);
    // Nothing of the concession (« Construction et exploitation d'un viaduc ») was written.
    expect(await db('awards').where({ id: '200103452112' }).first()).to.equal(undefined);
  });

  it('2019 fixture: imports both contracts, one of them with its buyer under a flattened « acheteur.id » key', async () => {
    const report = await run('decp-2019-shape-decp-processing-fixture.json');
    expect(report).to.include({ read: 2, inserted: 2, skipped: 0 });
    expect(await award('21974022200019:2019-VI2022.242')).to.include({ montant: 137614, date_notification: '2022-11-23', cpv: '45316110-9', departement: '974', duree_mois: null });
    // Its amendment names new holders: they are the ones in force; the one with a VAT number is kept as published.
    expect(await winners('21974022200019:2019-VI2022.242')).to.deep.equal([{ siret: '34027049500021', siren: '340270495', denomination: 'FFF' }]);
    expect(JSON.parse((await award('21974022200019:2019-VI2022.242')).titulaires_autres as string)).to.deep.equal([{ identifiant: '1111111111', type_identifiant: 'TVA', denomination: 'ABC' }]);
    // « Avenant 1 » sets a new amount and duration: in force, the first ones kept.
    expect(await award('21500222100012:2019_83935401')).to.include({ acheteur_siret: '21500222100012', montant: 79237, montant_initial: 77899, date_notification: '2021-12-01', departement: '50', duree_mois: 1, duree_mois_initiale: 11 });
    expect(JSON.parse((await award('21500222100012:2019_83935401')).modifications as string)).to.deep.equal([
      { id: null, date: '2022-11-23', objet: 'Avenant 1', montant: 79237, duree_mois: 1, titulaires: [{ identifiant: '12345678900022', denomination: 'AMC FOLLIOT' }] },
    ]);
    expect(report.notes).to.deep.include({ 'titulaire sans SIRET valide gardé tel que publié (identifiant et type)': 1 });
  });

  it('2024 Mégalis file: imports its five contracts (and its empty list of concessions)', async () => {
    const report = await run('decp-2024-megalis-59920013600241-2024-07-09-01.json');
    expect(report).to.include({ read: 5, inserted: 5, skipped: 0 });
    expect(await award('59920013600241:H9O2024T0000256')).to.include({ acheteur_siret: '59920013600241', montant: 32122, date_notification: '2024-05-30', cpv: '45111100-9', departement: '22', duree_mois: 4 });
    expect(await award('59920013600241:H9O2024T0000456')).to.include({ montant: 33136.63 });
    expect(await winners('59920013600241:H9O2024T0000656')).to.deep.equal([{ siret: '53516335600020', siren: '535163356', denomination: null }]);
  });

  it('2024 fixture: imports its five contracts, its bare NaN read as null', async () => {
    const report = await run('decp-2024-shape-decp-processing-fixture.json');
    expect(report).to.include({ read: 5, inserted: 5, skipped: 0 });
    // Its first amendment sets 124 557,46 € and two new holders; the second one changes nothing more.
    expect(await award('21030042200016:202401L04')).to.include({ objet: 'Facades', montant: 124557.46, montant_initial: 127835.12, date_notification: '2024-02-08', duree_mois: 17 });
    expect((await winners('21030042200016:202401L04')).map((w) => w.siret)).to.deep.equal(['81223513300026', '98756638100011']);
    // `dureeMois: "NC"` is no duration.
    expect(await award('21974022200019:2022VI2022.242')).to.include({ montant: 137614, date_notification: '2022-11-23', duree_mois: null });
  });

  it('2024 fixture: a contract carrying empty concession keys is still a contract, not a concession', () => {
    // Mapped record by record (the bare NaN read as null, as the decp reader does).
    const text = readFileSync(sample('decp-2024-shape-decp-processing-fixture.json'), 'utf8').replace(/:\s*NaN\b/g, ': null');
    const records = (JSON.parse(text) as { marches: { marche: Record<string, unknown>[] } }).marches.marche;
    expect(records).to.have.length(5);
    const mapped = records.map((r) => decp.map(r, NOW));
    for (const m of mapped) expect(m).to.not.have.property('skip');
    const rows = mapped.map((m) => ('row' in m ? m.row : null));
    expect(rows.map((r) => r?.id)).to.deep.equal(['2022VI2022.242', '2020F00075', '202401L04', '2019K1209', '202207LOT03']);
    expect(rows[2]).to.include({ objet: 'Facades', montant: 124557.46, montant_initial: 127835.12, date_notification: '2024-02-08', duree_mois: 17 });
    // 2019K1209: amendment 6 sets 1 214 900 € over 49 months; its holders stay (the amendments naming none, or unreadable ones).
    expect(rows[3]).to.include({ montant: 1214900, montant_initial: 1105000, duree_mois: 49 });
    expect(rows[3]?.winners.map((w) => w.siret)).to.deep.equal(['39210031900038', '39210873400063', '39830819700035']);
    expect(rows[3]?.modifications.map((m) => m.id)).to.deep.equal(['1', '2', '6', '7']);
    for (const r of rows) expect(r?.date_notification).to.match(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('2024 shape: an item of « contrat-concession » is skipped with its reason, never an empty award', () => {
    // The 2024 schema's concession (no real file with one was found: the Mégalis list is empty).
    const concession = {
      id: '2024-DSP-01',
      autoriteConcedante: { id: '59920013600241' },
      nature: 'Concession de service',
      objet: 'Exploitation du port de plaisance',
      dateSignature: '2024-05-30',
      valeurGlobale: 1200000,
      concessionnaires: [{ concessionnaire: { typeIdentifiant: 'SIRET', id: '53516335600020' } }],
    };
    expect(decp.map(concession, NOW)).to.deep.equal({ skip: CONCESSION_SKIPPED });
  });
});
