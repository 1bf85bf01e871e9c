// The three counters of the spec, one place for both transports: calls per sliding 60 s
// and 24 h (every call counts, whatever its outcome, but a call refused by a quota), and
// distinct consultation files opened per Paris calendar day.
import type { Caller } from './caller.js';
import { StaleIdentityError, type Limits, type QuotaStore } from './quota-store.js';
import { DatabaseBusyError } from '../platform/db/busy.js';
import { QuotaExceededError, QuotaUnavailableError, ServiceError } from '../errors.js';
import { nextParisMidnight, parisDay } from '../platform/paris-time.js';

export interface QuotaStatus {
  minute: { used: number; limit: number; nextFreeAt: Date | null };
  day: { used: number; limit: number; nextFreeAt: Date | null };
  files: { used: number; limit: number; resetsAt: Date };
}

/** The subscribed plan's call rates, as the plans table holds them: what a refusal tells a free account. */
export type SubscribedRates = () => Promise<Pick<Limits, 'callsPerMinute' | 'callsPerDay'> | null>;

const seconds = (n: number) => `${n} seconde${n > 1 ? 's' : ''}`;

/**
 * The per-minute refusal: the real wait (the `retry_after_seconds` of the answer, when the
 * oldest call of the sliding minute leaves it), the pace that keeps under the ceiling, and
 * what a subscription changes for this caller's plan.
 */
export function minuteRefusal(limit: number, wait: number, plan: Caller['plan'], subscribed: number | null): string {
  const pace = Math.max(1, Math.ceil(60 / limit));
  const planNote =
    plan === 'subscribed'
      ? ' ; l’organisation est déjà abonnée : seul l’espacement des appels aide'
      : subscribed !== null && subscribed > limit
        ? ` ; la formule abonnée porte ce rythme à ${subscribed} appels par minute`
        : '';
  return `Quota par minute atteint : ${limit} appels par minute glissante au plus. Réessayer dans ${seconds(wait)} (quand le plus ancien appel de la minute sort du compte), puis faire un appel à la fois, au plus un toutes les ${seconds(pace)}${planNote}.`;
}

/** The daily refusal: the sliding 24 hours, the wait, and for a free account what the subscribed plan allows. */
export function dayRefusal(limit: number, wait: number, plan: Caller['plan'], subscribed: number | null): string {
  const planNote = plan === 'free' ? (subscribed !== null && subscribed > limit ? ` ; la formule abonnée porte ce plafond à ${subscribed} appels` : ' ; la formule abonnée relève ce plafond') : '';
  return `Quota journalier atteint : ${limit} appels sur 24 heures glissantes au plus (pas de remise à zéro à minuit). Réessayer dans ${seconds(wait)}${planNote}.`;
}

export class QuotaKeeper {
  /** The counters failed since they last worked: the failure was reported once already. */
  private failing = false;

  /**
   * `onFailure` hears of the first failure after a success (the log's error line), and
   * `onRecovery` of the success after it; `subscribedRates` gives the rates a free account's
   * refusal names (read on a refusal only); `onRefusal` hears of each call or opening refused by a ceiling (the metrics).
   */
  constructor(
    private readonly store: QuotaStore,
    private readonly now: () => Date,
    private readonly report: {
      onFailure?: (err: unknown) => void;
      onRecovery?: () => void;
      subscribedRates?: SubscribedRates;
      onRefusal?: (ceiling: 'minute' | 'day' | 'files') => void;
    } = {},
  ) {}

  /** The subscribed plan's rates for a free caller's refusal; a failed read leaves the refusal without them. */
  private async subscribedRates(caller: Caller): Promise<Pick<Limits, 'callsPerMinute' | 'callsPerDay'> | null> {
    if (caller.plan !== 'free' || !this.report.subscribedRates) return null;
    try {
      return await this.report.subscribedRates();
    } catch {
      return null;
    }
  }

  /** A dependency failure is `quota_unavailable`: the call is neither counted nor run. */
  private async guarded<T>(run: () => Promise<T>): Promise<T> {
    try {
      const result = await run();
      if (this.failing) {
        this.failing = false;
        this.report.onRecovery?.();
      }
      return result;
    } catch (err) {
      if (err instanceof ServiceError || err instanceof StaleIdentityError) throw err;
      if (!this.failing) {
        this.failing = true;
        this.report.onFailure?.(err);
      }
      if (err instanceof DatabaseBusyError)
        throw new QuotaUnavailableError('Comptage des quotas momentanément indisponible : la base de données est verrouillée par une autre opération ; réessayer dans quelques secondes.', 2);
      throw new QuotaUnavailableError();
    }
  }

  /**
   * Returns the caller as admitted: an identity from memory (`unconfirmed`) is checked by the
   * admission's statement and, when it changed, read again (this may refuse the call: 401)
   * and admitted with what it now says; it is never counted twice.
   */
  async admitCall(caller: Caller): Promise<Caller> {
    const now = this.now().getTime();
    const check = caller.unconfirmed;
    let verdict;
    try {
      verdict = await this.guarded(() => this.store.admitCall(caller.accountId, caller.limits, now, check?.identityVersion));
    } catch (err) {
      if (!(err instanceof StaleIdentityError) || !check) throw err;
      // The confirmed caller has no `unconfirmed`: one more admission at most.
      return this.admitCall(await check.confirm());
    }
    if (verdict.admitted) return caller;
    const wait = Math.max(1, Math.ceil((verdict.retryAfterMs - now) / 1000));
    this.report.onRefusal?.(verdict.ceiling === 'minute' ? 'minute' : 'day');
    const rates = await this.subscribedRates(caller);
    if (verdict.ceiling === 'minute') throw new QuotaExceededError(minuteRefusal(verdict.limit, wait, caller.plan, rates?.callsPerMinute ?? null), wait);
    throw new QuotaExceededError(dayRefusal(verdict.limit, wait, caller.plan, rates?.callsPerDay ?? null), wait);
  }

  /**
   * Opening a consultation file for text or a link: the first opening of the file in the
   * Paris day takes a unit, a re-read that day is free. Returns whether a unit was taken.
   */
  async openFile(caller: Caller, fileKey: string): Promise<{ counted: boolean }> {
    const now = this.now();
    const verdict = await this.guarded(() => this.store.openFile(caller.accountId, fileKey, parisDay(now), caller.limits, now.getTime()));
    if (verdict.admitted) return { counted: verdict.counted };
    const seconds = Math.max(1, Math.ceil((nextParisMidnight(now).getTime() - now.getTime()) / 1000));
    this.report.onRefusal?.('files');
    throw new QuotaExceededError(
      `Quota de consultation atteint : ${verdict.limit} dossiers distincts ouverts aujourd’hui au plus. Le compteur repart à minuit, heure de Paris ; un dossier déjà ouvert aujourd’hui se relit sans compter.`,
      seconds,
      { kind: 'tool' },
    );
  }

  async status(caller: Caller): Promise<QuotaStatus> {
    const now = this.now();
    const state = await this.guarded(() => this.store.state(caller.accountId, parisDay(now), now.getTime()));
    const at = (ms: number | null) => (ms === null ? null : new Date(ms));
    return {
      minute: { used: state.minute.used, limit: caller.limits.callsPerMinute, nextFreeAt: at(state.minute.nextFreeAtMs) },
      day: { used: state.day.used, limit: caller.limits.callsPerDay, nextFreeAt: at(state.day.nextFreeAtMs) },
      files: { used: state.filesToday, limit: caller.limits.filesPerDay, resetsAt: nextParisMidnight(now) },
    };
  }
}
