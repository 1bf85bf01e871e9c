// A line of a JSON-lines format is checked against its schema from the contract, and a bad one is skipped with a French reason naming the field.
import { expect } from 'chai';
import { importFormat } from '../../src/contract/formats.js';
import { formatValidator } from '../../src/import/line-schema.js';

describe('JSON-lines formats of the contract', () => {
  const validate = formatValidator(importFormat('PublicationLine'));
  const good = { id: 'P1', reseau: 'facebook', auteur: 'Ville de Quimper', date: '2026-03-02T09:30:00+01:00', texte: 'Travaux.' };

  it('reads each format from the contract, its references inlined', () => {
    for (const name of ['DeliberationLine', 'PublicationLine', 'ContactLine']) expect(JSON.stringify(importFormat(name))).to.not.include('$ref');
    expect(() => importFormat('Inconnu')).to.throw('Format d’import inconnu'.replace('’', "'"));
  });

  it('accepts a conforming line and names the field of the first fault otherwise', () => {
    expect(validate(good)).to.equal(null);
    expect(validate({ ...good, auteur: undefined })).to.equal('champ « auteur » absent');
    expect(validate({ ...good, reseau: 'myspace' })).to.match(/^champ « reseau » : valeur non admise \(valeurs : facebook, /);
    expect(validate({ ...good, date: '02/03/2026' })).to.equal('champ « date » : format non reconnu');
    expect(validate({ ...good, texte: 12 })).to.equal('champ « texte » : une chaîne de caractères attendu');
    expect(validate({ ...good, texte: '' })).to.equal('champ « texte » vide');
    expect(validate({ ...good, texte: 'x'.repeat(20001) })).to.equal('champ « texte » trop long (20000 caractères au plus)');
    expect(validate({ ...good, humeur: 'joie' })).to.equal('champ inconnu « humeur »');
    expect(validate([good])).to.equal('la ligne doit être un objet JSON');
  });
});
