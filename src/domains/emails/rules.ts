// What a message may hold, checked before anything is recorded: addresses the caller gives
// (validated, no display names), subjects without line breaks (header injection), the
// limits against abuse. Messages are plain text: no HTML, no tracking, no hidden links.
import { InvalidArgumentsError } from '../../errors.js';

/** Recipients (to and copy together) of one message. */
export const MAX_RECIPIENTS = 20;
/** Messages recorded per organisation and clock hour (UTC), replays of a key excluded. */
export const MAX_MESSAGES_PER_HOUR = 100;
export const MAX_SUBJECT_CHARS = 200;
export const MAX_TEXT_CHARS = 100_000;
/** Total size of the attachments of one message, checked when the send is recorded. */
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** A message not delivered within this delay is given up (`echec`): an old outbox is never sent late. */
export const DELIVERY_WINDOW_MS = 24 * 3600 * 1000;
/** Delivery attempts before `echec` (temporary refusals and network failures only). */
export const MAX_ATTEMPTS = 5;

const LABEL = '(?!-)[a-z0-9-]{1,63}(?<!-)';
const HOSTNAME = new RegExp(`^(?:${LABEL}\\.)+[a-z]{2,63}$`);
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/i;

/** A domain name as DNS knows it (lower case; an internationalised name in its xn-- form). */
export function isHostname(value: string): boolean {
  return value.length <= 253 && HOSTNAME.test(value);
}

/** A bare address local@domain; null when it is not one. */
export function normaliseAddress(value: string): string | null {
  const at = value.lastIndexOf('@');
  if (at <= 0 || value.length > 254) return null;
  const local = value.slice(0, at);
  const domain = value.slice(at + 1).toLowerCase();
  if (local.length > 64 || !LOCAL_PART.test(local) || !isHostname(domain)) return null;
  return `${local}@${domain}`;
}

/** The addresses, checked one by one (the message names the first bad one) and deduplicated. */
export function checkAddresses(to: readonly string[], cc: readonly string[]): { to: string[]; cc: string[] } {
  const seen = new Set<string>();
  const pass = (list: readonly string[], argument: string): string[] => {
    const out: string[] = [];
    list.forEach((raw, i) => {
      const address = normaliseAddress(raw.trim());
      if (!address)
        throw new InvalidArgumentsError(`L'argument « ${argument}[${i}] » n'est pas une adresse électronique valide (forme nom@domaine.fr, sans nom affiché ni retour à la ligne).`);
      if (seen.has(address.toLowerCase())) return;
      seen.add(address.toLowerCase());
      out.push(address);
    });
    return out;
  };
  const out = { to: pass(to, 'destinataires'), cc: pass(cc, 'copie') };
  if (out.to.length + out.cc.length > MAX_RECIPIENTS)
    throw new InvalidArgumentsError(`Trop de destinataires : ${MAX_RECIPIENTS} au plus par message, destinataires et copie réunis.`);
  return out;
}

/** Line breaks and other control characters would start a new header (injection). */
// eslint-disable-next-line no-control-regex
const HEADER_UNSAFE = /[\u0000-\u001f\u007f\u0085\u2028\u2029]/;

export function checkSubject(subject: string, argument: string): string {
  if (HEADER_UNSAFE.test(subject))
    throw new InvalidArgumentsError(`L'argument « ${argument} » contient un retour à la ligne ou un caractère de contrôle : refusé (il pourrait injecter un en-tête).`);
  const trimmed = subject.trim();
  if (!trimmed) throw new InvalidArgumentsError(`L'argument « ${argument} » est vide : un objet est nécessaire.`);
  if (trimmed.length > MAX_SUBJECT_CHARS) throw new InvalidArgumentsError(`L'argument « ${argument} » dépasse ${MAX_SUBJECT_CHARS} caractères.`);
  return trimmed;
}

/** A display name put in From (the organisation's name): never able to break a header. */
export function safeDisplayName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f\u0085\u2028\u2029]+/g, ' ').trim().slice(0, 150);
}

/** Text bodies: line breaks and tabs allowed, other control characters refused. */
export function checkText(text: string, argument: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text))
    throw new InvalidArgumentsError(`L'argument « ${argument} » contient un caractère de contrôle : seuls les retours à la ligne et les tabulations sont admis.`);
  if (!text.trim()) throw new InvalidArgumentsError(`L'argument « ${argument} » est vide : le message a besoin d'un texte.`);
  if (text.length > MAX_TEXT_CHARS) throw new InvalidArgumentsError(`L'argument « ${argument} » dépasse ${MAX_TEXT_CHARS} caractères.`);
  return text;
}
