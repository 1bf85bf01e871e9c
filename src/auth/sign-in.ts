// Checks e-mail and password for the login pages (OAuth and account settings): throttled,
// and a failure never says which of the two was wrong.
import { findUserByEmail } from './store/accounts.js';
import type { Database } from '../platform/db/database.js';
import { clearLoginFailures, loginDelay, recordLoginFailure } from './store/login-throttle.js';
import { DUMMY_HASH, verifyPassword } from '../platform/passwords.js';
import { recordActivity } from './store/activity-log.js';

async function organisationOf(db: Database, userId: string): Promise<string | null> {
  const row = await db('memberships').where('user_id', userId).first('organisation_id');
  return (row?.organisation_id as string | undefined) ?? null;
}

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
    if (user) await recordActivity(db, { organisationId: await organisationOf(db, user.id), actorId: user.id, kind: 'connexion_echouee', ip: clientAddress }, now);
    return { ok: false, message: WRONG_CREDENTIALS };
  }
  // Only the e-mail's count: the address's failures on other e-mails still count.
  await clearLoginFailures(db, [`email:${normalised}`]);
  await db('users').where('id', user.id).update({ last_sign_in_at: now.toISOString() });
  await recordActivity(db, { organisationId: await organisationOf(db, user.id), actorId: user.id, kind: 'connexion', ip: clientAddress }, now);
  return { ok: true, userId: user.id };
}

/**
 * The password of a signed-in account, asked again before a sensitive change (address,
 * password, leaving, deletion): under the same throttle as the sign-in, a failure counted.
 */
export async function confirmPassword(db: Database, userId: string, password: string, clientAddress: string, now: Date): Promise<SignInResult> {
  const user = await db('users').where('id', userId).first('email', 'password_hash');
  if (!user) return { ok: false, message: WRONG_CREDENTIALS };
  const keys = [`email:${user.email as string}`, `ip:${clientAddress}`];
  const wait = await loginDelay(db, keys, now);
  if (wait > 0) return { ok: false, message: `Trop de tentatives échouées : réessayer dans ${wait} secondes.` };
  if (!(await verifyPassword(password || ' ', user.password_hash as string))) {
    await recordLoginFailure(db, keys, now);
    return { ok: false, message: 'Mot de passe actuel incorrect.' };
  }
  return { ok: true, userId };
}
