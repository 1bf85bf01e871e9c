// Single-use links of the account e-mails: a random token in the e-mail, its SHA-256 in the
// table; consumed once (a conditional update), refused past its expiry.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../platform/db/database.js';

export type LinkPurpose = 'inscription' | 'reinitialisation' | 'changement_adresse';

export const LINK_TTL_SECONDS: Record<LinkPurpose, number> = { inscription: 24 * 3600, reinitialisation: 3600, changement_adresse: 24 * 3600 };

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const newToken = () => randomBytes(32).toString('base64url');

export interface AccountLink {
  purpose: LinkPurpose;
  userId: string | null;
  email: string;
  payload: Record<string, unknown> | null;
}

export async function createLink(db: Database, link: AccountLink, now: Date): Promise<string> {
  const token = newToken();
  await db('account_links').insert({
    id_hash: hashToken(token),
    purpose: link.purpose,
    user_id: link.userId,
    email: link.email,
    payload: link.payload ? JSON.stringify(link.payload) : null,
    expires_at: Math.floor(now.getTime() / 1000) + LINK_TTL_SECONDS[link.purpose],
    created_at: now.toISOString(),
  });
  return token;
}

/** The link, if it exists for this purpose, unused and unexpired (read only: the GET of a link never consumes it). */
export async function peekLink(db: Database, token: string, purpose: LinkPurpose, now: Date): Promise<AccountLink | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await db('account_links').where({ id_hash: hashToken(token), purpose }).whereNull('used_at').andWhere('expires_at', '>', Math.floor(now.getTime() / 1000)).first();
  if (!row) return null;
  return { purpose, userId: (row.user_id as string | null) ?? null, email: row.email as string, payload: row.payload ? (JSON.parse(row.payload as string) as Record<string, unknown>) : null };
}

/** Uses the link once, in `trx`: null if another request used it first, or it expired. */
export async function consumeLink(trx: Database, token: string, purpose: LinkPurpose, now: Date): Promise<AccountLink | null> {
  const link = await peekLink(trx, token, purpose, now);
  if (!link) return null;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const used = await trx('account_links').where({ id_hash: hashToken(token), purpose }).whereNull('used_at').andWhere('expires_at', '>', nowSeconds).update({ used_at: nowSeconds });
  return used ? link : null;
}
