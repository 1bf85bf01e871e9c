// Folds French text for matching: lower case, no accents, ligatures spelled out, any
// punctuation a space. Stored beside the text at write time so SQLite and PostgreSQL
// match the same way with a plain LIKE.

export function foldText(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/œ/g, 'oe')
    .replace(/æ/g, 'ae')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The words of a user query, folded; empty words dropped. */
export function foldedWords(query: string): string[] {
  return foldText(query).split(' ').filter(Boolean);
}

/** A LIKE pattern matching the word anywhere, with LIKE's wildcards escaped. */
export function containsPattern(word: string): string {
  return `%${word.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
