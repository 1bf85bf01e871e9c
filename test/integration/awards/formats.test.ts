// DECP awards as published: amendments give the amount in force with the original and their history, a holder without a valid SIRET is kept as published and counted, an amount of 0 reads « montant non publié », and the buyer's and winners' names come from the directory (SIRENE) on the record, in searches and in the analyses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile, type ImportReport } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SIRENE = fileURLToPath(new URL('../../../../shared/real-samples/sirene/joao-sdx-mailing-insee-echantillon-StockUniteLegale.csv', import.meta.url));
const silent = () => ({ update: () => undefined, stop: () => undefined });
// Buyer and winner of the SIRENE sample, published by their SIRET alone (as DECP 2024 files do).
const BUYER = '05450175400012';
const WINNER = '01675069700010';
const DECP = {
  marches: {
    marche: [
      {
        id: 'AC-2026-01',
        acheteur: { id: BUYER },
        nature: 'Accord-cadre',
        objet: 'Accord-cadre de travaux d’entretien des bâtiments',
        codeCPV: '45453000',
        procedure: 'Appel d’offres ouvert',
        lieuExecution: { code: '29', typeCode: 'Code département' },
        dureeMois: 48,
        dateNotification: '2026-03-02',
        montant: 0,
        titulaires: [{ titulaire: { typeIdentifiant: 'SIRET', id: WINNER } }, { titulaire: { typeIdentifiant: 'TVA', id: 'BE0123456789', denominationSociale: 'BOUW NV' } }],
        modifications: [],
      },
      {
        id: 'M-2026-07',
        acheteur: { id: BUYER },
        nature: 'Marché',
        objet: 'Réfection de la toiture du gymnase',
        codeCPV: '45261000',
        procedure: 'Procédure adaptée',
        lieuExecution: { code: '29', typeCode: 'Code département' },
        dureeMois: 6,
        dateNotification: '2026-04-10',
        montant: 100000,
        titulaires: [{ titulaire: { typeIdentifiant: 'SIRET', id: WINNER } }],
        modifications: [
          { modification: { id: 2, dateNotificationModification: '2026-09-01', montant: 118000, dureeMois: 9 } },
          { modification: { id: 1, dateNotificationModification: '2026-06-01', montant: 108000 } },
        ],
      },
    ],
    'contrat-concession': [],
  },
};

describe('DECP awards as published: amendments, holders, unpublished amounts, names from the directory', function () {
  this.timeout(60000);
  let svc: TestService;
  let dir: string;
  let report: ImportReport;

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'decp-formats-'));
    writeFileSync(join(dir, 'decp.json'), JSON.stringify(DECP));
    await importFile(svc.db, IMPORTERS['sirene-unites'] as never, SIRENE, { progress: silent });
    report = await importFile(svc.db, IMPORTERS.decp as never, join(dir, 'decp.json'), { progress: silent });
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the holder kept without a SIRET and the amendments applied', () => {
    expect(report).to.include({ read: 2, inserted: 2, skipped: 0 });
    expect(report.notes).to.deep.equal({ 'titulaire sans SIRET valide gardé tel que publié (identifiant et type)': 1, 'modifications (avenants) appliquées, historique gardé': 1 });
  });

  it('shows the amount in force with the original one and the amendments in date order', async () => {
    const { json } = await svc.rest('attributions.get', { id: `${BUYER}:M-2026-07` });
    const f = json.results[0].fields;
    expect(f).to.include({ montant: 118000, montant_initial: 100000, duree_mois: 9, duree_mois_initiale: 6, montant_publie: true, source: 'decp' });
    expect(f.modifications.map((m: { id: string; montant: number }) => [m.id, m.montant])).to.deep.equal([
      ['1', 108000],
      ['2', 118000],
    ]);
    expect(json.results[0].resume).to.match(/118\s000 € après 2 modifications \(montant initial 100\s000 €\)/u);
  });

  it('says « montant non publié » for an amount of 0 and keeps the holder published with a VAT number', async () => {
    const { json } = await svc.rest('attributions.get', { id: `${BUYER}:AC-2026-01` });
    const r = json.results[0];
    expect(r.fields).to.include({ montant: 0, montant_publie: false, montant_libelle: 'montant non publié' });
    expect(r.resume).to.include('montant non publié').and.not.match(/\b0 €/);
    expect(r.fields.titulaires).to.deep.equal([
      { siret: WINNER, siren: '016750697', denomination: 'ETS J VIRLY S A', identifiant: WINNER, type_identifiant: 'SIRET' },
      { siret: null, siren: null, denomination: 'BOUW NV', identifiant: 'BE0123456789', type_identifiant: 'TVA' },
    ]);
  });

  it('names the buyer and the winner from the directory, in the record and the searches', async () => {
    const { json } = await svc.rest('attributions.get', { id: `${BUYER}:AC-2026-01` });
    expect(json.results[0].fields.acheteur).to.equal("SET - HUILLIER - SOCIETE D'ENTREPOSAGE ET DE TRANSPORTS");
    const byWinner = await svc.rest('attributions.search', { query: 'VIRLY' });
    expect(byWinner.json.results.map((r: { fields: { id_decp: string } }) => r.fields.id_decp).sort()).to.deep.equal(['AC-2026-01', 'M-2026-07']);
    const byBuyer = await svc.rest('acheteurs.search', { query: 'HUILLIER' });
    expect(byBuyer.json.results.map((r: { id: string }) => r.id)).to.deep.equal([BUYER]);
  });

  it('names them in the analyses, and leaves the unpublished amount out of the sums', async () => {
    const competitors = (await svc.rest('concurrents.search', { cpv: ['45'] })).json;
    expect(competitors.concurrents[0]).to.include({ siren: '016750697', denomination: 'ETS J VIRLY S A', marches_gagnes: 2, montant_total: 118000 });
    const brand = (await svc.rest('marque.rapport', { siren: '016750697' })).json.results[0].fields;
    expect(brand.acheteurs[0]).to.include({ acheteur_id: BUYER, nom: "SET - HUILLIER - SOCIETE D'ENTREPOSAGE ET DE TRANSPORTS", nombre: 2, montant_total: 118000 });
  });
});
