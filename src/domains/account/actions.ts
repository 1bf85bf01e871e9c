// The account and the access in use.
import type { Caller } from '../../access/caller.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import type { HandlerMap } from '../../../generated/handler-map.js';

type AccountActions = Pick<HandlerMap<Caller>, 'me' | 'quotas.get'>;

export function accountActions({ quota }: Services): AccountActions {
  return {
    // No personal data: whether the token works, the plan, the scopes.
    me: async (_args, caller) => ({ authenticated: true, tier: caller.plan, scope: caller.scopes.join(' ') }),
    'quotas.get': async (_args, caller) => {
      const status = await quota.status(caller);
      const iso = (at: Date | null) => (at ? parisIso(at) : null);
      return {
        formule: caller.plan,
        appels_minute: { utilises: status.minute.used, limite: status.minute.limit, fenetre_secondes: 60, prochaine_liberation: iso(status.minute.nextFreeAt) },
        appels_jour: { utilises: status.day.used, limite: status.day.limit, fenetre_secondes: 86_400, prochaine_liberation: iso(status.day.nextFreeAt) },
        dossiers_jour: { utilises: status.files.used, limite: status.files.limit, remise_a_zero: parisIso(status.files.resetsAt) },
      };
    },
  };
}
