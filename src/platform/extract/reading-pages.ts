// Reading pages of about 8,000 characters (the spec's « page de lecture »), cut at a
// paragraph boundary when there is one in the second half of the page, else at a line end,
// else between two words: never inside a word (unless a "word" is longer than a page).
import type { SourcePage } from './document-text.js';

export const READING_PAGE_CHARS = 8000;

/** What a scanned page reads as: said, never invented. */
export const scannedPageText = (n: number) => `[Page ${n} : page numérisée, texte non disponible]`;

/** The document's text: its pages in order, a scanned one said as such, blank ones left out. */
export function documentText(pages: readonly SourcePage[]): string {
  const parts: string[] = [];
  pages.forEach((p, i) => {
    if (p.scanned) parts.push(scannedPageText(i + 1));
    else if (p.text) parts.push(p.text);
  });
  return parts.join('\n\n');
}

/** Where to end a page starting at `start`: the best boundary at most `size` characters on. */
function pageEnd(text: string, start: number, size: number): number {
  const limit = start + size;
  if (text.length <= limit) return text.length;
  const floor = start + Math.floor(size / 2);
  const window = text.slice(start, limit);
  for (const boundary of ['\n\n', '\n']) {
    const at = window.lastIndexOf(boundary);
    if (at >= 0 && start + at >= floor) return start + at + boundary.length;
  }
  // The page's end is between two words when the next character is a space.
  if (/\s/.test(text[limit] as string)) return limit;
  const space = window.search(/\s\S*$/);
  if (space > 0) return start + space + 1;
  return limit;
}

/** The text cut into reading pages (at least one, possibly empty). */
export function readingPages(text: string, size = READING_PAGE_CHARS): string[] {
  const pages: string[] = [];
  let start = 0;
  while (start < text.length) {
    const end = pageEnd(text, start, size);
    pages.push(text.slice(start, end).trim());
    start = end;
    while (start < text.length && /\s/.test(text[start] as string)) start++;
  }
  return pages.length ? pages : [''];
}
