// Reading URL-encoded forms and protecting them against CSRF.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { readRawBody } from '../platform/read-body.js';

export async function readForm(ctx: Context): Promise<URLSearchParams> {
  const raw = await readRawBody(ctx.req, { bodyBytes: 64 * 1024, bodyTimeoutMs: 30_000 });
  return new URLSearchParams(raw.toString('utf8'));
}

/** A token bound to a value the attacker cannot know (interaction uid, session id). */
export function csrfToken(key: string, boundTo: string): string {
  return createHmac('sha256', key).update(boundTo).digest('base64url');
}

export function csrfValid(key: string, boundTo: string, presented: string | null): boolean {
  if (!presented) return false;
  const expected = Buffer.from(csrfToken(key, boundTo));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
