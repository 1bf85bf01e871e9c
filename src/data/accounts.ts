// Accounts, organisations and memberships.
import { randomUUID } from 'node:crypto';
import type { Database } from './database.js';

export type Plan = 'free' | 'subscribed';
export type Role = 'admin' | 'membre' | 'lecteur';
export const ROLES: readonly Role[] = ['admin', 'membre', 'lecteur'];
/** Roles that may change the workspace. */
export const WRITING_ROLES: readonly Role[] = ['admin', 'membre'];

export interface AccountRecord {
  userId: string;
  email: string;
  organisationId: string | null;
  organisationName: string | null;
  role: Role | null;
  plan: Plan;
  emailOption: boolean;
  eligibleAccess: boolean;
}

export async function findUserByEmail(db: Database, email: string): Promise<{ id: string; email: string; password_hash: string } | undefined> {
  return db('users').where({ email: email.trim().toLowerCase() }).first('id', 'email', 'password_hash');
}

/** The account as every call sees it; an account without organisation is on the free plan. */
export async function loadAccount(db: Database, userId: string): Promise<AccountRecord | undefined> {
  const row = await db('users as u')
    .leftJoin('memberships as m', 'm.user_id', 'u.id')
    .leftJoin('organisations as o', 'o.id', 'm.organisation_id')
    .where('u.id', userId)
    .first('u.id', 'u.email', 'm.role', 'o.id as organisation_id', 'o.name as organisation_name', 'o.plan', 'o.email_option', 'o.eligible_access');
  if (!row) return undefined;
  return {
    userId: row.id,
    email: row.email,
    organisationId: row.organisation_id ?? null,
    organisationName: row.organisation_name ?? null,
    role: (row.role as Role | null) ?? null,
    plan: (row.plan as Plan | null) ?? 'free',
    emailOption: Boolean(row.email_option),
    eligibleAccess: Boolean(row.eligible_access),
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
      }
      await trx('memberships').insert({ user_id: userId, organisation_id: org.id, role: input.role ?? 'admin', created_at: now.toISOString() });
    }
  });
  return (await loadAccount(db, userId)) as AccountRecord;
}

export async function setOrganisationPlan(db: Database, name: string, changes: { plan?: Plan; emailOption?: boolean; eligibleAccess?: boolean }): Promise<boolean> {
  const update: Record<string, unknown> = {};
  if (changes.plan) update.plan = changes.plan;
  if (changes.emailOption !== undefined) update.email_option = changes.emailOption;
  if (changes.eligibleAccess !== undefined) update.eligible_access = changes.eligibleAccess;
  if (!Object.keys(update).length) return (await db('organisations').where({ name }).first('id')) !== undefined;
  return (await db('organisations').where({ name }).update(update)) > 0;
}

export async function countUsers(db: Database): Promise<number> {
  const row = await db('users').count<{ n: number | string }[]>('* as n');
  return Number(row[0]?.n ?? 0);
}
