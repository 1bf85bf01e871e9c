// Directory contacts over HTTP: name, role and organisation only; every telephone, e-mail or web address of an input line (contact keys, other keys, inside texts) dropped at import, counted, never stored nor returned; searches by words, place, organisation and role.
import { CONTACT_DETAIL_NOTE } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';
import { contactDetails, importLines } from './helpers.js';

const LINES = [
  { id: 'C1', nom: 'Mme Anne Le Gall', role: 'Directrice des services techniques', organisation: 'Ville de Quimper', organisation_siret: '21290232000014', commune: '29232', commune_nom: 'Quimper', telephone: '02 98 98 89 89', email: 'anne.legall@quimper.bzh', site_internet: 'https://www.quimper.bzh' },
  { id: 'C2', nom: 'M. Yann Kerouredan', role: 'Conducteur de travaux', organisation: 'Charpentes du Léon', organisation_siren: '732829320', departement: '29', tel: '0612345678', mail: 'yann@charpentes.fr', linkedin: 'https://www.linkedin.com/in/yann' },
  { id: 'C3', nom: 'Mme Claire Martin', role: 'Responsable de la commande publique (tél. 02 99 00 11 22)', organisation: 'Département d’Ille-et-Vilaine', commune: '35238', commune_nom: 'Rennes', portable: 612345678 },
  { id: 'C4', nom: 'M. Paul Durand', role: 'Gérant', organisation: 'Durand BTP', organisation_siren: '123456789', organisation_siret: '98765432100011' },
  { id: 'C5', nom: 'M. Sans Organisation', role: 'Gérant', telephone: '01 02 03 04 05' },
  { id: 'C6', nom: 'M. X', role: 'Gérant', organisation: 'X', service: 'voirie' },
];

describe('directory contacts', function () {
  this.timeout(30000);
  let svc: TestService;
  const ids = (json: { results: { id: string }[] }) => json.results.map((r) => r.id).sort();

  before(async () => {
    svc = await startTestService();
    const report = await importLines(svc.db, 'contacts', LINES);
    // C1: 3; C2: tel, mail and the linkedin key: 3; C3: the phone in the role and `portable`: 2; C5: 1 (then skipped: dropped counts rows kept only).
    expect(report).to.include({ read: 6, inserted: 3, skipped: 3 });
    expect(report.notes).to.deep.equal({ [CONTACT_DETAIL_NOTE]: 8 });
    expect(report.problems.map((p) => [p.position, p.reason])).to.deep.equal([
      [4, 'champs « organisation_siren » et « organisation_siret » incompatibles'],
      [5, 'champ « organisation » absent'],
      [6, 'champ inconnu « service »'],
    ]);
  });
  after(async () => svc.close());

  it('stores no contact detail in any column', async () => {
    const rows = await svc.db('contacts').select('*');
    expect(contactDetails(JSON.stringify(rows), 'http://aucune')).to.deep.equal([]);
    expect(Object.keys(rows[0])).to.not.include.members(['telephone', 'email', 'site_internet']);
  });

  it('searches by words, departments, region, commune, organisation (words or SIREN) and role', async () => {
    expect(ids((await svc.rest('contacts.search', { query: 'services techniques' })).json)).to.deep.equal(['C1']);
    expect(ids((await svc.rest('contacts.search', { departements: ['29'] })).json)).to.deep.equal(['C1', 'C2']);
    expect(ids((await svc.rest('contacts.search', { region: '53' })).json)).to.deep.equal(['C1', 'C2', 'C3']);
    expect(ids((await svc.rest('contacts.search', { commune: '35238' })).json)).to.deep.equal(['C3']);
    expect(ids((await svc.rest('contacts.search', { organisation: 'LEON charpente' })).json)).to.deep.equal(['C2']);
    expect(ids((await svc.rest('contacts.search', { organisation_siren: '212902320' })).json)).to.deep.equal(['C1']);
    expect(ids((await svc.rest('contacts.search', { role: 'commande publique' })).json)).to.deep.equal(['C3']);
    expect(ids((await svc.rest('contacts.search', { role: 'travaux', query: 'yann' })).json)).to.deep.equal(['C2']);
    expect(ids((await svc.rest('contacts.search', { role: '%%' })).json)).to.deep.equal(['C1', 'C2', 'C3']);
  });

  it('gives a contact: name, role, organisation and its SIREN, commune, the service’s permalink, nothing else', async () => {
    const { json } = await svc.rest('contacts.get', { id: 'C1' });
    expect(json.results[0].fields).to.deep.equal({
      id: 'C1',
      nom: 'Mme Anne Le Gall',
      role: 'Directrice des services techniques',
      organisation: 'Ville de Quimper',
      organisation_siren: '212902320',
      organisation_siret: '21290232000014',
      commune: '29232',
      commune_nom: 'Quimper',
      departement: '29',
      url: `${svc.url}/contacts/C1`,
    });
    const c3 = await svc.rest('contacts.get', { id: 'C3' });
    expect(c3.json.results[0].fields.role).to.equal('Responsable de la commande publique (tél. [coordonnée masquée])');
    const all = await svc.rest('contacts.search', { limit: 50 });
    expect(contactDetails(JSON.stringify(all.json), svc.url)).to.deep.equal([]);
  });
});
