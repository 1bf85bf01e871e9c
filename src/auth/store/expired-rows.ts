// Rows of the sign-in and OAuth storage that nothing reads any more: oidc-provider's models
// past their expiry (codes, access and refresh tokens, sessions, interactions, grants; a
// model without expiry, a registered client, is kept), web sessions past theirs, and sign-in
// failures older than the throttle's window. Each lookup already ignores them; without a
// sweep the tables only grow (an access token an hour per client, a session per sign-in).
import type { Database } from '../../platform/db/database.js';
import { LOGIN_FAILURE_WINDOW_SECONDS } from './login-throttle.js';

/** Rows deleted per statement: each delete holds the write lock briefly, other writers get through between them. */
export const PURGE_BATCH = 500;

export interface PurgedRows {
  oauth: number;
  webSessions: number;
  loginFailures: number;
}

/**
 * Deletes `table`'s rows that `expired` selects, by their key, a batch at a time, until a
 * batch comes back short. The delete repeats the condition: a row renewed between the two
 * statements stays.
 */
async function purgeTable(db: Database, table: string, keys: readonly string[], expired: (q: ReturnType<Database>) => ReturnType<Database>): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = (await expired(db(table).select(...keys)).limit(PURGE_BATCH)) as Record<string, unknown>[];
    if (!rows.length) return total;
    const values = rows.map((r) => keys.map((k) => r[k]));
    const deleted = await expired(keys.length === 1 ? db(table).whereIn(keys[0] as string, values.map((v) => v[0]) as string[]) : db(table).whereIn(keys as string[], values as never)).delete();
    total += deleted;
    if (rows.length < PURGE_BATCH) return total;
  }
}

/** Deletes what expired before `now`; returns the counts per table. */
export async function purgeExpiredAuthRows(db: Database, now: Date): Promise<PurgedRows> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const oauth = await purgeTable(db, 'oauth_store', ['model', 'id_hash'], (q) => q.whereNotNull('expires_at').andWhere('expires_at', '<=', nowSeconds));
  const webSessions = await purgeTable(db, 'web_sessions', ['id_hash'], (q) => q.where('expires_at', '<=', nowSeconds));
  const loginFailures = await purgeTable(db, 'login_failures', ['key'], (q) => q.where('last_at', '<', nowSeconds - LOGIN_FAILURE_WINDOW_SECONDS));
  return { oauth, webSessions, loginFailures };
}
