// One walk of a notice answers several key patterns with the value each would find in a walk
// of its own: an object's own keys before its children, values in order, 8 levels at most,
// empty texts passed over (the order the separate walks had).
import { expect } from 'chai';
import { firstTexts, KeyPatterns } from '../../../src/domains/notices/donnees.js';

const KEYS = new KeyPatterns([/^(siret|SIRET)$/i, /^(valeur|VALEUR_TOTALE)$/i, /^RECEPT_OFFRES$/i]);

/** `inner` under `levels` objects. */
const nested = (levels: number, inner: object): object => (levels ? { a: nested(levels - 1, inner) } : inner);

describe('firstTexts: several key patterns in one walk', function () {
  const cases: [string, unknown, (string | null)[]][] = [
    ['nothing to read', 'texte', [null, null, null]],
    ['each pattern its own key', { SIRET: '123', valeur: 45, RECEPT_OFFRES: '2026-02-19' }, ['123', '45', '2026-02-19']],
    ['an object’s own keys before its children', { a: { siret: 'inner' }, Siret: 'outer' }, ['outer', null, null]],
    ['children in order, depth first', { a: { b: { siret: 'deep' } }, c: { siret: 'shallow' } }, ['deep', null, null]],
    ['an empty text passed over', { siret: '  ', a: { SIRET: ' 9  9 ' } }, ['9 9', null, null]],
    ['an element’s #text, the first of a list', { valeur: [{ '#text': '12' }, '13'] }, [null, '12', null]],
    ['through arrays', [[{ RECEPT_OFFRES: 'x' }], { siret: 'y' }], ['y', null, 'x']],
    ['one pattern answered stays answered', { a: { valeur: '1' }, b: { valeur: '2', siret: 's' } }, ['s', '1', null]],
    ['the whole key, whatever the case', { siretx: 'no', VALEUR_totale: 'yes' }, [null, 'yes', null]],
    ['the keys of 8 levels below the root', nested(8, { siret: 'level 8' }), ['level 8', null, null]],
    ['none deeper', nested(9, { siret: 'level 9' }), [null, null, null]],
  ];
  for (const [what, tree, expected] of cases) it(what, () => expect(firstTexts(tree, KEYS)).to.deep.equal(expected));

  it('refuses a pattern that keeps its place between tests', () => {
    expect(() => new KeyPatterns([/siret/g])).to.throw();
  });
});
