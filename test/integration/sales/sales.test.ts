// Property sales over HTTP: searches by department, region, commune (INSEE or postal code), kind, nature, dates, price and surface, latest first with signed cursors; one sale by its id (the permalink's search, and its page); statistics per commune and kind with median prices, market sales by default, a territory required.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { DVF_COLUMNS } from '../../../scripts/demo/dvf.js';
import { startTestService, type TestService } from '../../helpers/service.js';

type Line = Partial<Record<(typeof DVF_COLUMNS)[number], string>>;
const QUIMPER = { code_commune: '29232', nom_commune: 'Quimper', code_postal: '29000', code_departement: '29' };
const RENNES = { code_commune: '35238', nom_commune: 'Rennes', code_postal: '35000', code_departement: '35' };
const PARIS_11 = { code_commune: '75111', nom_commune: 'Paris 11e Arrondissement', code_postal: '75011', code_departement: '75' };
const sale = (id: string, date: string, nature: string, valeur: number, place: Line, lines: Line[]): Line[] =>
  lines.map((l) => ({ id_mutation: id, date_mutation: date, numero_disposition: '000001', nature_mutation: nature, valeur_fonciere: String(valeur), adresse_nom_voie: 'RUE DE LA GARE', ...place, id_parcelle: `${place.code_commune}000AB0001`, ...l }));
const maison = (surface: number, pieces: number): Line => ({ code_type_local: '1', type_local: 'Maison', surface_reelle_bati: String(surface), nombre_pieces_principales: String(pieces), code_nature_culture: 'S', nature_culture: 'sols', surface_terrain: '500' });
const appartement = (surface: number): Line => ({ code_type_local: '2', type_local: 'Appartement', surface_reelle_bati: String(surface), nombre_pieces_principales: '2', lot1_numero: '12', nombre_lots: '1' });
const dependance: Line = { code_type_local: '3', type_local: 'Dépendance', nombre_pieces_principales: '0', lot1_numero: '40', nombre_lots: '1' };

const SALES = [
  ...sale('V1', '2026-09-14', 'Vente', 250000, QUIMPER, [maison(100, 5), { ...dependance, lot1_numero: '', nombre_lots: '0', code_nature_culture: 'S', nature_culture: 'sols', surface_terrain: '500' }]),
  ...sale('V2', '2026-05-20', 'Vente', 200000, RENNES, [appartement(50), dependance]),
  ...sale('V3', '2025-03-02', 'Vente', 120000, QUIMPER, [appartement(40)]),
  ...sale('V4', '2026-06-01', 'Vente terrain à bâtir', 60000, QUIMPER, [{ code_nature_culture: 'AB', nature_culture: 'terrains a bâtir', surface_terrain: '600' }]),
  ...sale('V5', '2026-07-01', 'Echange', 150000, QUIMPER, [maison(80, 4)]),
  ...sale('V6', '2026-08-01', 'Vente', 300000, PARIS_11, [appartement(30)]),
  ...sale('V7', '2026-02-01', 'Vente', 180000, QUIMPER, [appartement(60)]),
];

describe('property sales', function () {
  this.timeout(30000);
  let svc: TestService;
  let dir: string;
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id);
  const search = async (args: Record<string, unknown>) => ids((await svc.rest('ventes.search', args)).json);

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'sales-'));
    const csv = [DVF_COLUMNS.join(','), ...SALES.map((l) => DVF_COLUMNS.map((c) => l[c] ?? '').join(','))].join('\n');
    writeFileSync(join(dir, 'dvf.csv'), csv);
    const report = await importFile(svc.db, IMPORTERS.dvf as never, join(dir, 'dvf.csv'), { progress: () => ({ update: () => undefined, stop: () => undefined }) });
    expect(report).to.include({ read: 7, inserted: 7, skipped: 0 });
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('searches by department, region, commune (INSEE or postal code), latest first', async () => {
    expect(await search({ departements: ['29'] })).to.deep.equal(['V1', 'V5', 'V4', 'V7', 'V3']);
    expect(await search({ region: '53' })).to.deep.equal(['V1', 'V5', 'V4', 'V2', 'V7', 'V3']);
    expect(await search({ region: '53', departements: ['75'] })).to.deep.equal(['V1', 'V6', 'V5', 'V4', 'V2', 'V7', 'V3']);
    expect(await search({ commune: '29232' })).to.deep.equal(await search({ commune: '29000' }));
    expect(await search({ commune: '75011' })).to.deep.equal(['V6']);
    expect(await search({})).to.have.length(7);
  });

  it('filters by kind of sale, nature, dates, price and built surface', async () => {
    expect(await search({ type_local: 'Appartement' })).to.deep.equal(['V6', 'V2', 'V7', 'V3']);
    // A flat with its cellar is a flat; a sale of land has no kind.
    expect(await search({ type_local: 'Maison' })).to.deep.equal(['V1', 'V5']);
    expect(await search({ type_local: 'Dépendance' })).to.deep.equal([]);
    expect(await search({ nature_mutation: 'Echange' })).to.deep.equal(['V5']);
    expect(await search({ depuis: '2026-05-20', avant: '2026-08-01' })).to.deep.equal(['V6', 'V5', 'V4', 'V2']);
    expect(await search({ prix_min: 150000, prix_max: 250000 })).to.deep.equal(['V1', 'V5', 'V2', 'V7']);
    expect(await search({ surface_min: 50, surface_max: 80 })).to.deep.equal(['V5', 'V2', 'V7']);
  });

  it('gives one sale by its id, with its premises, price per m² and the service’s permalink', async () => {
    const { json } = await svc.rest('ventes.search', { id_mutation: 'V1' });
    expect(json.total_estimated).to.equal(1);
    const record = json.results[0];
    expect(record.id).to.equal('V1');
    expect(record.titre).to.equal('Maison 5 pièces de 100 m² — Quimper');
    expect(record.resume).to.match(/^Vente du 14\/09\/2026 — 250\s000 € \(2\s500 € le m²\) — 1 maison, 1 dépendance, 1 parcelle — RUE DE LA GARE, 29000 Quimper\.$/u);
    expect(record.fields).to.include({ id_mutation: 'V1', valeur_fonciere: 250000, type_local: 'Maison', surface_reelle_bati: 100, nombre_pieces_principales: 5, prix_m2: 2500, surface_terrain: 500, nombre_locaux: 2, nombre_parcelles: 1, departement: '29' });
    expect(record.fields.url).to.equal(`${svc.url}/ventes/V1`);
    expect(record.fields.locaux.map((l: { type_local: string }) => l.type_local)).to.deep.equal(['Maison', 'Dépendance']);
    expect((await svc.rest('ventes.search', { id_mutation: 'inconnue' })).json.results).to.deep.equal([]);
  });

  it('serves the sale’s permalink page to a signed-in account, 404 for an unknown sale', async () => {
    const jar = new CookieJar();
    const login = await follow(`${svc.url}/compte/connexion?suite=${encodeURIComponent('/ventes/V1')}`, jar);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: svc.account.email, password: svc.account.password });
    const landed = await follow(new URL(action, login.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    expect(landed.url).to.equal(`${svc.url}/ventes/V1`);
    expect(landed.res.status).to.equal(200);
    expect(await landed.res.text()).to.include('<h1>Maison 5 pièces de 100 m² — Quimper</h1>');
    expect((await follow(`${svc.url}/ventes/inconnue`, jar)).res.status).to.equal(404);
  });

  it('pages with signed cursors bound to the search', async () => {
    const first = await svc.rest('ventes.search', { departements: ['29'], limit: 2 });
    expect(ids(first.json)).to.deep.equal(['V1', 'V5']);
    expect(first.json.total_estimated).to.equal(5);
    const second = await svc.rest('ventes.search', { departements: ['29'], limit: 2, cursor: first.json.next_cursor });
    expect(ids(second.json)).to.deep.equal(['V4', 'V7']);
    const third = await svc.rest('ventes.search', { departements: ['29'], limit: 2, cursor: second.json.next_cursor });
    expect(ids(third.json)).to.deep.equal(['V3']);
    expect(third.json.next_cursor).to.equal(null);
    // Over several departments (read one by one and merged) and over a commune code: the same pages as one list.
    const all = await search({ region: '53', departements: ['75'] });
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { results: { id: string }[]; next_cursor: string | null } } = await svc.rest('ventes.search', { region: '53', departements: ['75'], limit: 3, ...(cursor ? { cursor } : {}) });
      paged.push(...ids(page.json));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(paged).to.deep.equal(all);
    const other = await svc.rest('ventes.search', { departements: ['35'], cursor: first.json.next_cursor });
    expect(other.status).to.equal(400);
    expect(other.json.error.code).to.equal('invalid_cursor');
  });

  it('counts market sales per commune and kind: medians of price and of price per m², first and last dates', async () => {
    const { json } = await svc.rest('ventes.stats', { departements: ['29'] });
    expect(json.ventes_total).to.equal(4);
    expect(json.groupes_total).to.equal(3);
    expect(json.groupes).to.deep.equal([
      { code_commune: '29232', nom_commune: 'Quimper', departement: '29', type_local: 'Appartement', nombre_ventes: 2, prix_median: 150000, nombre_ventes_prix_m2: 2, prix_m2_median: 3000, date_min: '2025-03-02', date_max: '2026-02-01' },
      { code_commune: '29232', nom_commune: 'Quimper', departement: '29', type_local: null, nombre_ventes: 1, prix_median: 60000, nombre_ventes_prix_m2: 0, prix_m2_median: null, date_min: '2026-06-01', date_max: '2026-06-01' },
      { code_commune: '29232', nom_commune: 'Quimper', departement: '29', type_local: 'Maison', nombre_ventes: 1, prix_median: 250000, nombre_ventes_prix_m2: 1, prix_m2_median: 2500, date_min: '2026-09-14', date_max: '2026-09-14' },
    ]);
    const echange = await svc.rest('ventes.stats', { commune: '29000', nature_mutation: 'Echange' });
    expect(echange.json.groupes).to.have.length(1);
    expect(echange.json.groupes[0]).to.include({ type_local: 'Maison', nombre_ventes: 1, prix_m2_median: 1875 });
    const window = await svc.rest('ventes.stats', { region: '53', type_local: 'Appartement', depuis: '2026-01-01' });
    expect(window.json.groupes.map((g: { code_commune: string; nombre_ventes: number }) => [g.code_commune, g.nombre_ventes])).to.deep.equal([
      ['29232', 1],
      ['35238', 1],
    ]);
  });

  it('refuses statistics without a territory, naming the arguments', async () => {
    const { status, json } = await svc.rest('ventes.stats', { type_local: 'Maison' });
    expect(status).to.equal(400);
    expect(json.error.code).to.equal('invalid_arguments');
    expect(json.error.message).to.include('departements').and.include('commune');
  });
});
