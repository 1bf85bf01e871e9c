// The temporary download links of consultation files: `{base_url}/dce/telechargement/<token>`,
// the token carrying the account, the file, the piece (or the whole archive) and the expiry,
// signed with the service's key (HMAC-SHA-256). A link is not a durable citation: it expires
// (10 minutes by default), and the access log never writes its path.
import { openToken, signToken } from '../../platform/signed-tokens.js';

export const DCE_LINK_TTL_SECONDS = 600;
export const DCE_LINK_PATH = '/dce/telechargement/';

export interface DceLink {
  /** The account the link was given to. */
  account: string;
  dce: string;
  /** The piece's position, or null for the whole archive. */
  piece: number | null;
  /** Expiry, seconds since the epoch. */
  expires: number;
}

// Signed with no use prefix (the first signed tokens of the service: their form is kept).
const USE = '';

export function signLink(key: string, link: DceLink): string {
  return signToken(key, USE, JSON.stringify([link.account, link.dce, link.piece, link.expires]));
}

/** The link's content, or why it is refused: `forged` (bad form or signature), `expired`. */
export function verifyLink(key: string, token: string, nowMs: number): DceLink | 'forged' | 'expired' {
  const payload = openToken(key, USE, token, 1000);
  if (payload === null) return 'forged';
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return 'forged';
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) return 'forged';
  const [account, dce, piece, expires] = parsed as [unknown, unknown, unknown, unknown];
  if (typeof account !== 'string' || typeof dce !== 'string' || !(piece === null || Number.isInteger(piece)) || !Number.isInteger(expires)) return 'forged';
  if ((expires as number) * 1000 <= nowMs) return 'expired';
  return { account, dce, piece: piece as number | null, expires: expires as number };
}
