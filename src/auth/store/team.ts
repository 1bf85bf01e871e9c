// Members of an organisation, their roles, invitations, leaving and removal. Every change
// that could leave an organisation without administrator is checked inside its transaction
// (the organisation's memberships locked on PostgreSQL): the last administrator can neither
// leave, be removed nor be demoted while other members remain.
import { randomUUID } from 'node:crypto';
import type { Role } from '../../access/caller.js';
import { kindOf, type Database } from '../../platform/db/database.js';
import { hashToken, newToken } from './account-links.js';

/** An organisation whose last member left is deleted, with its workspace, this long after. */
export const ORGANISATION_GRACE_DAYS = 30;
export const INVITATION_TTL_SECONDS = 7 * 24 * 3600;

export interface Member {
  userId: string;
  email: string;
  role: Role;
  since: string;
  lastSignInAt: string | null;
}

export async function listMembers(db: Database, organisationId: string): Promise<Member[]> {
  const rows = await db('memberships as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where('m.organisation_id', organisationId)
    .orderBy('u.email')
    .select('u.id', 'u.email', 'm.role', 'm.created_at', 'u.last_sign_in_at');
  return rows.map((r) => ({ userId: r.id as string, email: r.email as string, role: r.role as Role, since: r.created_at as string, lastSignInAt: (r.last_sign_in_at as string | null) ?? null }));
}

/** The organisation's memberships, locked until the end of `trx` on PostgreSQL. */
async function lockedMembers(trx: Database, organisationId: string): Promise<{ user_id: string; role: Role }[]> {
  const q = trx('memberships').where('organisation_id', organisationId).select('user_id', 'role');
  return (kindOf(trx) === 'postgres' ? await q.forUpdate() : await q) as { user_id: string; role: Role }[];
}

/** Every token, grant and OAuth session of the account, and its web sessions (but `keepSession`, a hash): gone at once. */
export async function revokeAccountAccess(trx: Database, userId: string, keepSessionHash?: string): Promise<void> {
  const grants = (await trx('oauth_store').where({ model: 'Grant', account_id: userId }).select('payload')) as { payload: string }[];
  const grantIds = grants.map((g) => (JSON.parse(g.payload) as { jti?: string }).jti).filter((id): id is string => typeof id === 'string');
  if (grantIds.length) {
    await trx('oauth_store').whereIn('grant_id', grantIds).delete();
    await trx('ai_access_usage').whereIn('grant_id', grantIds).delete();
  }
  await trx('oauth_store').where('account_id', userId).delete();
  const sessions = trx('web_sessions').where('user_id', userId);
  if (keepSessionHash) sessions.whereNot('id_hash', keepSessionHash);
  await sessions.delete();
}

export type TeamOutcome = 'ok' | 'not_member' | 'last_admin';

export async function changeRole(db: Database, organisationId: string, userId: string, role: Role): Promise<TeamOutcome> {
  return db.transaction(async (trx) => {
    const members = await lockedMembers(trx, organisationId);
    const member = members.find((m) => m.user_id === userId);
    if (!member) return 'not_member';
    if (member.role === 'admin' && role !== 'admin' && members.filter((m) => m.role === 'admin').length === 1) return 'last_admin';
    await trx('memberships').where({ user_id: userId, organisation_id: organisationId }).update({ role });
    return 'ok';
  });
}

/** Removes a member: their tokens and sessions end at once; what they wrote stays the organisation's. */
export async function removeMember(db: Database, organisationId: string, userId: string): Promise<TeamOutcome> {
  return db.transaction(async (trx) => {
    const members = await lockedMembers(trx, organisationId);
    const member = members.find((m) => m.user_id === userId);
    if (!member) return 'not_member';
    if (member.role === 'admin' && members.filter((m) => m.role === 'admin').length === 1) return 'last_admin';
    await trx('memberships').where({ user_id: userId, organisation_id: organisationId }).delete();
    await revokeAccountAccess(trx, userId);
    return 'ok';
  });
}

export type LeaveOutcome = { kind: 'left'; organisationId: string; organisationDeleted: boolean } | { kind: 'no_organisation' } | { kind: 'last_admin' };

/**
 * The account leaves its organisation, in `trx`. The last administrator of an organisation
 * with other members cannot; the last member can, and the organisation is then due for deletion.
 */
export async function leaveOrganisation(trx: Database, userId: string, now: Date): Promise<LeaveOutcome> {
  const membership = await trx('memberships').where('user_id', userId).first('organisation_id');
  if (!membership) return { kind: 'no_organisation' };
  const organisationId = membership.organisation_id as string;
  const members = await lockedMembers(trx, organisationId);
  const self = members.find((m) => m.user_id === userId);
  const others = members.filter((m) => m.user_id !== userId);
  if (self?.role === 'admin' && others.length > 0 && !others.some((m) => m.role === 'admin')) return { kind: 'last_admin' };
  await trx('memberships').where({ user_id: userId }).delete();
  if (others.length === 0) {
    await trx('organisations').where('id', organisationId).update({ deletion_due_at: new Date(now.getTime() + ORGANISATION_GRACE_DAYS * 86_400_000).toISOString() });
  }
  return { kind: 'left', organisationId, organisationDeleted: others.length === 0 };
}

/** Joins an organisation (an invitation accepted); one awaiting deletion is kept. */
export async function joinOrganisation(trx: Database, userId: string, organisationId: string, role: Role, now: Date): Promise<void> {
  await trx('memberships').insert({ user_id: userId, organisation_id: organisationId, role, created_at: now.toISOString() });
  await trx('organisations').where('id', organisationId).update({ deletion_due_at: null });
}

export interface Invitation {
  id: string;
  organisationId: string;
  organisationName: string;
  email: string;
  role: Role;
  createdAt: string;
  expiresAt: number;
}

/** A new invitation (a previous pending one to the same address is replaced); returns the link's token. */
export async function createInvitation(db: Database, input: { organisationId: string; email: string; role: Role; invitedBy: string }, now: Date): Promise<string> {
  const token = newToken();
  await db.transaction(async (trx) => {
    await trx('invitations').where({ organisation_id: input.organisationId, email: input.email }).whereNull('accepted_at').whereNull('revoked_at').update({ revoked_at: now.toISOString() });
    await trx('invitations').insert({
      id: randomUUID(),
      organisation_id: input.organisationId,
      email: input.email,
      role: input.role,
      token_hash: hashToken(token),
      invited_by: input.invitedBy,
      created_at: now.toISOString(),
      expires_at: Math.floor(now.getTime() / 1000) + INVITATION_TTL_SECONDS,
    });
  });
  return token;
}

function pending(q: ReturnType<Database>, now: Date) {
  return q.whereNull('i.accepted_at').whereNull('i.revoked_at').andWhere('i.expires_at', '>', Math.floor(now.getTime() / 1000));
}

function toInvitation(r: Record<string, unknown>): Invitation {
  return {
    id: r.id as string,
    organisationId: r.organisation_id as string,
    organisationName: r.organisation_name as string,
    email: r.email as string,
    role: r.role as Role,
    createdAt: r.created_at as string,
    expiresAt: Number(r.expires_at),
  };
}

const INVITATION_COLUMNS = ['i.id', 'i.organisation_id', 'o.name as organisation_name', 'i.email', 'i.role', 'i.created_at', 'i.expires_at'];

export async function listInvitations(db: Database, organisationId: string, now: Date): Promise<Invitation[]> {
  const rows = await pending(db('invitations as i').join('organisations as o', 'o.id', 'i.organisation_id').where('i.organisation_id', organisationId), now)
    .orderBy('i.created_at', 'desc')
    .select(INVITATION_COLUMNS);
  return (rows as Record<string, unknown>[]).map(toInvitation);
}

/** The pending invitation of a link, or null (unknown, used, revoked, expired). */
export async function invitationByToken(db: Database, token: string, now: Date): Promise<Invitation | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const row = await pending(db('invitations as i').join('organisations as o', 'o.id', 'i.organisation_id').where('i.token_hash', hashToken(token)), now).first(INVITATION_COLUMNS);
  return row ? toInvitation(row as unknown as Record<string, unknown>) : null;
}

/** Marks the invitation accepted, in `trx`: false if another request accepted it first, or it was revoked. */
export async function markAccepted(trx: Database, id: string, now: Date): Promise<boolean> {
  const changed = await trx('invitations').where({ id }).whereNull('accepted_at').whereNull('revoked_at').update({ accepted_at: now.toISOString() });
  return changed > 0;
}

export async function revokeInvitation(db: Database, organisationId: string, id: string, now: Date): Promise<Invitation | null> {
  const found = await pending(db('invitations as i').join('organisations as o', 'o.id', 'i.organisation_id').where({ 'i.id': id, 'i.organisation_id': organisationId }), now).first(INVITATION_COLUMNS);
  if (!found) return null;
  await db('invitations').where({ id }).update({ revoked_at: now.toISOString() });
  return toInvitation(found as unknown as Record<string, unknown>);
}
