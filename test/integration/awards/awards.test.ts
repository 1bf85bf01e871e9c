// Awarded contracts and buyers over HTTP: searches by words and filters (place, amount, winner, buyer, CPV, dates), the contracts a company won, one award by id, a buyer's profile by year.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const QUIMPER = '21290232000014';
const award = (id: string, o: { objet: string; montant: number; date: string; cpv: string; lieu: [string, string]; winners: [string, string][]; buyer?: string }) => ({
  id,
  acheteur: { id: o.buyer ?? QUIMPER, nom: o.buyer ? 'Département du Finistère' : 'Commune de Quimper' },
  nature: 'Marché',
  objet: o.objet,
  codeCPV: o.cpv,
  procedure: 'Procédure adaptée',
  lieuExecution: { code: o.lieu[0], typeCode: o.lieu[1] },
  dureeMois: 6,
  dateNotification: o.date,
  montant: o.montant,
  formePrix: 'Forfaitaire',
  titulaires: o.winners.map(([siret, denominationSociale]) => ({ typeIdentifiant: 'SIRET', id: siret, denominationSociale })),
});

const DECP = {
  marches: [
    award('A1', { objet: 'Couverture du gymnase', montant: 184500, date: '2026-09-14', cpv: '45261000', lieu: ['29000', 'Code postal'], winners: [['73282932000018', 'CHARPENTES DU LEON']] }),
    award('A2', { objet: 'Isolation de l’école maternelle', montant: 42000, date: '2025-03-02', cpv: '45321000', lieu: ['29', 'Code département'], winners: [['38347481400021', 'ELECTRICITE ARMORICAINE']] }),
    award('A3', { objet: 'Réfection de toiture du collège', montant: 310000, date: '2026-05-20', cpv: '45261000', lieu: ['35238', 'Code commune'], winners: [['73282932000026', 'CHARPENTES DU LEON'], ['38347481400021', 'ELECTRICITE ARMORICAINE']], buyer: '22290001700012' }),
  ],
};

describe('awards and buyers', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  const ids = (json: { results: { fields: { id_decp: string } }[] }) => json.results.map((r) => r.fields.id_decp).sort();

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'awards-'));
    writeFileSync(join(dir, 'decp.json'), JSON.stringify(DECP));
    await importFile(svc.db, IMPORTERS.decp as never, join(dir, 'decp.json'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('searches awards by words, place, amount, CPV and notification window', async () => {
    expect(ids((await svc.rest('attributions.search', { query: 'toiture, couverture' })).json)).to.deep.equal(['A1', 'A3']);
    expect(ids((await svc.rest('attributions.search', { query: 'ecole' })).json)).to.deep.equal(['A2']);
    expect(ids((await svc.rest('attributions.search', { departements: ['29'] })).json)).to.deep.equal(['A1', 'A2']);
    expect(ids((await svc.rest('attributions.search', { region: '53', montant_min: 100000 })).json)).to.deep.equal(['A1', 'A3']);
    expect(ids((await svc.rest('attributions.search', { cpv: '4532' })).json)).to.deep.equal(['A2']);
    expect(ids((await svc.rest('attributions.search', { notifie_depuis: '2026-01-01', notifie_avant: '2026-06-30' })).json)).to.deep.equal(['A3']);
    expect(ids((await svc.rest('attributions.search', { acheteur_siret: QUIMPER })).json)).to.deep.equal(['A1', 'A2']);
  });

  it('finds the contracts a company won, by SIREN or SIRET', async () => {
    expect(ids((await svc.rest('attributions.search', { titulaire: '732829320' })).json)).to.deep.equal(['A1', 'A3']);
    expect(ids((await svc.rest('attributions.search', { titulaire: '73282932000026' })).json)).to.deep.equal(['A3']);
    expect(ids((await svc.rest('attributions.search', { titulaire: '383474814' })).json)).to.deep.equal(['A2', 'A3']);
  });

  it('gives one award by id, with its winners and the service’s permalink', async () => {
    const { json } = await svc.rest('attributions.get', { id: `${QUIMPER}:A1` });
    expect(json.results).to.have.length(1);
    expect(json.results[0].fields).to.include({ id_decp: 'A1', acheteur: 'Commune de Quimper', montant: 184500, departement: '29', cpv: '45261000-4' });
    expect(json.results[0].fields.titulaires).to.deep.equal([{ siret: '73282932000018', siren: '732829320', denomination: 'CHARPENTES DU LEON', identifiant: '73282932000018', type_identifiant: 'SIRET' }]);
    expect(json.results[0].fields.url).to.equal(`${svc.url}/attributions/${encodeURIComponent(`${QUIMPER}:A1`)}`);
    expect(json.results[0].resume).to.match(/184\s500 €/u);
    expect((await svc.rest('attributions.get', { id: 'inconnu:0' })).json.results).to.deep.equal([]);
  });

  it('finds buyers by name or SIRET and gives their profile by year', async () => {
    const byName = await svc.rest('acheteurs.search', { query: 'QUIMPER' });
    expect(byName.json.results.map((r: { id: string }) => r.id)).to.deep.equal([QUIMPER]);
    expect((await svc.rest('acheteurs.search', { siret: '22290001700012' })).json.results[0].titre).to.equal('Département du Finistère');
    const profile = await svc.rest('acheteurs.get', { id: QUIMPER });
    expect(profile.json.results[0].fields.attributions_par_annee).to.deep.equal([
      { annee: 2025, nombre: 1, montant_total: 42000 },
      { annee: 2026, nombre: 1, montant_total: 184500 },
    ]);
    expect(profile.json.results[0].resume).to.match(/2 marchés attribués/);
  });

  it('refuses a malformed winner identifier naming it', async () => {
    const { status, json } = await svc.rest('attributions.search', { titulaire: '1234' });
    expect(status).to.equal(400);
    expect(json.error.message).to.include('« titulaire »');
  });
});
