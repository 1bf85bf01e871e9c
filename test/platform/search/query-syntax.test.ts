// The one query syntax of searches and alerts: words all required (folded: case, accents, œ, elisions), "phrases" exact, commas for alternatives, prefix on the last word only, limits refused with invalid_arguments on `query`.
import { expect } from 'chai';
import { QuerySyntaxError } from '../../../src/platform/search/errors.js';
import { describeQuerySyntax, foldWords, parseQuery, QUERY_LIMITS, searchWords, type ParsedQuery } from '../../../src/platform/search/query-syntax.js';
import { foldText } from '../../../src/platform/search/text-fold.js';

/** Each alternative as its terms: `word`, `word*` (prefix) or `"a phrase"`. */
function show(parsed: ParsedQuery): string[][] {
  return parsed.groups.map((g) => g.terms.map((t) => (t.kind === 'phrase' ? `"${t.words.join(' ')}"` : `${t.word}${t.prefix ? '*' : ''}`)));
}

const TABLE: { given: string; want: string[][] }[] = [
  { given: 'toiture zinc', want: [['toiture', 'zinc*']] },
  { given: 'toiture zinc, "bardage bois"', want: [['toiture', 'zinc*'], ['"bardage bois"']] },
  { given: 'Électricité', want: [['electricite*']] },
  { given: 'ÉCOLE', want: [['ecole*']] },
  { given: 'Cœur de ville', want: [['coeur', 'de', 'ville*']] },
  { given: "d'étanchéité", want: [['etancheite*']] },
  { given: 'L’école', want: [['ecole*']] },
  { given: "jusqu'à l'année", want: [['a', 'annee*']] },
  { given: "aujourd'hui", want: [['aujourd', 'hui*']] },
  { given: 'Saint-Étienne', want: [['saint', 'etienne*']] },
  { given: 'lot 2', want: [['lot', '2']] },
  { given: 'lot 25', want: [['lot', '25']] },
  { given: 'lot 250', want: [['lot', '250*']] },
  { given: '"zinc"', want: [['zinc']] },
  { given: '"zinc" toiture', want: [['zinc', 'toiture*']] },
  { given: '"bardage bois" toiture', want: [['"bardage bois"', 'toiture*']] },
  { given: 'toiture "bardage bois"', want: [['toiture', '"bardage bois"']] },
  { given: '"bardage bois', want: [['"bardage bois"']] },
  { given: '« bardage bois »', want: [['"bardage bois"']] },
  { given: '“Bardage Bois”', want: [['"bardage bois"']] },
  { given: '"toiture, zinc"', want: [['"toiture zinc"']] },
  { given: "\"maîtrise d'œuvre\"", want: [['"maitrise oeuvre"']] },
  { given: ', toiture, , zinc,', want: [['toiture*'], ['zinc*']] },
  { given: 'zinc, ZINC, zinc', want: [['zinc*']] },
  { given: 'toiture OR zinc', want: [['toiture', 'or', 'zinc*']] },
  { given: 'NEAR(toiture zinc)', want: [['near', 'toiture', 'zinc*']] },
  { given: 'zinc* -toiture', want: [['zinc', 'toiture*']] },
  { given: "taux_reduit 100% a:b", want: [['taux', 'reduit', '100', 'a', 'b']] },
  { given: "'; drop table x; --", want: [['drop', 'table', 'x']] },
  { given: '"" zinc ""', want: [['zinc*']] },
];

describe('query syntax', () => {
  for (const { given, want } of TABLE) {
    it(`parses ${JSON.stringify(given)}`, () => {
      const parsed = parseQuery(given);
      expect(show(parsed)).to.deep.equal(want);
      // The canonical text is a query of the syntax that parses back to the same alternatives.
      expect(show(parseQuery(parsed.canonical))).to.have.deep.members(want);
      expect(parseQuery(parsed.canonical).canonical).to.equal(parsed.canonical);
    });
  }

  it('gives equivalent queries one canonical text', () => {
    const a = parseQuery('toiture zinc, "bardage bois"');
    const b = parseQuery(' « Bardage   BOIS »,TOITURE  Zinc,toiture zinc ');
    expect(a.canonical).to.equal(b.canonical);
    expect(parseQuery('zinc toiture').canonical).to.not.equal(a.canonical);
  });

  const errors: { given: string; want: RegExp }[] = [
    { given: '', want: /aucun mot/ },
    { given: '   ', want: /aucun mot/ },
    { given: '"', want: /aucun mot/ },
    { given: '""', want: /aucun mot/ },
    { given: ',,,', want: /aucun mot/ },
    { given: "%_:*' -", want: /aucun mot/ },
    { given: Array.from({ length: 11 }, (_, i) => `mot${i}`).join(', '), want: /11 alternatives.*10 au plus/ },
    { given: Array.from({ length: 21 }, (_, i) => `mot${i}`).join(' '), want: /21 mots.*20 au plus/ },
    { given: `toiture "${Array.from({ length: 20 }, (_, i) => `mot${i}`).join(' ')}"`, want: /21 mots/ },
    { given: `toiture ${'a'.repeat(51)}`, want: /plus de 50 caractères/ },
  ];
  for (const { given, want } of errors) {
    it(`refuses ${JSON.stringify(given.length > 40 ? `${given.slice(0, 40)}…` : given)}`, () => {
      let error: unknown;
      try {
        parseQuery(given);
      } catch (err) {
        error = err;
      }
      expect(error).to.be.instanceOf(QuerySyntaxError);
      const e = error as QuerySyntaxError;
      expect(e.argument).to.equal('query');
      expect(e.message).to.contain('« query »').and.match(want);
    });
  }

  it('accepts queries at the limits', () => {
    const limits = [
      Array.from({ length: QUERY_LIMITS.alternatives }, (_, i) => `mot${i}`).join(', '),
      Array.from({ length: QUERY_LIMITS.wordsPerAlternative }, (_, i) => `mot${i}`).join(' '),
      'é'.repeat(QUERY_LIMITS.wordLength),
    ];
    for (const q of limits) expect(() => parseQuery(q)).to.not.throw();
  });

  it('folds text for the index as for the query', () => {
    expect(searchWords("Travaux d'Électricité — L'ŒUVRE, Saint-Étienne (lot n°2)")).to.deep.equal([
      'travaux',
      'electricite',
      'oeuvre',
      'saint',
      'etienne',
      'lot',
      'n',
      '2',
    ]);
    expect(searchWords(null)).to.deep.equal([]);
  });

  it('folds exactly as foldText does, on any text', () => {
    // Letters, accents precomposed and combining, ligatures, Kelvin sign, dotted I, Greek,
    // Cyrillic, CJK, emoji, lone surrogates, controls, spaces of all kinds, punctuation.
    const alphabet = [
      ...'azAZ09 ,.;:!?\'"-_*%()[]{}<>/\\@#&|~^`+=\t\n\r\u0000',
      ...'éèêëàâäîïôöùûüÿçÉÈÊËÀÂÄÎÏÔÖÙÛÜŸÇœŒæÆßẞøØłŁđĐñÑ',
      '\u0301', '\u0327', '\u0308', '\u0323', '\u20d7', '\u0591', 'ﬁ', 'ﬀ', '\u212a', '\u0130', 'ı', 'ǅ', 'Ⅻ', '²', '½', '①',
      'Σ', 'ς', 'Ω', 'ж', 'Ж', '中', '文', '😀', '👍🏽', '\ud800', '\udc00', '\u00a0', '\u2009', '\u202f', '’', 'ʼ', '«', '»', '—', '…', '°', '€',
    ];
    let seed = 1;
    const random = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from({ length: Math.floor(random() * 24) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      expect(foldWords(text).join(' '), JSON.stringify(text)).to.equal(foldText(text));
    }
  });

  it('documents itself in French', () => {
    const text = describeQuerySyntax();
    expect(text).to.match(/guillemets/).and.match(/virgule/).and.match(/couverture/);
  });
});
