// Rows of the sign-in and OAuth storage that nothing reads any more: oidc-provider's models
// past their expiry (codes, access and refresh tokens, sessions, interactions, grants; a
// model without expiry, a registered client, is kept), web sessions past theirs, and sign-in
// failures older than the throttle's window. Each lookup already ignores them; without a
// sweep the tables only grow (an access token an hour per client, a session per sign-in).
import type { Database } from '../../platform/db/database.js';
import { LOGIN_FAILURE_WINDOW_SECONDS } from './login-throttle.js';
import { blankOldAddresses } from './activity-log.js';

/** Rows deleted per statement: each delete holds the write lock briefly, other writers get through between them. */
export const PURGE_BATCH = 500;

export interface PurgedRows {
  oauth: number;
  webSessions: number;
  loginFailures: number;
  /** Account links past their expiry (a day after, so a late click still says « expiré »). */
  accountLinks: number;
  /** Invitations expired, accepted or revoked more than 7 days ago. */
  invitations: number;
  /** Account e-mails older than 7 days (their links are dead by then). */
  accountEmails: number;
  /** Full addresses of the activity log older than 30 days, blanked. */
  activityAddresses: number;
}

/** Account e-mails and closed invitations are kept this long. */
const ACCOUNT_MAIL_DAYS = 7;

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
  const accountLinks = await purgeTable(db, 'account_links', ['id_hash'], (q) => q.where('expires_at', '<', nowSeconds - 86_400));
  const weekAgo = new Date(now.getTime() - ACCOUNT_MAIL_DAYS * 86_400_000);
  const invitations = await purgeTable(db, 'invitations', ['id'], (q) =>
    q.where((w) => w.where('expires_at', '<', Math.floor(weekAgo.getTime() / 1000)).orWhere('accepted_at', '<', weekAgo.toISOString()).orWhere('revoked_at', '<', weekAgo.toISOString())),
  );
  const accountEmails = await purgeTable(db, 'email_messages', ['id'], (q) => q.where('purpose', 'compte').andWhere('created_at', '<', weekAgo.toISOString()));
  const activityAddresses = await blankOldAddresses(db, now);
  return { oauth, webSessions, loginFailures, accountLinks, invitations, accountEmails, activityAddresses };
}
