// A post line becomes a row with its day as written, its department from the commune (else the one given), its text masked and its link dropped (counted).
import { contactNotes } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { publications } from '../../../src/domains/posts/import-publications.js';

const NOW = '2026-03-05T10:00:00.000Z';
const line = { id: 'mastodon-1', reseau: 'mastodon', auteur: 'Ville de Brest', date: '2026-03-01T23:30:00-01:00', texte: 'Chantier, infos au 02 98 00 80 80', commune: '29019', departement: '35', lien: 'https://mastodon.social/@brest/1' };

describe('publications importer', () => {
  it('keeps the day written in the date, prefers the commune’s department, masks and drops, counting', () => {
    const mapped = publications.map(line, NOW) as unknown as { row: Record<string, unknown>; notes: string[] };
    expect(mapped.notes).to.deep.equal(contactNotes(2));
    expect(mapped.row).to.include({ date_publication: '2026-03-01T23:30:00-01:00', jour: '2026-03-01', departement: '29', texte: 'Chantier, infos au [coordonnée masquée]' });
    expect(mapped.row).to.not.have.property('lien');
  });

  it('takes the department given when there is no commune, and none otherwise', () => {
    const { commune: _c, ...noCommune } = line;
    expect((publications.map(noCommune, NOW) as { row: { departement: string } }).row.departement).to.equal('35');
    const { departement: _d, ...neither } = noCommune;
    expect((publications.map(neither, NOW) as { row: { departement: string | null } }).row.departement).to.equal(null);
  });

  it('skips an unknown network or a date that is not ISO, naming the field', () => {
    expect(publications.map({ ...line, reseau: 'Facebook' }, NOW)).to.have.property('skip').that.match(/^champ « reseau »/);
    expect(publications.map({ ...line, date: '1er mars 2026' }, NOW)).to.deep.equal({ skip: 'champ « date » : format non reconnu' });
  });
});
