// The percolator finds, for any document, exactly the stored queries `matchesWords` says match it (no query lost by its anchor, none added).
import { expect } from 'chai';
import { Percolator } from '../../../src/domains/robot/percolator.js';
import { matchesWords, parseQuery } from '../../../src/platform/search/query-syntax.js';

/** A small deterministic generator (mulberry32). */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const VOCABULARY = ['toiture', 'toit', 'zinc', 'zingueur', 'bardage', 'bois', 'boiserie', 'charpente', 'école', 'ecole', 'mairie', 'isolation', 'iso', 'thermique', 'plomberie', 'rennes', 'de', 'la', 'couverture', 'couvreur'];

describe('alert robot percolator', () => {
  it('matches exactly what matchesWords matches, over random queries and documents', () => {
    const random = prng(15);
    const pick = () => VOCABULARY[Math.floor(random() * VOCABULARY.length)] as string;
    const queries: { parsed: ReturnType<typeof parseQuery>; text: string }[] = [];
    for (let i = 0; i < 400; i++) {
      const groups = Array.from({ length: 1 + Math.floor(random() * 3) }, () => {
        const words = Array.from({ length: 1 + Math.floor(random() * 3) }, pick);
        return random() < 0.25 ? `"${words.join(' ')}"` : words.join(' ');
      });
      const text = groups.join(', ');
      queries.push({ parsed: parseQuery(text), text });
    }
    const percolator = new Percolator(queries);
    let matched = 0;
    for (let d = 0; d < 500; d++) {
      const fields = Array.from({ length: 1 + Math.floor(random() * 3) }, () => Array.from({ length: Math.floor(random() * 8) }, () => parseQuery(pick()).groups[0]?.terms.map((t) => (t.kind === 'word' ? t.word : t.words.join(' ')))[0] as string));
      const expected = queries.filter((q) => matchesWords(q.parsed, fields)).map((q) => q.text).sort();
      const got = percolator.match({ fields }, () => true).map((q) => q.text).sort();
      expect(got, JSON.stringify(fields)).to.deep.equal(expected);
      matched += got.length;
    }
    // The test means something: many documents match some queries, and not all of them.
    expect(matched).to.be.greaterThan(500);
  });

  it('a document of several pieces matches when one piece holds the whole query, not across pieces', () => {
    const percolator = new Percolator([{ parsed: parseQuery('amiante plomb') }]);
    const across = [[['amiante']], [['plomb']]];
    expect(percolator.match({ fields: across.flat(), pieces: across }, () => true)).to.have.length(0);
    const within = [[['amiante', 'et', 'plomb']], [['autre']]];
    expect(percolator.match({ fields: within.flat(), pieces: within }, () => true)).to.have.length(1);
  });
});
