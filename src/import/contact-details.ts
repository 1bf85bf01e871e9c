// Contact details (telephone numbers, e-mail addresses, web addresses) in the records of a
// source or in a document's text: found, masked (or removed) in texts, or dropped with their
// key, and counted, so that none is ever stored or answered. The one place that knows what a
// contact detail looks like: the importers say which keys are contact keys and which are
// texts; the consultation files' text goes through the same masking.

/** The import's note for each contact detail taken out of a record kept (see `Mapped`). */
export const CONTACT_DETAIL_NOTE = 'coordonnée (téléphone, courriel ou adresse web) supprimée ou masquée, jamais enregistrée';

/** One note per contact detail taken out, so that the summary counts the details themselves. */
export const contactNotes = (n: number): string[] => Array.from({ length: n }, () => CONTACT_DETAIL_NOTE);

/** What a masked contact detail becomes in a text. */
export const MASK = '[coordonnée masquée]';

const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
// French numbers (0X XX XX XX XX with spaces, dots or hyphens; +33 or 0033, with or without
// the (0)), and other international numbers of 8 digits or more after a `+`.
const PHONE = /(?:(?:\+|00)33\s?(?:\(0\)\s?)?|\b0)[1-9](?:[\s.-]?\d{2}){4}\b|\+\d{1,3}(?:[\s.-]?\d){8,14}\b/g;
// A web address ends before the punctuation that follows it in a sentence (« www.x.fr, tél »).
const WEB = /\b(?:https?:\/\/|www\.)[^\s"'<>]*[^\s"'<>.,;:!?)\]»]/gi;
const PATTERNS = [EMAIL, WEB, PHONE];
const TESTS = PATTERNS.map((p) => new RegExp(p.source, p.flags.replace('g', '')));

/** The text with every contact detail replaced by `replacement` (the mask, or '' to remove them), and how many were. */
export function maskContactDetails(text: string, replacement: string = MASK): { text: string; masked: number } {
  let masked = 0;
  let out = text;
  for (const pattern of PATTERNS) {
    out = out.replace(pattern, () => {
      masked += 1;
      return replacement;
    });
  }
  return { text: out, masked };
}

/** Whether a value (a string, or strings inside a list or an object) holds a contact detail. */
export function holdsContactDetail(value: unknown): boolean {
  if (typeof value === 'string') return TESTS.some((p) => p.test(value));
  // A telephone number written as a JSON number (its leading 0 lost): 9 to 15 digits.
  if (typeof value === 'number') return /^\d{9,15}$/.test(String(value));
  if (Array.isArray(value)) return value.some(holdsContactDetail);
  if (value && typeof value === 'object') return Object.values(value).some(holdsContactDetail);
  return false;
}

const filled = (v: unknown) => v !== null && v !== undefined && v !== '';

/**
 * A record with its contact details taken out: the `contactKeys` dropped (counted when
 * filled), any key outside `knownKeys` whose value holds a contact detail dropped (counted),
 * and contact details inside the string values of `textKeys` masked (each counted). The
 * other keys are left for the format's validation. The record is not changed; a copy is
 * returned when something was taken out.
 */
export function withoutContactDetails(
  record: Record<string, unknown>,
  keys: { contactKeys: ReadonlySet<string>; knownKeys: ReadonlySet<string>; textKeys: ReadonlySet<string> },
): { record: Record<string, unknown>; dropped: number } {
  let dropped = 0;
  let out: Record<string, unknown> | null = null;
  const copy = () => (out ??= { ...record });
  for (const [key, value] of Object.entries(record)) {
    if (keys.contactKeys.has(key)) {
      if (filled(value)) dropped += 1;
      delete copy()[key];
    } else if (!keys.knownKeys.has(key)) {
      if (holdsContactDetail(value)) {
        dropped += 1;
        delete copy()[key];
      }
    } else if (keys.textKeys.has(key) && typeof value === 'string') {
      const { text, masked } = maskContactDetails(value);
      if (masked) {
        dropped += masked;
        copy()[key] = text;
      }
    }
  }
  return { record: out ?? record, dropped };
}
