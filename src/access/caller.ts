// Who is calling, with the plan and role the access rules read: passed to every action, so
// workspace rules live below the transports.
import type { ProfileName } from '../contract/types.js';
import type { Limits } from './quota-store.js';

export type Plan = 'free' | 'subscribed';
export type Role = 'admin' | 'membre' | 'lecteur';
export const ROLES: readonly Role[] = ['admin', 'membre', 'lecteur'];
/** Roles that may change the workspace. */
export const WRITING_ROLES: readonly Role[] = ['admin', 'membre'];

/** What an account says of its holder's access (the account store's record has these fields). */
export interface CallerAccount {
  userId: string;
  organisationId: string | null;
  role: Role | null;
  plan: Plan;
  /** Organisation options: e-mail option, granted eligible access. */
  emailOption: boolean;
  eligibleAccess: boolean;
  /** Quota limits of the plan, or the organisation's negotiated ones. */
  limits: Limits;
}

/** The account's access, and the access in use: the token's (or the web pages') scopes and client. */
export interface Caller extends Omit<CallerAccount, 'userId'> {
  accountId: string;
  scopes: readonly string[];
  clientId: string;
  grantId: string | null;
  /** Where the call came in: REST, or one of the three MCP addresses. */
  address: 'rest' | ProfileName;
  /**
   * PostgreSQL, an identity taken from memory without reading its version: the admission
   * checks `identityVersion` in its own statement (one round trip instead of two), and
   * `confirm` reads the identity again when it changed (a revocation: 401; a plan: new limits).
   */
  unconfirmed?: { identityVersion: string; confirm: () => Promise<Caller> };
}

/** The caller of an account, through an access: a token's scopes and client, or the web pages'. */
export function callerOf(account: CallerAccount, access: Pick<Caller, 'scopes' | 'clientId' | 'grantId' | 'address'>): Caller {
  return {
    accountId: account.userId,
    organisationId: account.organisationId,
    role: account.role,
    plan: account.plan,
    emailOption: account.emailOption,
    eligibleAccess: account.eligibleAccess,
    limits: account.limits,
    ...access,
  };
}
