// The contract's query pattern is never looser than parseQuery (a text it accepts parses), its character classes hold what foldText does, and it answers quickly on hostile texts.
import { expect } from 'chai';
import { mix, Rng } from '../../../scripts/demo/prng.js';
import { parseQuery, PATTERN_CLASSES, QUERY_LIMITS, queryPattern } from '../../../src/platform/search/query-syntax.js';
import { foldText } from '../../../src/platform/search/text-fold.js';

const pattern = new RegExp(queryPattern(), 'u');
const inClass = (cls: string, ch: string) => new RegExp(`^[${cls}]$`, 'u').test(ch);
const parses = (s: string) => {
  try {
    parseQuery(s);
    return true;
  } catch {
    return false;
  }
};

describe('query syntax: the contract pattern', () => {
  it('has the classes foldText gives: words within the wide class, Latin-1 letters and digits within words, ligatures, accents', () => {
    for (let c = 0; c <= 0xffff; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const ch = String.fromCodePoint(c);
      const folded = foldText(`a${ch}a`).slice(1, -1);
      const word = /^[a-z0-9]+$/.test(folded);
      if (inClass(PATTERN_CLASSES.word, ch)) expect(word, `U+${c.toString(16)}`).to.equal(true);
      if (word) expect(inClass(PATTERN_CLASSES.wordWide, ch), `U+${c.toString(16)}`).to.equal(true);
      if (word && folded.length > 1) expect(inClass(PATTERN_CLASSES.ligature, ch), `U+${c.toString(16)}`).to.equal(true);
      if (folded === '') expect(inClass(PATTERN_CLASSES.accent, ch), `U+${c.toString(16)}`).to.equal(true);
    }
  });

  const TABLE: [string, boolean][] = [
    ['toiture zinc, "bardage bois"', true],
    ['« bardage bois »', true],
    ["d'école", true],
    ['x'.repeat(QUERY_LIMITS.wordLength), true],
    ['x'.repeat(QUERY_LIMITS.wordLength + 1), false],
    ['Œ'.repeat(26), false],
    [Array.from({ length: QUERY_LIMITS.wordsPerAlternative }, (_, i) => `m${i}`).join(' '), true],
    [Array.from({ length: QUERY_LIMITS.wordsPerAlternative + 1 }, (_, i) => `m${i}`).join(' '), false],
    [Array.from({ length: QUERY_LIMITS.alternatives }, (_, i) => `m${i}`).join(', '), true],
    [Array.from({ length: QUERY_LIMITS.alternatives + 1 }, (_, i) => `m${i}`).join(', '), false],
    ['a,', false],
    ['"toiture, zinc"', false],
    ['%_:*', false],
  ];
  for (const [given, want] of TABLE) it(`${want ? 'accepts' : 'refuses'} ${JSON.stringify(given).slice(0, 50)}`, () => expect(pattern.test(given)).to.equal(want));

  it('accepts only texts parseQuery accepts, on random texts of words, marks and punctuation', () => {
    const rng = new Rng(mix(20261124, 1));
    const pieces = ['toit', 'x'.repeat(24), 'œ', 'é', 'e\u0301', ' ', ' ', ', ', ',', '"', '«', "l'", "jusqu'", 'α', '12', '-', 'ß', 'ā'];
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: rng.int(1, 60) }, () => rng.pick(pieces)).join('');
      if (!pattern.test(text)) continue;
      accepted += 1;
      expect(parses(text), JSON.stringify(text)).to.equal(true);
    }
    expect(accepted).to.be.greaterThan(1000);
  });

  it('answers at once on long hostile texts (no catastrophic backtracking)', () => {
    for (const text of ['a '.repeat(250), 'é\u0301'.repeat(500), '"'.repeat(500), 'a,'.repeat(250), `${'x'.repeat(499)}!`, `${'m '.repeat(200)}\u0000`]) {
      const started = process.hrtime.bigint();
      pattern.test(text);
      // Not a speed target: a bound a backtracking explosion (seconds to years) could not meet.
      expect(Number(process.hrtime.bigint() - started) / 1e6, JSON.stringify(text.slice(0, 20))).to.be.lessThan(1000);
    }
  });
});
