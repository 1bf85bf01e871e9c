// A received text may hold neither NUL nor an unpaired UTF-16 surrogate, wherever it sits in the arguments; a message quotes received text at most 80 characters long, without control characters.
import { expect } from 'chai';
import { ECHO_LIMIT, echoed, forbiddenCharacter, forbiddenCharacterIn } from '../../src/contract/text-rules.js';

describe('forbiddenCharacter', () => {
  const cases: { name: string; text: string; want: string | null }[] = [
    { name: 'plain French text', text: 'Réfection de la toiture, « lot 2 »', want: null },
    { name: 'an empty text', text: '', want: null },
    { name: 'a paired surrogate (emoji)', text: 'maison 🏠', want: null },
    { name: 'other control characters (tab, BEL)', text: 'a\tb\u0007', want: null },
    { name: 'NUL', text: 'ab\u0000', want: 'le caractère nul (U+0000)' },
    { name: 'NUL alone', text: '\u0000', want: 'le caractère nul (U+0000)' },
    { name: 'a high surrogate at the end', text: 'ab\uD83D', want: 'un demi-caractère UTF-16 isolé (U+D83D)' },
    { name: 'a high surrogate before a letter', text: '\uD83Dx', want: 'un demi-caractère UTF-16 isolé (U+D83D)' },
    { name: 'a low surrogate alone', text: 'x\uDE00', want: 'un demi-caractère UTF-16 isolé (U+DE00)' },
    { name: 'two high surrogates', text: '\uD83D\uD83D\uDE00', want: 'un demi-caractère UTF-16 isolé (U+D83D)' },
    { name: 'low then high (reversed pair)', text: '\uDE00\uD83D', want: 'un demi-caractère UTF-16 isolé (U+DE00)' },
    { name: 'NUL before a surrogate: NUL is named', text: '\uD83D\u0000', want: 'le caractère nul (U+0000)' },
  ];
  for (const c of cases) it(c.name, () => expect(forbiddenCharacter(c.text)).to.equal(c.want));
});

describe('forbiddenCharacterIn', () => {
  const cases: { name: string; args: unknown; want: ReturnType<typeof forbiddenCharacterIn> }[] = [
    { name: 'clean arguments', args: { query: 'toiture', departements: ['29', '2A'], localisation: { dept: '29' }, limit: 5, ouverts: true, x: null }, want: null },
    { name: 'a top-level argument', args: { name: 'ok', query: 'a\u0000' }, want: { path: 'query', what: 'le caractère nul (U+0000)', inName: false } },
    { name: 'an item of a list, by its index', args: { departements: ['29', 'x\uD800'] }, want: { path: 'departements.1', what: 'un demi-caractère UTF-16 isolé (U+D800)', inName: false } },
    { name: 'a nested argument', args: { localisation: { dept: '\u0000' } }, want: { path: 'localisation.dept', what: 'le caractère nul (U+0000)', inName: false } },
    { name: 'the first argument in order', args: { a: '\u0000', b: '\u0000' }, want: { path: 'a', what: 'le caractère nul (U+0000)', inName: false } },
    { name: 'a name', args: { 'a\u0000': 1 }, want: { path: '', what: 'le caractère nul (U+0000)', inName: true } },
    { name: 'a nested name', args: { localisation: { '\uDC00': 1 } }, want: { path: 'localisation', what: 'un demi-caractère UTF-16 isolé (U+DC00)', inName: true } },
    { name: 'a bare string', args: '\u0000', want: { path: '', what: 'le caractère nul (U+0000)', inName: false } },
  ];
  for (const c of cases) it(c.name, () => expect(forbiddenCharacterIn(c.args)).to.deep.equal(c.want));

  it('walks 100,000 levels of nesting without reaching the call stack', () => {
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(forbiddenCharacterIn(deep)?.what).to.equal('le caractère nul (U+0000)');
  });
});

describe('echoed', () => {
  const cases: { name: string; value: string; want: string }[] = [
    { name: 'a short value as is', value: 'referentiels.cpv', want: 'referentiels.cpv' },
    { name: 'exactly 80 characters as is', value: 'x'.repeat(ECHO_LIMIT), want: 'x'.repeat(ECHO_LIMIT) },
    { name: 'a long value cut at 80 characters', value: 'y'.repeat(10_000), want: `${'y'.repeat(80)}…` },
    { name: 'characters counted as code points (no pair split)', value: '🏠'.repeat(100), want: `${'🏠'.repeat(80)}…` },
    { name: 'control characters replaced', value: 'a\u0000b\nc\u0085', want: 'a\uFFFDb\uFFFDc\uFFFD' },
    { name: 'unpaired surrogates replaced', value: 'a\uD83Db\uDE00', want: 'a\uFFFDb\uFFFD' },
  ];
  for (const c of cases) it(c.name, () => expect(echoed(c.value)).to.equal(c.want));
});
