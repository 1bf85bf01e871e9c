// Checks e-mail and password for the login pages (OAuth and account settings): throttled,
// and a failure never says which of the two was wrong.
import { findUserByEmail } from './store/accounts.js';
import type { Database } from '../platform/db/database.js';
import { clearLoginFailures, loginDelay, recordLoginFailure } from './store/login-throttle.js';
import { DUMMY_HASH, verifyPassword } from '../platform/passwords.js';

export type SignInResult = { ok: true; userId: string } | { ok: false; message: string };

export const WRONG_CREDENTIALS = 'Adresse électronique ou mot de passe incorrect.';

export async function signIn(db: Database, email: string, password: string, clientAddress: string, now: Date): Promise<SignInResult> {
  const normalised = email.trim().toLowerCase();
  const keys = [`email:${normalised}`, `ip:${clientAddress}`];
  const wait = await loginDelay(db, keys, now);
  if (wait > 0) return { ok: false, message: `Trop de tentatives échouées : réessayer dans ${wait} secondes.` };
  const user = normalised && password ? await findUserByEmail(db, normalised) : undefined;
  // Hash even when the e-mail is unknown, so the answer takes as long either way.
  const valid = await verifyPassword(password || ' ', user?.password_hash ?? DUMMY_HASH);
  if (!user || !valid) {
    await recordLoginFailure(db, keys, now);
    return { ok: false, message: WRONG_CREDENTIALS };
  }
  // Only the e-mail's count: the address's failures on other e-mails still count.
  await clearLoginFailures(db, [`email:${normalised}`]);
  return { ok: true, userId: user.id };
}
