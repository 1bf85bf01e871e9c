// Acknowledgement tokens of polled events: the subscription and the event's seq, signed with
// the service's key (HMAC-SHA-256), so a token acknowledges that event of that subscription
// only, and an altered one is refused. Deterministic: the same event polled twice gives the
// same token (REST and MCP answer alike).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const ACK_TOKEN_MAX_LENGTH = 512;

const mac = (key: string, body: string) => createHmac('sha256', key).update(`ack:${body}`).digest('base64url');
const BODY = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([1-9][0-9]{0,15})$/;

export function signAckToken(key: string, subscriptionId: string, seq: number): string {
  const body = Buffer.from(`${subscriptionId}:${seq}`).toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The subscription and the seq a token acknowledges, or null when it is not one of ours. */
export function verifyAckToken(key: string, token: string): { subscriptionId: string; seq: number } | null {
  if (token.length > ACK_TOKEN_MAX_LENGTH) return null;
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(key, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const parsed = BODY.exec(Buffer.from(body, 'base64url').toString('utf8'));
  if (!parsed) return null;
  return { subscriptionId: parsed[1] as string, seq: Number(parsed[2]) };
}
