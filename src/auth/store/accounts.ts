// Accounts, organisations and memberships.
import { randomUUID } from 'node:crypto';
import { kindOf, type Database } from '../../platform/db/database.js';
import { statement, withSqlite } from '../../platform/db/statements.js';
import { lockForWrite } from '../../platform/db/busy.js';
import type { Plan, Role } from '../../access/caller.js';
import type { Limits } from '../../access/quota-store.js';

export interface AccountRecord {
  userId: string;
  email: string;
  organisationId: string | null;
  organisationName: string | null;
  role: Role | null;
  plan: Plan;
  emailOption: boolean;
  eligibleAccess: boolean;
  /** The plan's limits, or the organisation's negotiated ones. */
  limits: Limits;
}

export async function findUserByEmail(db: Database, email: string): Promise<{ id: string; email: string; password_hash: string } | undefined> {
  return db('users').where({ email: email.trim().toLowerCase() }).first('id', 'email', 'password_hash');
}

const ACCOUNT_SQL = `select u.id, u.email, m.role, o.id as organisation_id, o.name as organisation_name, o.plan, o.email_option, o.eligible_access,
  coalesce(o.calls_per_minute, l.calls_per_minute) as calls_per_minute,
  coalesce(o.calls_per_day, l.calls_per_day) as calls_per_day,
  coalesce(o.files_per_day, l.files_per_day) as files_per_day
from users u
left join memberships m on m.user_id = u.id
left join organisations o on o.id = m.organisation_id
left join plan_limits l on l.plan = coalesce(o.plan, 'free')
where u.id = ?`;

/** The account as every call sees it (one query); an account without organisation is on the free plan. */
export async function loadAccount(db: Database, userId: string): Promise<AccountRecord | undefined> {
  const row = kindOf(db) === 'sqlite' ? await withSqlite(db, (conn) => statement(conn, ACCOUNT_SQL).get(userId) as Record<string, unknown> | undefined) : await loadAccountRow(db, userId);
  return row ? toAccount(row) : undefined;
}

async function loadAccountRow(db: Database, userId: string): Promise<Record<string, unknown> | undefined> {
  return db('users as u')
    .leftJoin('memberships as m', 'm.user_id', 'u.id')
    .leftJoin('organisations as o', 'o.id', 'm.organisation_id')
    .leftJoin('plan_limits as l', 'l.plan', db.raw("coalesce(o.plan, 'free')"))
    .where('u.id', userId)
    .first(
      'u.id',
      'u.email',
      'm.role',
      'o.id as organisation_id',
      'o.name as organisation_name',
      'o.plan',
      'o.email_option',
      'o.eligible_access',
      db.raw('coalesce(o.calls_per_minute, l.calls_per_minute) as calls_per_minute'),
      db.raw('coalesce(o.calls_per_day, l.calls_per_day) as calls_per_day'),
      db.raw('coalesce(o.files_per_day, l.files_per_day) as files_per_day'),
    );
}

function toAccount(row: Record<string, unknown>): AccountRecord {
  return {
    userId: row.id as string,
    email: row.email as string,
    organisationId: (row.organisation_id as string | null) ?? null,
    organisationName: (row.organisation_name as string | null) ?? null,
    role: (row.role as Role | null) ?? null,
    plan: (row.plan as Plan | null) ?? 'free',
    emailOption: Boolean(row.email_option),
    eligibleAccess: Boolean(row.eligible_access),
    limits: { callsPerMinute: Number(row.calls_per_minute), callsPerDay: Number(row.calls_per_day), filesPerDay: Number(row.files_per_day) },
  };
}

export class AccountInputError extends Error {}

export async function createAccount(
  db: Database,
  input: { email: string; passwordHash: string; organisation?: string; role?: Role; plan?: Plan },
  now: Date,
): Promise<AccountRecord> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new AccountInputError(`Adresse électronique invalide : ${input.email}`);
  const userId = randomUUID();
  await db.transaction(async (trx) => {
    // Reads then writes: SQLite's lock first, so that another writer's commit in between
    // (an import's batch) is waited for rather than failing the write (SQLITE_BUSY_SNAPSHOT).
    await lockForWrite(trx);
    if (await trx('users').where({ email }).first('id')) throw new AccountInputError(`Un compte existe déjà pour ${email}.`);
    await trx('users').insert({ id: userId, email, password_hash: input.passwordHash, created_at: now.toISOString() });
    if (input.organisation) {
      const name = input.organisation.trim();
      let org = await trx('organisations').where({ name }).first('id');
      if (!org) {
        org = { id: randomUUID() };
        await trx('organisations').insert({ id: org.id, name, plan: input.plan ?? 'free', created_at: now.toISOString() });
      } else if (input.plan) {
        await trx('organisations').where({ id: org.id }).update({ plan: input.plan });
        await trx('alerts').where({ organisation_id: org.id }).update({ is_active: input.plan === 'subscribed' });
      }
      await trx('memberships').insert({ user_id: userId, organisation_id: org.id, role: input.role ?? 'admin', created_at: now.toISOString() });
    }
  });
  return (await loadAccount(db, userId)) as AccountRecord;
}

export interface PlanChanges {
  plan?: Plan;
  emailOption?: boolean;
  eligibleAccess?: boolean;
  /** Negotiated limits; null goes back to the plan's. */
  callsPerMinute?: number | null;
  callsPerDay?: number | null;
  filesPerDay?: number | null;
}

export async function setOrganisationPlan(db: Database, name: string, changes: PlanChanges): Promise<boolean> {
  const update: Record<string, unknown> = {};
  if (changes.plan) update.plan = changes.plan;
  if (changes.emailOption !== undefined) update.email_option = changes.emailOption;
  if (changes.eligibleAccess !== undefined) update.eligible_access = changes.eligibleAccess;
  if (changes.callsPerMinute !== undefined) update.calls_per_minute = changes.callsPerMinute;
  if (changes.callsPerDay !== undefined) update.calls_per_day = changes.callsPerDay;
  if (changes.filesPerDay !== undefined) update.files_per_day = changes.filesPerDay;
  return db.transaction(async (trx) => {
    await lockForWrite(trx);
    const org = await trx('organisations').where({ name }).first('id');
    if (!org) return false;
    if (Object.keys(update).length) await trx('organisations').where({ id: org.id }).update(update);
    // Alerts are kept on the free plan, inactive; they are active again on subscription.
    if (changes.plan) await trx('alerts').where({ organisation_id: org.id }).update({ is_active: changes.plan === 'subscribed' });
    return true;
  });
}

export async function countUsers(db: Database): Promise<number> {
  const row = await db('users').count<{ n: number | string }[]>('* as n');
  return Number(row[0]?.n ?? 0);
}
