// Tokens the service signs and reads back (download links, export links, acknowledgement
// tokens): a base64url body, a dot, and the HMAC-SHA-256 of the body under a prefix naming
// the token's use, so that a token made for one use never passes for another.
import { createHmac, timingSafeEqual } from 'node:crypto';

const mac = (key: string, prefix: string, body: string) => createHmac('sha256', key).update(`${prefix}${body}`).digest('base64url');

/** `payload` signed for the use `prefix` names. */
export function signToken(key: string, prefix: string, payload: string): string {
  const body = Buffer.from(payload).toString('base64url');
  return `${body}.${mac(key, prefix, body)}`;
}

/** The payload of a token this service signed for this use; null for anything else (too long, malformed, altered). */
export function openToken(key: string, prefix: string, token: string, maxLength: number): string | null {
  if (token.length > maxLength) return null;
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(key, prefix, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  return Buffer.from(body, 'base64url').toString('utf8');
}
