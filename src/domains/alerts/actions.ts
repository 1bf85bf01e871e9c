// Alerts: keyword searches of the caller's organisation, replayed by the robot. The rules
// of the spec's Alert and alertes.* sections: criteria normalised, one alert per name,
// the truth about what is watched in `warnings` and `sources_surveillees`.
import { randomUUID } from 'node:crypto';
import type { Caller } from '../../access/caller.js';
import { deleteAlert, insertAlert, listAlerts, MAX_ALERTS_PER_ORGANISATION, type AlertRecord } from './store.js';
import { parseQuery } from '../../platform/search/query-syntax.js';
import { ConflictError, InvalidArgumentsError } from '../../errors.js';
import { parisIso } from '../../platform/paris-time.js';
import type { Services } from '../context.js';
import { sourceVolumes } from '../source-volumes.js';
import { sourcesFreshness } from '../source-freshness.js';
import { SYNC_OFF } from '../reference/actions.js';
import { dryRun, unsavedAlert } from '../robot/evaluate.js';
import type { HandlerMap, OperationArgs, OperationResults } from '../../../generated/handler-map.js';

type AlertActions = Pick<HandlerMap<Caller>, 'alertes.create' | 'alertes.delete' | 'alertes.list' | 'alertes.preview'>;
type PreviewOut = OperationResults['alertes.preview'];
type AlertSource = (typeof ALERT_SOURCES)[number];
type AlertOut = OperationResults['alertes.create']['alerte'];

export const ALERT_SOURCES = ['marche', 'dce', 'attribution', 'permis', 'reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact', 'dvf'] as const;

/** Sources that watch nothing without followed departments, and which list they follow. */
const NEEDS_DEPARTEMENTS: Record<string, 'followed' | 'merged'> = { attribution: 'followed', dvf: 'merged' };

const quote = (s: string) => `« ${s} »`;

/**
 * The query as typed (spaces collapsed), and its canonical form for comparing criteria:
 * the search syntax's own (an exact phrase differs from the same loose words).
 */
function normaliseQuery(query: string): { text: string; canonical: string } {
  const text = query.replace(/\s+/g, ' ').trim();
  if (text.replace(/[\s,]/g, '').length < 2) throw new InvalidArgumentsError(`L'argument « query » doit contenir au moins 2 caractères hors espaces et virgules.`);
  return { text, canonical: parseQuery(text).canonical };
}

/** An alert id as stored: lower case, without a `urn:uuid:` prefix. */
const alertId = (id: string) => id.trim().toLowerCase().replace(/^urn:uuid:/, '');

export interface PlannedAlert {
  record: Omit<AlertRecord, 'id' | 'organisationId' | 'createdBy' | 'createdAt' | 'isActive' | 'lastEvaluatedAt'>;
  warnings: string[];
}

/** The alert asked for, normalised, with what will really be watched and why. */
export function planAlert(args: OperationArgs['alertes.create']): PlannedAlert {
  const name = args.name.trim();
  if (!name) throw new InvalidArgumentsError(`L'argument « name » ne peut pas être vide.`);
  const plan = planCriteria(args);
  return { ...plan, record: { ...plan.record, name } };
}

/** The criteria of an alert (create or preview): every rule of alertes.create but the name. */
export function planCriteria(args: Omit<OperationArgs['alertes.create'], 'name'>): PlannedAlert {
  const query = normaliseQuery(args.query);
  const requested = args.sources?.length ? ALERT_SOURCES.filter((s) => args.sources?.includes(s)) : [...ALERT_SOURCES];
  const followed = [...new Set(args.departements ?? [])].sort();
  const merged = [...new Set([...followed, ...(args.departement ? [args.departement] : [])])].sort();
  const montantMin = args.montant_min ?? null;
  const frequency = args.frequency ?? 'daily';

  const warnings: string[] = [];
  const watched = requested.filter((source) => {
    const needs = NEEDS_DEPARTEMENTS[source];
    if (!needs) return true;
    const list = needs === 'followed' ? followed : merged;
    if (list.length) return true;
    warnings.push(
      needs === 'followed' && merged.length
        ? `La source ${quote(source)} ne suit que les départements de « departements » (le champ « departement » est sans effet sur elle) : sans eux, elle n'est pas surveillée.`
        : `La source ${quote(source)} exige des départements suivis (« departements ») : elle n'est pas surveillée.`,
    );
    return false;
  });
  if (!watched.length) {
    throw new InvalidArgumentsError(
      `Aucune des sources demandées ne peut être surveillée : ${requested.map(quote).join(', ')} exige${requested.length > 1 ? 'nt' : ''} des départements suivis (argument « departements »).`,
    );
  }
  if (args.departement && watched.includes('attribution'))
    warnings.push(`Le champ « departement » est sans effet sur la source « attribution », qui ne suit que les départements de « departements ».`);
  if (merged.length && watched.includes('dce'))
    warnings.push(`Sur la source « dce », le filtre de département ne retient que les dossiers rattachés à un avis de marché localisé.`);
  if (montantMin !== null) {
    const others = watched.filter((s) => s !== 'attribution');
    if (!watched.includes('attribution')) warnings.push(`« montant_min » ne s'applique qu'à la source « attribution », qui n'est pas surveillée : il est sans effet.`);
    else if (others.length) warnings.push(`« montant_min » ne s'applique qu'à la source « attribution » ; il est sans effet sur ${others.map(quote).join(', ')}.`);
  }
  if (watched.includes('dvf')) warnings.push(`La source « dvf » ne tient pas compte des termes : toutes les ventes récentes des départements suivis sont signalées.`);

  return {
    record: {
      name: '',
      query: query.text,
      frequency,
      sources: requested,
      sourcesWatched: watched,
      departements: merged,
      departementsFollowed: followed,
      departement: args.departement ?? null,
      montantMin,
      kind: watched.some((s) => s !== 'dvf') ? 'mots_cles' : 'territoire',
      criteria: JSON.stringify({ q: query.canonical, s: requested, d: args.departement ?? null, f: followed, fr: frequency, m: montantMin }),
    },
    warnings,
  };
}

export function alertOut(a: AlertRecord): AlertOut {
  return {
    id: a.id,
    name: a.name,
    query: a.query,
    frequency: a.frequency,
    sources: a.sources as AlertOut['sources'],
    sources_surveillees: a.sourcesWatched as AlertOut['sources_surveillees'],
    departements: a.departements,
    montant_min: a.montantMin,
    is_active: a.isActive,
    kind: a.kind,
    evaluee: a.lastEvaluatedAt ? parisIso(new Date(a.lastEvaluatedAt)) : 'jamais',
    created_at: parisIso(new Date(a.createdAt)),
  };
}

/**
 * The truth about the data: a watched source the service holds nothing of raises nothing yet,
 * and one whose synchronisation is late, failing or disabled raises only what came before.
 */
async function warnEmptySources(db: Services['db'], sync: Services['sync'], nowMs: number, plan: PlannedAlert): Promise<void> {
  const [volumes, freshness] = await Promise.all([sourceVolumes(db, nowMs), sourcesFreshness(db, sync ?? SYNC_OFF, nowMs)]);
  for (const source of plan.record.sourcesWatched) {
    const state = freshness.get(source);
    if (state && (state.etat === 'en retard' || state.etat === 'en échec' || state.etat === 'désactivée'))
      plan.warnings.push(`La source ${quote(source)} est ${state.etat} dans la synchronisation du service${state.raison ? ` (${state.raison})` : ''} : l'alerte n'y trouvera que ce qui est déjà entré (voir referentiel_sources).`.slice(0, 500));
  }
  const empty = plan.record.sourcesWatched.filter((s) => (volumes.get(s as AlertSource)?.records ?? 0) === 0);
  if (empty.length)
    plan.warnings.push(
      `${empty.length > 1 ? 'Les sources' : 'La source'} ${empty.map(quote).join(', ')} ${empty.length > 1 ? "n'ont" : "n'a"} encore aucune donnée dans le service : ${empty.length > 1 ? 'elles sont surveillées' : 'elle est surveillée'}, mais rien n'y sera trouvé avant ${empty.length > 1 ? 'leur' : 'son'} premier import (voir referentiel_sources).`,
    );
}

/** The preview's window: what entered the service in the last 7 days. */
export const PREVIEW_DAYS = 7;
/** Records per source on the free plan: the counts are whole, the sample is smaller. */
export const PREVIEW_FREE_RECORDS = 2;

export function alertActions({ db, now, publicUrl, sync }: Services): AlertActions {
  return {
    'alertes.create': async (args, caller) => {
      const plan = planAlert(args);
      await warnEmptySources(db, sync, now().getTime(), plan);
      // Writes have been checked to have an organisation (call path).
      const organisationId = caller.organisationId as string;
      const record: AlertRecord = {
        ...plan.record,
        id: randomUUID(),
        organisationId,
        createdBy: caller.accountId,
        createdAt: now().toISOString(),
        isActive: caller.plan === 'subscribed',
        lastEvaluatedAt: null,
      };
      const outcome = await insertAlert(db, record);
      if (outcome.kind === 'cap_reached') {
        throw new ConflictError(`L'organisation a déjà ${MAX_ALERTS_PER_ORGANISATION} alertes, le maximum : en supprimer avant d'en créer une autre.`);
      }
      if (outcome.kind === 'name_taken') {
        if (outcome.existing.criteria !== record.criteria) {
          throw new ConflictError(
            `Une alerte nommée « ${record.name} » existe déjà avec d'autres critères : la supprimer (action remove, id ${outcome.existing.id}) puis la recréer.`,
          );
        }
        return { action: 'add', created: false, unchanged: true, alerte: alertOut(outcome.existing), warnings: plan.warnings };
      }
      return { action: 'add', created: true, unchanged: false, alerte: alertOut(record), warnings: plan.warnings };
    },
    'alertes.delete': async (args, caller) => {
      const id = alertId(args.id);
      const removed = await deleteAlert(db, caller.organisationId as string, id);
      return { action: 'remove', removed, id };
    },
    'alertes.preview': async (args, caller) => {
      const plan = planCriteria(args);
      const at = now();
      await warnEmptySources(db, sync, at.getTime(), plan);
      const from = new Date(at.getTime() - PREVIEW_DAYS * 86_400_000);
      // The robot's own dry run over a pseudo-alert opened 7 days ago: the same matching as the real runs.
      const events = await dryRun({ db, publicUrl, now: at, alert: unsavedAlert(plan.record, from), upToNow: true });
      const asked = args.limit ?? 5;
      const limit = caller.plan === 'subscribed' ? asked : Math.min(asked, PREVIEW_FREE_RECORDS);
      if (limit < asked) plan.warnings.push(`Formule gratuite : ${PREVIEW_FREE_RECORDS} fiches au plus par source dans l'aperçu (les nombres sont complets) ; la formule abonnée en donne jusqu'à 10.`);
      const found = events.filter((e) => e.kind !== 'rappel_echeance');
      const par_source: PreviewOut['par_source'] = plan.record.sourcesWatched.map((source) => {
        // Found in order of entry: the most recent first.
        const mine = found.filter((e) => e.source === source).reverse();
        return { source: source as AlertSource, total: mine.length, records: mine.slice(0, limit).map((e) => e.record) };
      });
      return {
        action: 'apercu',
        depuis: parisIso(from),
        jusqu_a: parisIso(at),
        total: found.length,
        rappels_echeance: events.length - found.length,
        par_source,
        sources_surveillees: plan.record.sourcesWatched as PreviewOut['sources_surveillees'],
        warnings: plan.warnings,
      };
    },
    'alertes.list': async (_args, caller) => {
      const items = caller.organisationId ? (await listAlerts(db, caller.organisationId, MAX_ALERTS_PER_ORGANISATION)).map(alertOut) : [];
      return { action: 'list', total: items.length, items };
    },
  };
}
