// Social-network posts over HTTP: our JSON lines imported (the post's link dropped, contact details in texts masked and counted), searched by words, network, place and date, read by id with the service's permalink.
import { CONTACT_DETAIL_NOTE } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { contactDetails, importLines } from './helpers.js';

const LINES = [
  { id: 'P1', reseau: 'facebook', auteur: 'Ville de Quimper', date: '2026-03-02T09:30:00+01:00', texte: 'Travaux de toiture à l’école : infos au 02 98 98 89 89.', commune: '29232', commune_nom: 'Quimper', lien: 'https://www.facebook.com/quimper/posts/1' },
  { id: 'P2', reseau: 'linkedin', auteur: 'CHARPENTES DU LEON', date: '2026-01-10', texte: 'Chantier de charpente livré ! Écrivez-nous : contact@charpentes.fr', departement: '29', url: 'https://www.linkedin.com/posts/2' },
  { id: 'P3', reseau: 'mastodon', auteur: 'Département d’Ille-et-Vilaine', date: '2025-12-24T18:00:00Z', texte: 'Voirie : la route départementale rouvre après travaux.', commune: '35238', commune_nom: 'Rennes', departement: '29' },
  { id: 'P4', reseau: 'myspace', auteur: 'x', date: '2026-01-01', texte: 'y' },
  { id: 'P5', reseau: 'x', auteur: 'x', date: '2026-02-30', texte: 'y' },
  { id: 'P6', reseau: 'x', auteur: 'x', date: '2026-02-01', texte: 'y', profil: 'https://x.com/someone' },
];

describe('social-network posts (publications)', function () {
  this.timeout(30000);
  let svc: TestService;
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id).sort();

  before(async () => {
    svc = await startTestService();
    const report = await importLines(svc.db, 'publications', LINES);
    // P1: link and phone; P2: link and e-mail; P6: an unknown key holding a web address.
    expect(report).to.include({ read: 6, inserted: 4, skipped: 2 });
    expect(report.notes).to.deep.equal({ [CONTACT_DETAIL_NOTE]: 5 });
    expect(report.problems.map((p) => p.position)).to.deep.equal([4, 5]);
    expect(report.problems[0]?.reason).to.match(/^champ « reseau » : valeur non admise/);
    expect(report.problems[1]?.reason).to.equal('champ « date » : jour inexistant (2026-02-30)');
  });
  after(async () => svc.close());

  it('searches by words, network, departments (the commune’s first), region, commune and day', async () => {
    expect(ids((await svc.rest('publications.search', { query: 'travaux' })).json)).to.deep.equal(['P1', 'P3']);
    expect(ids((await svc.rest('publications.search', { reseaux: ['linkedin', 'mastodon'] })).json)).to.deep.equal(['P2', 'P3']);
    expect(ids((await svc.rest('publications.search', { departements: ['29'] })).json)).to.deep.equal(['P1', 'P2']);
    expect(ids((await svc.rest('publications.search', { region: '53', query: 'voirie' })).json)).to.deep.equal(['P3']);
    expect(ids((await svc.rest('publications.search', { commune: '29232' })).json)).to.deep.equal(['P1']);
    expect(ids((await svc.rest('publications.search', { date_depuis: '2026-01-10', date_avant: '2026-03-02' })).json)).to.deep.equal(['P1', 'P2', 'P6']);
  });

  it('gives a post with its date as published, its text masked, and the service’s permalink as its only address', async () => {
    const { json } = await svc.rest('publications.get', { id: 'P1' });
    expect(json.results[0].fields).to.deep.equal({
      id: 'P1',
      reseau: 'facebook',
      auteur: 'Ville de Quimper',
      date: '2026-03-02T09:30:00+01:00',
      texte: 'Travaux de toiture à l’école : infos au [coordonnée masquée].',
      commune: '29232',
      commune_nom: 'Quimper',
      departement: '29',
      url: `${svc.url}/publications/P1`,
    });
    expect(json.results[0].titre).to.equal('Ville de Quimper sur Facebook');
    for (const id of ['P2', 'P6']) expect(contactDetails(JSON.stringify((await svc.rest('publications.get', { id })).json), svc.url)).to.deep.equal([]);
  });

  it('refuses an unknown network naming the argument', async () => {
    const { status, json } = await svc.rest('publications.search', { reseaux: ['myspace'] });
    expect(status).to.equal(400);
    expect(json.error.message).to.include('reseaux');
  });
});
