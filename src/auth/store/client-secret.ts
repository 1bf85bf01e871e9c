// Confidential clients' secrets at rest: only a SHA-256 of the secret is stored, so a copy
// of the database authenticates no client. The secrets are the authorization server's own
// (64 random bytes, never chosen by the client), so a fast hash is enough, as for tokens.
import { createHash, timingSafeEqual } from 'node:crypto';

const PREFIX = 'sha256:';

export function hashClientSecret(secret: string): string {
  return PREFIX + createHash('sha256').update(secret).digest('base64url');
}

export function isHashedClientSecret(value: unknown): value is string {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

/** Whether `presented` is the secret whose hash is `stored`; a stored secret that is not a hash matches nothing. */
export function clientSecretMatches(stored: unknown, presented: unknown): boolean {
  if (!isHashedClientSecret(stored) || typeof presented !== 'string') return false;
  const expected = Buffer.from(stored);
  const actual = Buffer.from(hashClientSecret(presented));
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
