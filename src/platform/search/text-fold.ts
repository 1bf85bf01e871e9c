// Folds French text for matching: lower case, no accents, ligatures spelled out, any
// punctuation a space. Stored beside the text at write time, so every search folds alike.

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
