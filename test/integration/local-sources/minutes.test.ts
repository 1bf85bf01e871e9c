// Council minutes over HTTP: our JSON lines imported (source address dropped, contact details in texts masked and counted), searched by words, place and date, paged by cursor, read by id, with the service's permalink.
import { CONTACT_DETAIL_NOTE } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { contactDetails, importLines } from './helpers.js';

const line = (id: string, commune: string, commune_nom: string, date_seance: string, titre: string, texte: string, extra: object = {}) => ({ id, commune, commune_nom, date_seance, titre, texte, ...extra });

const LINES = [
  line('D1', '29232', 'Quimper', '2026-02-10', 'Réfection de la toiture de l’école Jules-Ferry', 'Le conseil municipal attribue le marché de couverture. Renseignements au 02 98 98 89 89 ou travaux@quimper.bzh.', {
    url: 'https://www.quimper.bzh/deliberations/2026-012.pdf',
    numero: '2026-012',
    source: 'Registre des délibérations',
  }),
  line('D2', '29019', 'Brest', '2025-06-03', 'Programme de voirie 2025', 'Réfection de la chaussée rue de Siam et travaux de voirie.'),
  line('D3', '35238', 'Rennes', '2026-01-15', 'Rénovation de la toiture du gymnase', 'Marché de travaux de couverture attribué.'),
  line('D4', '69123', 'Lyon', '2024-11-20', 'Éclairage public', 'Remplacement des luminaires voir www.lyon.fr'),
  { id: 'D5', commune: '29232', commune_nom: 'Quimper', date_seance: '2026-13-01', titre: 'x', texte: 'y' },
  { id: 'D6', commune: '29232', commune_nom: 'Quimper', date_seance: '2026-01-01', titre: 'x' },
  { id: 'D7', commune: '29232', commune_nom: 'Quimper', date_seance: '2026-01-01', titre: 'x', texte: 'y', couleur: 'bleu' },
  'pas du JSON',
];

describe('council minutes (deliberations)', function () {
  this.timeout(30000);
  let svc: TestService;
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id).sort();

  before(async () => {
    svc = await startTestService();
    const report = await importLines(svc.db, 'deliberations', LINES);
    expect(report).to.include({ read: 8, inserted: 4, skipped: 4 });
    expect(report.notes).to.deep.equal({ [CONTACT_DETAIL_NOTE]: 4 });
    expect(report.problems.map((p) => [p.position, p.reason])).to.deep.equal([
      [5, 'champ « date_seance » : date AAAA-MM-JJ attendue'],
      [6, 'champ « texte » absent'],
      [7, 'champ inconnu « couleur »'],
      [8, 'JSON invalide'],
    ]);
  });
  after(async () => svc.close());

  it('searches by words, departments, region, commune and date window', async () => {
    expect(ids((await svc.rest('deliberations.search', { query: 'toiture' })).json)).to.deep.equal(['D1', 'D3']);
    expect(ids((await svc.rest('deliberations.search', { query: 'toiture', departements: ['29'] })).json)).to.deep.equal(['D1']);
    expect(ids((await svc.rest('deliberations.search', { region: '53' })).json)).to.deep.equal(['D1', 'D2', 'D3']);
    expect(ids((await svc.rest('deliberations.search', { commune: '29019' })).json)).to.deep.equal(['D2']);
    expect(ids((await svc.rest('deliberations.search', { date_depuis: '2026-01-15', date_avant: '2026-02-10' })).json)).to.deep.equal(['D1', 'D3']);
    expect(ids((await svc.rest('deliberations.search', { query: 'chaussee' })).json)).to.deep.equal(['D2']);
  });

  it('orders without words by date of the council, newest first, and pages by cursor', async () => {
    const first = await svc.rest('deliberations.search', { limit: 2 });
    expect(first.json.results.map((r: { id: string }) => r.id)).to.deep.equal(['D1', 'D3']);
    expect(first.json.total_estimated).to.equal(4);
    const second = await svc.rest('deliberations.search', { limit: 2, cursor: first.json.next_cursor });
    expect(second.json.results.map((r: { id: string }) => r.id)).to.deep.equal(['D2', 'D4']);
    expect(second.json.next_cursor).to.equal(null);
  });

  it('gives one deliberation with its whole text, masked, without the source document’s address', async () => {
    const { json } = await svc.rest('deliberations.get', { id: 'D1' });
    const r = json.results[0];
    expect(r.fields).to.include({ commune: '29232', commune_nom: 'Quimper', departement: '29', date_seance: '2026-02-10', numero: '2026-012', source: 'Registre des délibérations' });
    expect(r.fields.texte).to.equal('Le conseil municipal attribue le marché de couverture. Renseignements au [coordonnée masquée] ou [coordonnée masquée].');
    expect(r.fields.url).to.equal(`${svc.url}/deliberations/D1`);
    expect(contactDetails(JSON.stringify(json), svc.url)).to.deep.equal([]);
    const search = await svc.rest('deliberations.search', { query: 'toiture' });
    expect(search.json.results.every((x: { fields: { texte: unknown } }) => x.fields.texte === null)).to.equal(true);
    expect(contactDetails(JSON.stringify((await svc.rest('deliberations.get', { id: 'D4' })).json), svc.url)).to.deep.equal([]);
    expect((await svc.rest('deliberations.get', { id: 'inconnu' })).json.results).to.deep.equal([]);
  });

  it('re-imports idempotently, keeping when the record entered the service', async () => {
    const before = await svc.db('deliberations').where({ id: 'D2' }).first('ingested_at');
    const report = await importLines(svc.db, 'deliberations', [line('D2', '29019', 'Brest', '2025-06-03', 'Programme de voirie 2025 (modifié)', 'Voirie.')]);
    expect(report).to.include({ inserted: 0, updated: 1 });
    const after = await svc.db('deliberations').where({ id: 'D2' }).first('ingested_at', 'titre');
    expect(after).to.deep.equal({ ingested_at: before.ingested_at, titre: 'Programme de voirie 2025 (modifié)' });
    expect(ids((await svc.rest('deliberations.search', { query: 'chaussee' })).json)).to.deep.equal([]);
  });

  it('refuses a malformed commune code naming it', async () => {
    const { status, json } = await svc.rest('deliberations.search', { commune: '2900' });
    expect(status).to.equal(400);
    expect(json.error.message).to.include('« commune »');
  });
});
