// What a message may hold: bare valid addresses only, deduplicated, 20 recipients at most; no line break or control character in a subject (header injection); plain text bodies.
import { expect } from 'chai';
import { checkAddresses, checkSubject, checkText, isHostname, normaliseAddress, safeDisplayName } from '../../../src/domains/emails/rules.js';
import { InvalidArgumentsError } from '../../../src/errors.js';

describe('e-mail rules', () => {
  it('accepts bare addresses, folds the domain to lower case, refuses display names, line breaks and bad domains', () => {
    expect(normaliseAddress('Jean.Dupont+devis@Mairie-Exemple.FR')).to.equal('Jean.Dupont+devis@mairie-exemple.fr');
    for (const bad of ['Nom <a@exemple.fr>', 'a@exemple.fr\r\nBcc: x@exemple.fr', 'a@exemple', 'a@-exemple.fr', '.a@exemple.fr', 'a..b@exemple.fr', 'a@exemple.fr ', '@exemple.fr', `${'a'.repeat(65)}@exemple.fr`])
      expect(normaliseAddress(bad), bad).to.equal(null);
  });

  it('deduplicates across to and copy, names the first bad address, and caps recipients at 20', () => {
    expect(checkAddresses(['a@exemple.fr', 'A@EXEMPLE.FR'], ['a@exemple.fr', 'b@exemple.fr'])).to.deep.equal({ to: ['a@exemple.fr'], cc: ['b@exemple.fr'] });
    expect(() => checkAddresses(['a@exemple.fr'], ['ok@exemple.fr', 'faux'])).to.throw(InvalidArgumentsError, '« copie[1] »');
    const many = Array.from({ length: 21 }, (_, i) => `d${i}@exemple.fr`);
    expect(() => checkAddresses(many.slice(0, 20), [])).to.not.throw();
    expect(() => checkAddresses(many.slice(0, 11), many.slice(11))).to.throw(InvalidArgumentsError, '20 au plus');
  });

  it('refuses CR, LF, other controls and Unicode line separators in a subject', () => {
    expect(checkSubject('  Question — lot 2  ', 'sujet')).to.equal('Question — lot 2');
    for (const bad of ['a\r\nBcc: x@exemple.fr', 'a\nb', 'a\rb', 'a\u0000', 'a\u2028b', 'a\u0085b', 'a\tb']) expect(() => checkSubject(bad, 'sujet'), JSON.stringify(bad)).to.throw(InvalidArgumentsError, '« sujet »');
    expect(() => checkSubject('   ', 'sujet')).to.throw(InvalidArgumentsError, 'vide');
  });

  it('keeps line breaks and tabs in a text and refuses other controls', () => {
    expect(checkText('a\r\n\tb\n', 'texte')).to.equal('a\r\n\tb\n');
    expect(() => checkText('a\u0007', 'texte')).to.throw(InvalidArgumentsError, '« texte »');
  });

  it('strips controls from a display name and checks domain names', () => {
    expect(safeDisplayName('Toitures\r\nBcc: x@exemple.fr')).to.equal('Toitures Bcc: x@exemple.fr');
    expect(isHostname('toitures-armor.fr')).to.equal(true);
    expect(isHostname('xn--toitures-arm-ebb.fr')).to.equal(true);
    for (const bad of ['toitures', 'Toitures.fr', 'to_itures.fr', '-a.fr', 'a-.fr', 'a.fr.', 'a.123']) expect(isHostname(bad), bad).to.equal(false);
  });
});
