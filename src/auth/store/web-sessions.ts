// Signed-in sessions of the account settings pages; the cookie holds a random id, the
// table its hash.
import { createHash, randomBytes } from 'node:crypto';
import type { Database } from '../../platform/db/database.js';

const hash = (id: string) => createHash('sha256').update(id).digest('hex');
export const WEB_SESSION_SECONDS = 8 * 3600;

export async function openWebSession(db: Database, userId: string, now: Date): Promise<string> {
  const id = randomBytes(32).toString('base64url');
  await db('web_sessions').insert({ id_hash: hash(id), user_id: userId, expires_at: Math.floor(now.getTime() / 1000) + WEB_SESSION_SECONDS });
  return id;
}

export async function webSessionUser(db: Database, id: string | undefined, now: Date): Promise<string | null> {
  if (!id) return null;
  const row = await db('web_sessions').where({ id_hash: hash(id) }).first('user_id', 'expires_at');
  if (!row || Number(row.expires_at) <= Math.floor(now.getTime() / 1000)) return null;
  return row.user_id as string;
}

export async function closeWebSession(db: Database, id: string | undefined): Promise<void> {
  if (id) await db('web_sessions').where({ id_hash: hash(id) }).delete();
}
