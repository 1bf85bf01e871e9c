// Slows down repeated sign-in failures, per e-mail and per client address, in the database
// so every server process sees the same count. The same counts limit the other account
// requests (sign-up, password reset, invitations): their keys name the request
// (`inscription:ip:…`, `reinitialisation:email:…`), and every request counts.
import type { Database } from '../../platform/db/database.js';

/**
 * Failures allowed before waiting, then the wait doubles from 30 s up to 15 min: 5 per
 * e-mail, 20 per client address (several people may sign in from one address).
 */
const FREE_FAILURES = { email: 5, ip: 20 };
const FIRST_WAIT_SECONDS = 30;
const MAX_WAIT_SECONDS = 15 * 60;
/** Failures older than this are forgotten (and purged with the other expired rows). */
export const LOGIN_FAILURE_WINDOW_SECONDS = 30 * 60;

/** The requests counted apart from sign-in failures; their keys are `<request>:ip:…` or `<request>:email:…`. */
export const THROTTLED_REQUESTS = ['inscription', 'reinitialisation', 'adresse', 'invitation'] as const;
const ADDRESS_KEY = new RegExp(`^(?:(?:${THROTTLED_REQUESTS.join('|')}):)?ip:`);

export function waitSeconds(key: string, count: number): number {
  const free = ADDRESS_KEY.test(key) ? FREE_FAILURES.ip : FREE_FAILURES.email;
  if (count < free) return 0;
  return Math.min(FIRST_WAIT_SECONDS * 2 ** (count - free), MAX_WAIT_SECONDS);
}

/** Seconds to wait before the next attempt for these keys (0: go ahead). */
export async function loginDelay(db: Database, keys: string[], now: Date): Promise<number> {
  const rows = await db('login_failures').whereIn('key', keys).select('key', 'count', 'last_at');
  const nowSec = Math.floor(now.getTime() / 1000);
  let wait = 0;
  for (const r of rows) {
    const last = Number(r.last_at);
    if (nowSec - last > LOGIN_FAILURE_WINDOW_SECONDS) continue;
    wait = Math.max(wait, last + waitSeconds(r.key as string, Number(r.count)) - nowSec);
  }
  return Math.max(0, wait);
}

export async function recordLoginFailure(db: Database, keys: string[], now: Date): Promise<void> {
  const nowSec = Math.floor(now.getTime() / 1000);
  await db.transaction(async (trx) => {
    for (const key of keys) {
      const row = await trx('login_failures').where({ key }).first('count', 'last_at');
      const count = row && nowSec - Number(row.last_at) <= LOGIN_FAILURE_WINDOW_SECONDS ? Number(row.count) + 1 : 1;
      await trx('login_failures').insert({ key, count, last_at: nowSec }).onConflict('key').merge();
    }
  });
}

export async function clearLoginFailures(db: Database, keys: string[]): Promise<void> {
  await db('login_failures').whereIn('key', keys).delete();
}

/**
 * An account request (sign-up, reset, invitation) under the sign-in throttle: the seconds to
 * wait if these keys are over their allowance (nothing counted), else 0 and the request counted.
 */
export async function admitRequest(db: Database, keys: string[], now: Date): Promise<number> {
  const wait = await loginDelay(db, keys, now);
  if (wait > 0) return wait;
  await recordLoginFailure(db, keys, now);
  return 0;
}
