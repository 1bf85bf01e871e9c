// Small text helpers shared by the generator and the help tools.

/** Collapses white space, as YAML folded text leaves it. */
export function flatten(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The first sentence: up to a full stop followed by a capital (so "rév. 2" does not end it). */
export function firstSentence(text: string): string {
  const flat = flatten(text);
  const end = flat.search(/\.\s+(?=[A-ZÀ-ÖØ-Ý«])/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

/** Code-point order, the same on every machine (localeCompare depends on the locale). */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
