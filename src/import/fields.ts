// Field readers shared by the importers: identifiers, dates, department codes, stable ids.
import { hash } from 'node:crypto';

export const isSiren = (v: string | undefined): v is string => !!v && /^\d{9}$/.test(v);
export const isSiret = (v: string | undefined): v is string => !!v && /^\d{14}$/.test(v);

/** `YYYY-MM-DD` from `YYYY-MM-DD[…]` or `DD/MM/YYYY`; undefined when empty; null when unreadable. */
export function isoDate(value: string | undefined | null): string | undefined | null {
  const v = (value ?? '').trim();
  if (!v) return undefined;
  let m = /^(\d{4})-(\d{2})-(\d{2})/.exec(v);
  if (m) return validDate(`${m[1]}-${m[2]}-${m[3]}`);
  m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(v);
  if (m) return validDate(`${m[3]}-${m[2]}-${m[1]}`);
  return null;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `YYYY-MM-DD` if that day exists in the (proleptic) Gregorian calendar, else null. */
function validDate(iso: string): string | null {
  const year = Number(iso.slice(0, 4));
  const month = Number(iso.slice(5, 7));
  const day = Number(iso.slice(8, 10));
  if (month < 1 || month > 12 || day < 1) return null;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number)) ? iso : null;
}

/** The department of an INSEE commune code (2A/2B in Corsica, 3 digits overseas). */
export function departementOfCommune(code: string | undefined | null): string | null {
  const c = (code ?? '').trim().toUpperCase();
  if (!/^(\d{5}|2[AB]\d{3})$/.test(c)) return null;
  if (c.startsWith('97')) return c.slice(0, 3);
  return c.slice(0, 2);
}

/** The department of a postal code (Corsica 20xxx: 2A below 20200, else 2B). */
export function departementOfPostalCode(code: string | undefined | null): string | null {
  const c = (code ?? '').trim();
  if (!/^\d{5}$/.test(c)) return null;
  if (c.startsWith('97')) return c.slice(0, 3);
  if (c.startsWith('20')) return Number(c) < 20200 ? '2A' : '2B';
  return c.slice(0, 2);
}

/** A stable UUID (version-5 layout) from a name: a re-import keeps the same id. */
export function stableUuid(name: string): string {
  // The one-shot hash, in hex, with the version and variant set on its digits: the same id as
  // setting them on the digest's bytes, without a Hash object and a Buffer per record.
  const x = hash('sha1', name, 'hex');
  const variant = ((parseInt(x.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-5${x.slice(13, 16)}-${variant}${x.slice(17, 20)}-${x.slice(20, 32)}`;
}
