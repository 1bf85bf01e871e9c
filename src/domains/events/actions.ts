// Event subscriptions (issue 15): subscribe to an active alert, poll its events in pages,
// acknowledge each after processing. At least once: an event not acknowledged comes back,
// an acknowledged one never does; out-of-order acknowledgements lose nothing.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../access/caller.js';
import { ConflictError, InvalidArgumentsError, NotFoundError } from '../../errors.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import { nextRobotSlot } from '../robot/schedule.js';
import { signAckToken, verifyAckToken } from './ack-tokens.js';
import {
  acknowledge,
  findSubscription,
  listSubscriptions,
  MAX_SUBSCRIPTIONS,
  pendingEvents,
  subscribe,
  unsubscribe,
  type SubscriptionView,
} from './store.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';

type EventActions = Pick<HandlerMap<Caller>, 'events.subscribe' | 'events.poll' | 'events.ack' | 'events.unsubscribe' | 'events.subscriptions'>;
type EventOut = OperationResults['events.poll']['events'][number];
type SubscriptionOut = OperationResults['events.subscriptions']['items'][number];

export const EVENT_PAGE_SIZE = 100;

/** An id as stored: lower case, without a `urn:uuid:` prefix. */
const storedId = (id: string) => id.trim().toLowerCase().replace(/^urn:uuid:/, '');

/** The checkpoint as callers see it: opaque text (they compare it, never compute with it). */
export const checkpointText = (seq: number) => Buffer.from(`cp1:${seq}`).toString('base64url');

// No hint in either message: an unknown id and another organisation's answer alike.
const alertNotFound = () => new NotFoundError("Alerte introuvable : aucune alerte de cet identifiant dans l'espace de travail de l'organisation.");
const subscriptionNotFound = () => new NotFoundError("Abonnement introuvable : aucun abonnement de cet identifiant dans l'espace de travail de l'organisation.");

function subscriptionOut(s: SubscriptionView): SubscriptionOut {
  return {
    subscription_id: s.id,
    alerte_id: s.alertId,
    alerte_nom: s.alertName,
    key: s.key,
    checkpoint: checkpointText(s.checkpoint),
    etat: s.alertActive ? 'active' : 'en_pause',
    created_at: parisIso(new Date(s.createdAt)),
  };
}

export function eventActions({ db, now, eventAckKey }: Services): EventActions {
  /** The caller's subscription, or 404 (also for a caller without organisation). */
  async function ownSubscription(caller: Caller, id: string): Promise<SubscriptionView> {
    const found = caller.organisationId ? await findSubscription(db, caller.organisationId, storedId(id)) : undefined;
    if (!found) throw subscriptionNotFound();
    return found;
  }

  return {
    'events.subscribe': async (args, caller) => {
      if (!args.key.trim()) throw new InvalidArgumentsError("L'argument « key » ne peut pas être vide.");
      const at = now();
      // Writes have been checked to have an organisation (call path).
      const outcome = await subscribe(db, {
        id: randomUUID(),
        organisationId: caller.organisationId as string,
        alertId: storedId(args.alerte_id),
        createdBy: caller.accountId,
        key: args.key,
        createdAt: at.toISOString(),
      });
      switch (outcome.kind) {
        case 'alert_not_found':
          throw alertNotFound();
        case 'alert_inactive':
          throw new ConflictError(
            "L'alerte est inactive (organisation revenue à la formule gratuite) : on ne peut s'abonner qu'aux événements d'une alerte active.",
          );
        case 'organisation_full':
          throw new ConflictError(
            `L'organisation a déjà ${MAX_SUBSCRIPTIONS} abonnements aux événements, le maximum : en supprimer un (evenements_abonnement_supprimer, REST events.unsubscribe) avant d'en créer un autre.`,
          );
        case 'account_full':
          throw new ConflictError(
            `Ce compte a déjà créé ${MAX_SUBSCRIPTIONS} abonnements aux événements, le maximum : en supprimer un (evenements_abonnement_supprimer, REST events.unsubscribe) avant d'en créer un autre.`,
          );
      }
      const { subscription } = outcome;
      return {
        subscription_id: subscription.id,
        id: subscription.id,
        checkpoint: checkpointText(subscription.checkpoint),
        first_run: parisIso(nextRobotSlot(at)),
        created: outcome.kind === 'created',
      };
    },

    'events.poll': async (args, caller) => {
      const subscription = await ownSubscription(caller, args.subscription_id);
      const { events, hasMore } = await pendingEvents(db, subscription, args.limit ?? EVENT_PAGE_SIZE);
      const out: EventOut[] = events.map((e) => ({
        id: e.id,
        kind: e.kind,
        alerte_id: e.alertId,
        source: e.source as EventOut['source'],
        occurred_at: parisIso(new Date(e.occurredAt)),
        record: e.record,
        ack_token: signAckToken(eventAckKey, subscription.id, e.seq),
      }));
      const warnings = subscription.alertActive
        ? []
        : [
            `L'alerte « ${subscription.alertName} » est inactive (organisation revenue à la formule gratuite) : l'abonnement est en pause, le robot n'écrit plus d'événement pour elle ; ceux déjà écrits restent lisibles et à acquitter.`,
          ];
      return { subscription_id: subscription.id, events: out, checkpoint: checkpointText(subscription.checkpoint), has_more: hasMore, warnings };
    },

    'events.ack': async (args, caller) => {
      const subscription = await ownSubscription(caller, args.subscription_id);
      const token = verifyAckToken(eventAckKey, args.ack_token.trim());
      if (!token) throw new InvalidArgumentsError("L'argument « ack_token » n'est pas un jeton d'acquittement valide : le rendre tel que evenements_lire l'a donné.");
      if (token.subscriptionId !== subscription.id)
        throw new InvalidArgumentsError("L'argument « ack_token » a été émis pour un autre abonnement que celui de « subscription_id ».");
      const done = await acknowledge(db, caller.organisationId as string, subscription.id, token.seq, now());
      // Deleted between the two reads.
      if (!done) throw subscriptionNotFound();
      return { acknowledged: true, subscription_id: subscription.id };
    },

    'events.unsubscribe': async (args, caller) => {
      const id = storedId(args.subscription_id);
      const removed = await unsubscribe(db, caller.organisationId as string, id);
      return { removed, subscription_id: id };
    },

    'events.subscriptions': async (_args, caller) => {
      const items = caller.organisationId ? (await listSubscriptions(db, caller.organisationId)).map(subscriptionOut) : [];
      return { total: items.length, items };
    },
  };
}
