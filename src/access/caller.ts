// Who is calling, with the plan and role the access rules read: passed to every action, so
// workspace rules live below the transports.
import type { ProfileName } from '../contract/types.js';
import type { Limits } from './quota-store.js';

export type Plan = 'free' | 'subscribed';
export type Role = 'admin' | 'membre' | 'lecteur';
export const ROLES: readonly Role[] = ['admin', 'membre', 'lecteur'];
/** Roles that may change the workspace. */
export const WRITING_ROLES: readonly Role[] = ['admin', 'membre'];

export interface Caller {
  accountId: string;
  organisationId: string | null;
  role: Role | null;
  plan: Plan;
  /** Organisation options: e-mail option, granted eligible access. */
  emailOption: boolean;
  eligibleAccess: boolean;
  /** Quota limits of the plan, or the organisation's negotiated ones. */
  limits: Limits;
  scopes: readonly string[];
  clientId: string;
  grantId: string | null;
  /** Where the call came in: REST, or one of the three MCP addresses. */
  address: 'rest' | ProfileName;
}
