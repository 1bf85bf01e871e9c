// Dates as the record pages write them, in words: « 14 septembre 2026 », « 1er mars 2026 »,
// « 13 octobre 2026 à 12 h 00 ». The answers carry days (`AAAA-MM-JJ`) and moments already in
// Paris time with their offset: the wall clock is read from the text, never recomputed.

const MONTHS = ['janvier', 'février', 'mars', 'avril', 'mai', 'juin', 'juillet', 'août', 'septembre', 'octobre', 'novembre', 'décembre'];

/** « 14 septembre 2026 » from `2026-09-14` (or a moment starting with it); the text as is when it is no date. */
export function longDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})/.exec(iso);
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  if (!m || !month) return iso;
  const day = Number(m[3]);
  return `${day === 1 ? '1er' : day} ${month} ${m[1]}`;
}

/** « 13 octobre 2026 à 12 h 00 » from a moment in Paris time; the day alone when it has no time. */
export function longDateTime(iso: string): string {
  const m = /^\d{4}-\d{2}-\d{2}T(\d{2}):(\d{2})/.exec(iso);
  return m ? `${longDate(iso)} à ${Number(m[1])} h ${m[2]}` : longDate(iso);
}

/** « octobre 2026 » from `2026-10`. */
export function monthYear(iso: string): string {
  const m = /^(\d{4})-(\d{2})/.exec(iso);
  const month = m ? MONTHS[Number(m[2]) - 1] : undefined;
  return m && month ? `${month} ${m[1]}` : iso;
}
