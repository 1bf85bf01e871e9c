// Deleting an account (GDPR art. 17) and deleting an organisation once its grace period is
// over. The account's personal data goes: the account, its sessions, tokens and grants, its
// quota counters, its sign-in failures, its pending links and invitations, the account
// e-mails sent to it, the full addresses of its activity; what it wrote in the shared
// workspace stays the organisation's, its authorship shown as « compte supprimé ».
import type { Database } from '../../platform/db/database.js';
import { kindOf } from '../../platform/db/database.js';
import { lockForWrite } from '../../platform/db/busy.js';

/** The author of what a deleted account wrote. */
export const DELETED_AUTHOR = 'compte supprimé';

/** Columns naming the account that wrote a shared object. */
const AUTHORSHIP: readonly [table: string, column: string][] = [
  ['alerts', 'created_by'],
  ['event_subscriptions', 'created_by'],
  ['follow_ups', 'created_by'],
  ['follow_ups', 'updated_by'],
  ['drafts', 'created_by'],
  ['drafts', 'updated_by'],
  ['draft_versions', 'written_by'],
  ['response_files', 'created_by'],
  ['response_files', 'updated_by'],
  ['response_file_documents', 'created_by'],
  ['email_messages', 'created_by'],
  ['email_domains', 'created_by'],
  ['subscription_requests', 'requested_by'],
  ['subscription_requests', 'confirmed_by'],
  ['invitations', 'invited_by'],
];

export type ErasureOutcome = { kind: 'erased'; email: string; organisationId: string | null; organisationDue: boolean } | { kind: 'not_found' } | { kind: 'last_admin' };

/**
 * Erases the account in one transaction. The last administrator of an organisation that
 * has other members is refused (another must be named first); the last member's
 * organisation is due for deletion after the grace period.
 */
export async function eraseAccount(db: Database, userId: string, now: Date, graceDays: number): Promise<ErasureOutcome> {
  return db.transaction(async (trx) => {
    // Reads then writes: SQLite's lock first (another writer's commit in between would fail the write).
    await lockForWrite(trx);
    const user = await trx('users').where('id', userId).first('email');
    if (!user) return { kind: 'not_found' } as const;
    const email = user.email as string;
    const membership = await trx('memberships').where('user_id', userId).first('organisation_id', 'role');
    let organisationId: string | null = null;
    let organisationDue = false;
    if (membership) {
      organisationId = membership.organisation_id as string;
      const q = trx('memberships').where('organisation_id', organisationId).select('user_id', 'role');
      const members = (kindOf(trx) === 'postgres' ? await q.forUpdate() : await q) as { user_id: string; role: string }[];
      const others = members.filter((m) => m.user_id !== userId);
      if (membership.role === 'admin' && others.length > 0 && !others.some((m) => m.role === 'admin')) return { kind: 'last_admin' } as const;
      if (others.length === 0) {
        organisationDue = true;
        await trx('organisations').where('id', organisationId).update({ deletion_due_at: new Date(now.getTime() + graceDays * 86_400_000).toISOString() });
      }
    }
    // Sign-in and OAuth: grants and what hangs from them, tokens, sessions, interactions.
    const grants = (await trx('oauth_store').where({ model: 'Grant', account_id: userId }).select('payload')) as { payload: string }[];
    const grantIds = grants.map((g) => (JSON.parse(g.payload) as { jti?: string }).jti).filter((id): id is string => typeof id === 'string');
    if (grantIds.length) {
      await trx('oauth_store').whereIn('grant_id', grantIds).delete();
      await trx('ai_access_usage').whereIn('grant_id', grantIds).delete();
    }
    // An interaction names the account inside its payload only.
    await trx('oauth_store').where('account_id', userId).orWhere('payload', 'like', `%"${userId}"%`).delete();
    await trx('web_sessions').where('user_id', userId).delete();
    await trx('account_links').where('user_id', userId).orWhere('email', email).delete();
    await trx('invitations').where('email', email).delete();
    await trx('login_failures').where('key', 'like', `%email:${email}`).delete();
    for (const table of ['quota_accounts', 'call_log', 'file_opens']) await trx(table).where('account_id', userId).delete();
    // The account e-mails sent to it (their links and its address).
    for (const row of (await trx('email_messages').where('purpose', 'compte').select('id', 'recipients_to')) as { id: string; recipients_to: string }[]) {
      if ((JSON.parse(row.recipients_to) as string[]).includes(email)) await trx('email_messages').where('id', row.id).delete();
    }
    // Its address as Reply-To of the organisation's sends.
    await trx('email_messages').where('created_by', userId).update({ reply_to: null });
    for (const [table, column] of AUTHORSHIP) await trx(table).where(column, userId).update({ [column]: DELETED_AUTHOR });
    await trx('follow_ups').where('owner_id', userId).update({ owner_id: null });
    // The activity log keeps what happened, not who nor from where.
    await trx('activity_log').where('actor_id', userId).update({ actor_id: null, ip: null });
    await trx('activity_log').where('subject_id', userId).update({ subject_id: null });
    await trx('memberships').where('user_id', userId).delete();
    await trx('users').where('id', userId).delete();
    return { kind: 'erased', email, organisationId, organisationDue } as const;
  });
}

/** The tables that hold an organisation's rows (`organisation_id`), whatever migrations added them. */
async function organisationTables(db: Database): Promise<string[]> {
  if (kindOf(db) === 'postgres') {
    const rows = await db.raw(`select table_name from information_schema.columns where column_name = 'organisation_id' and table_schema = current_schema()`);
    return (rows.rows as { table_name: string }[]).map((r) => r.table_name);
  }
  const tables = (await db.raw(`select name from sqlite_master where type = 'table'`)) as { name: string }[];
  const out: string[] = [];
  for (const { name } of tables) {
    const cols = (await db.raw(`select name from pragma_table_info(?)`, [name])) as { name: string }[];
    if (cols.some((c) => c.name === 'organisation_id')) out.push(name);
  }
  return out;
}

/**
 * Deletes the organisations whose grace period is over and that nobody rejoined, with their
 * workspace: the organisation's row (the foreign keys cascade), then every other table's
 * rows of the organisation (those without a foreign key, e.g. alert events). Returns how many.
 */
export async function deleteDueOrganisations(db: Database, now: Date): Promise<number> {
  const due = (await db('organisations').whereNotNull('deletion_due_at').andWhere('deletion_due_at', '<=', now.toISOString()).select('id')) as { id: string }[];
  const tables = due.length ? await organisationTables(db) : [];
  let deleted = 0;
  for (const { id } of due) {
    await db.transaction(async (trx) => {
      if (await trx('memberships').where('organisation_id', id).first('user_id')) {
        await trx('organisations').where('id', id).update({ deletion_due_at: null });
        return;
      }
      await trx('organisations').where('id', id).delete();
      for (const table of tables.filter((t) => t !== 'organisations')) await trx(table).where('organisation_id', id).delete();
      deleted += 1;
    });
  }
  return deleted;
}
