// Reading pages of about 8,000 characters are cut at a paragraph, else a line, else between words, never inside a word; every character of the text is on exactly one page; a scanned page is said.
import { expect } from 'chai';
import { documentText, readingPages, READING_PAGE_CHARS, scannedPageText } from '../../../src/platform/extract/reading-pages.js';

/** Every word of the text, in order, from pages or from the text itself. */
const words = (s: string) => s.split(/\s+/).filter(Boolean);

describe('reading pages', () => {
  const cases: { given: string; text: string; size: number; want: string[] }[] = [
    { given: 'an empty text: one empty page', text: '', size: 10, want: [''] },
    { given: 'a short text: one page', text: 'Lot 1', size: 10, want: ['Lot 1'] },
    { given: 'a paragraph boundary in the second half', text: 'aaaa bbbb\n\ncccc dddd', size: 14, want: ['aaaa bbbb', 'cccc dddd'] },
    { given: 'a paragraph boundary too early: the line end after it', text: 'aa\n\nbbbbbbbbbb\ncccc', size: 14, want: ['aa\n\nbbbbbbbbbb', 'cccc'] },
    { given: 'no line end: between two words', text: 'toiture ardoise zinc plomb', size: 12, want: ['toiture', 'ardoise zinc', 'plomb'] },
    { given: 'the page ends just before a space', text: 'abcde fghij', size: 5, want: ['abcde', 'fghij'] },
    { given: 'one word longer than a page: cut at the size', text: 'abcdefghij', size: 4, want: ['abcd', 'efgh', 'ij'] },
  ];
  for (const c of cases) {
    it(c.given, () => {
      expect(readingPages(c.text, c.size)).to.deep.equal(c.want);
    });
  }

  it('keeps every word once and in order on a long document, each page at most the size, none cut', () => {
    const paragraph = (i: number) => `Article ${i}. ` + 'Les travaux de couverture comprennent la dépose, le traitement des bois et la pose des ardoises. '.repeat(1 + (i % 7));
    const text = Array.from({ length: 400 }, (_, i) => paragraph(i)).join('\n\n');
    const pages = readingPages(text);
    expect(pages.length).to.be.greaterThan(10);
    for (const p of pages) expect(p.length).to.be.at.most(READING_PAGE_CHARS);
    // Most pages are nearly full: at least half the size.
    for (const p of pages.slice(0, -1)) expect(p.length).to.be.at.least(READING_PAGE_CHARS / 2);
    expect(words(pages.join(' '))).to.deep.equal(words(text));
    // Cut at paragraph ends: every page but the last ends a paragraph (a sentence's full stop and space).
    for (const p of pages.slice(0, -1)) expect(p).to.match(/ardoises\.$/);
  });

  it('says a scanned page, leaves blank pages out, keeps the order', () => {
    const text = documentText([
      { text: 'Page une', scanned: false },
      { text: '', scanned: true },
      { text: '', scanned: false },
      { text: 'Page quatre', scanned: false },
    ]);
    expect(text).to.equal(`Page une\n\n${scannedPageText(2)}\n\nPage quatre`);
    expect(scannedPageText(2)).to.equal('[Page 2 : page numérisée, texte non disponible]');
  });
});
