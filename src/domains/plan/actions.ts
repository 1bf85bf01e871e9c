// The plan tools: what the organisation's plan and options open (read from the runtime
// contract, so the list cannot drift from the annotations the call path enforces), and the
// subscription request an administrator confirms on the account page.
import type { Caller } from '../../access/caller.js';
import { checkPlan } from '../../access/rules.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { memberCount, organisationPlan, pendingRequest, planLimits, startSubscription, type SubscriptionRequest } from './store.js';

type PlanActions = Pick<HandlerMap<Caller>, 'abonnement.get' | 'abonnement.subscribe'>;
type PlanOut = OperationResults['abonnement.get'];

/** The subscribed plan's price, excluding tax, per user and per month; no commitment. */
export const PRICE_EUR_EXCL_TAX = 12;
export const PRICE_TEXT = '12 € HT par utilisateur et par mois, sans engagement';

/** The account pages of the plan (app.ts serves them). */
export const planPagePath = () => '/compte/abonnement';
export const requestPagePath = (id: string) => `/compte/abonnement/${id}`;

/** Whether the operation's paid-only rule lets this caller through: the call path's own rule. */
function opens(op: { paidOnly: boolean; eligibleAccess: boolean }, caller: Caller): boolean {
  try {
    checkPlan(op, caller);
    return true;
  } catch {
    return false;
  }
}

export function planActions({ db, contract, now, publicUrl }: Services): PlanActions {
  const requestOut = (r: SubscriptionRequest) => ({ demandee_le: parisIso(new Date(r.requestedAt)), expire_le: parisIso(new Date(r.expiresAt)) });
  return {
    'abonnement.get': async (_args, caller) => {
      const organisationId = caller.organisationId;
      const org = organisationId ? await organisationPlan(db, organisationId) : null;
      const members = organisationId ? await memberCount(db, organisationId) : 0;
      const pending = organisationId ? await pendingRequest(db, organisationId, now()) : null;
      const reserved: PlanOut['operations_reservees'] = [...contract.operations.values()]
        .filter((op) => op.paidOnly)
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((op) => ({
          operation: op.name,
          outil: op.mcpTool,
          ouverte_par: op.eligibleAccess ? 'formule_abonnee_ou_acces_eligible' : 'formule_abonnee',
          ouverte: opens(op, caller),
        }));
      return {
        formule: caller.plan,
        organisation: org ? { nom: org.name, membres: members, montant_mensuel_ht_eur: members * PRICE_EUR_EXCL_TAX } : null,
        options: { option_email: caller.emailOption, acces_eligible: caller.eligibleAccess },
        prix: { montant_ht_eur: PRICE_EUR_EXCL_TAX, unite: 'par utilisateur et par mois', engagement: false, texte: PRICE_TEXT },
        formules: (await planLimits(db)).map((l) => ({
          code: l.plan,
          prix_ht_eur: l.plan === 'subscribed' ? PRICE_EUR_EXCL_TAX : 0,
          appels_minute: l.callsPerMinute,
          appels_jour: l.callsPerDay,
          dossiers_jour: l.filesPerDay,
        })),
        operations_reservees: reserved,
        demande_en_cours: pending ? { url: `${publicUrl}${requestPagePath(pending.id)}`, ...requestOut(pending) } : null,
      };
    },
    'abonnement.subscribe': async (_args, caller) => {
      // Writes have been checked to have an organisation and a writing role (call path).
      const outcome = await startSubscription(db, caller.organisationId as string, caller.accountId, now());
      if (outcome.kind === 'subscribed') {
        return {
          action: 'souscription',
          formule: 'subscribed',
          deja_abonnee: true,
          created: false,
          url: `${publicUrl}${planPagePath()}`,
          demande: null,
          message: "L'organisation a déjà la formule abonnée : rien à demander.",
        };
      }
      const { request, created } = outcome;
      return {
        action: 'souscription',
        formule: caller.plan,
        deja_abonnee: false,
        created,
        url: `${publicUrl}${requestPagePath(request.id)}`,
        demande: { id: request.id, ...requestOut(request) },
        message: `Demande enregistrée : un administrateur de l'organisation doit la confirmer sur cette page (après connexion) avant le ${parisIso(new Date(request.expiresAt)).slice(0, 10)} ; la formule change à la confirmation (${PRICE_TEXT}).`,
      };
    },
  };
}
