// Who is calling: passed to every action, so workspace rules live below the transports.
import type { ProfileName } from '../contract/types.js';
import type { Plan, Role } from '../auth/store/accounts.js';
import type { Limits } from './quota-store.js';

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
