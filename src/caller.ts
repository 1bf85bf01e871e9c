// Who is calling: passed to every action, so workspace rules live below the transports.
import type { ProfileName } from './contract/types.js';

export interface Caller {
  /** The account holding the token; null while the call is not authenticated. */
  accountId: string | null;
  organisationId: string | null;
  scopes: readonly string[];
  /** Where the call came in: REST, or one of the three MCP addresses. */
  address: 'rest' | ProfileName;
}

/** The caller of a call that carries no credentials (authentication is its own step). */
export function unauthenticatedCaller(address: Caller['address']): Caller {
  return { accountId: null, organisationId: null, scopes: [], address };
}
