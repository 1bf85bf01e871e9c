// The account and the access in use.
import type { Caller } from '../caller.js';
import type { Services } from '../services.js';
import type { HandlerMap } from '../../generated/handler-map.js';

type AccountActions = Pick<HandlerMap<Caller>, 'me'>;

export function accountActions(_services: Services): AccountActions {
  return {
    // No personal data: whether the token works, the plan, the scopes.
    me: async (_args, caller) => ({ authenticated: true, tier: caller.plan, scope: caller.scopes.join(' ') }),
  };
}
