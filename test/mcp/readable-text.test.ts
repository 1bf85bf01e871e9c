// The readable text of an MCP result (content) renders every value of structuredContent in plain French, nothing dropped.
import { expect } from 'chai';
import { readableText } from '../../src/mcp/readable-text.js';

const cases: { name: string; given: unknown; want: string }[] = [
  { name: 'a string', given: 'Finistère', want: 'Finistère' },
  { name: 'a number', given: 42, want: '42' },
  { name: 'zero', given: 0, want: '0' },
  { name: 'true as oui', given: true, want: 'oui' },
  { name: 'false as non', given: false, want: 'non' },
  { name: 'null as a dash', given: null, want: '—' },
  { name: 'undefined as a dash', given: undefined, want: '—' },
  { name: 'a flat object, one line per key in order', given: { code: '29', total: 1, actif: true, region: null }, want: 'code : 29\ntotal : 1\nactif : oui\nregion : —' },
  { name: 'a nested object, indented under its key', given: { fiche: { nom: 'X', outre_mer: false } }, want: 'fiche :\n  nom : X\n  outre_mer : non' },
  { name: 'two levels of nesting', given: { a: { b: { c: 1 } }, d: 2 }, want: 'a :\n  b :\n    c : 1\nd : 2' },
  { name: 'an array of scalars, joined on one line', given: { departements: ['22', '29', '35', '56'] }, want: 'departements : 22, 29, 35, 56' },
  { name: 'an array of mixed scalars', given: { v: [1, null, true, 'x'] }, want: 'v : 1, —, oui, x' },
  { name: 'an empty array under a key', given: { items: [] }, want: 'items : (aucun)' },
  { name: 'an empty array alone', given: [], want: '(aucun)' },
  { name: 'an array of scalars alone, as items', given: ['a', false], want: '- a\n- non' },
  {
    name: 'an array of objects, as "- " items with their keys aligned',
    given: { total: 2, items: [{ code: '29', nom: 'Finistère' }, { code: '22', nom: "Côtes-d'Armor" }] },
    want: "total : 2\nitems :\n  - code : 29\n    nom : Finistère\n  - code : 22\n    nom : Côtes-d'Armor",
  },
  { name: 'an array of objects alone', given: [{ a: 1, b: 2 }, { a: 3 }], want: '- a : 1\n  b : 2\n- a : 3' },
  {
    name: 'an object in an array item, with its own arrays',
    given: { items: [{ nom: 'R', departements: ['2A', '2B'], source: { code: 'dvf', actif: true }, vide: [] }] },
    want: 'items :\n  - nom : R\n    departements : 2A, 2B\n    source :\n      code : dvf\n      actif : oui\n    vide : (aucun)',
  },
  { name: 'an array mixing scalars and objects, as items', given: { v: [1, { a: 2 }] }, want: 'v :\n  - 1\n  - a : 2' },
];

describe('readableText', () => {
  for (const c of cases) {
    it(`renders ${c.name}`, () => {
      expect(readableText(c.given)).to.equal(c.want);
    });
  }

  it('renders a real reference answer without losing any value', () => {
    const given = { total: 1, items: [{ code: '29', nom: 'Finistère', region: '53', region_nom: 'Bretagne', outre_mer: false }] };
    expect(readableText(given)).to.equal('total : 1\nitems :\n  - code : 29\n    nom : Finistère\n    region : 53\n    region_nom : Bretagne\n    outre_mer : non');
  });
});
