// The three counters of the spec, one place for both transports: calls per sliding 60 s
// and 24 h (every call counts, whatever its outcome, but a call refused by a quota), and
// distinct consultation files opened per Paris calendar day.
import type { Caller } from './caller.js';
import type { QuotaStore } from './quota-store.js';
import { DatabaseBusyError } from '../platform/db/busy.js';
import { QuotaExceededError, QuotaUnavailableError, ServiceError } from '../errors.js';
import { nextParisMidnight, parisDay } from '../platform/paris-time.js';

export interface QuotaStatus {
  minute: { used: number; limit: number; nextFreeAt: Date | null };
  day: { used: number; limit: number; nextFreeAt: Date | null };
  files: { used: number; limit: number; resetsAt: Date };
}

export class QuotaKeeper {
  /** The counters failed since they last worked: the failure was reported once already. */
  private failing = false;

  /**
   * `onFailure` hears of the first failure after a success (the log's error line), and
   * `onRecovery` of the success after it; `onRefusal` of each call or opening refused by a ceiling (the metrics).
   */
  constructor(
    private readonly store: QuotaStore,
    private readonly now: () => Date,
    private readonly report: { onFailure?: (err: unknown) => void; onRecovery?: () => void; onRefusal?: (ceiling: 'minute' | 'day' | 'files') => void } = {},
  ) {}

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
      if (err instanceof ServiceError) throw err;
      if (!this.failing) {
        this.failing = true;
        this.report.onFailure?.(err);
      }
      if (err instanceof DatabaseBusyError)
        throw new QuotaUnavailableError('Comptage des quotas momentanément indisponible : la base de données est verrouillée par une autre opération ; réessayer dans quelques secondes.', 2);
      throw new QuotaUnavailableError();
    }
  }

  async admitCall(caller: Caller): Promise<void> {
    const now = this.now().getTime();
    const verdict = await this.guarded(() => this.store.admitCall(caller.accountId, caller.limits, now));
    if (verdict.admitted) return;
    const seconds = Math.max(1, Math.ceil((verdict.retryAfterMs - now) / 1000));
    this.report.onRefusal?.(verdict.ceiling === 'minute' ? 'minute' : 'day');
    if (verdict.ceiling === 'minute') {
      throw new QuotaExceededError(
        `Quota par minute atteint : ${verdict.limit} appels par minute glissante au plus. Attendre une minute et faire un appel à la fois ; un abonnement ne change rien à ce rythme.`,
        seconds,
      );
    }
    throw new QuotaExceededError(
      `Quota journalier atteint : ${verdict.limit} appels sur 24 heures glissantes au plus (pas de remise à zéro à minuit). Réessayer dans ${seconds} secondes${caller.plan === 'free' ? ' ; la formule abonnée relève ce plafond' : ''}.`,
      seconds,
    );
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
