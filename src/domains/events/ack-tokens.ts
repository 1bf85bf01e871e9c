// Acknowledgement tokens of polled events: the subscription and the event's seq, signed with
// the service's key (HMAC-SHA-256), so a token acknowledges that event of that subscription
// only, and an altered one is refused. Deterministic: the same event polled twice gives the
// same token (REST and MCP answer alike).
import { openToken, signToken } from '../../platform/signed-tokens.js';

export const ACK_TOKEN_MAX_LENGTH = 512;

const USE = 'ack:';
const BODY = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}):([1-9][0-9]{0,15})$/;

export function signAckToken(key: string, subscriptionId: string, seq: number): string {
  return signToken(key, USE, `${subscriptionId}:${seq}`);
}

/** The subscription and the seq a token acknowledges, or null when it is not one of ours. */
export function verifyAckToken(key: string, token: string): { subscriptionId: string; seq: number } | null {
  const payload = openToken(key, USE, token, ACK_TOKEN_MAX_LENGTH);
  const parsed = payload === null ? null : BODY.exec(payload);
  if (!parsed) return null;
  return { subscriptionId: parsed[1] as string, seq: Number(parsed[2]) };
}
