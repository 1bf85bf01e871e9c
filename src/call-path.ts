// The one path every call takes, whatever the transport: its steps read top to bottom.
// The transport has authenticated the caller; every rule after that is decided here.
import { checkPlan, checkScope, checkWorkspaceRights } from './access/rules.js';
import type { Caller } from './access/caller.js';
import type { Contract } from './contract/runtime.js';
import type { OperationEntry } from './contract/types.js';
import { InvalidArgumentsError, InvalidCursorError, NotFoundError, TimeoutError, UnavailableError, asServiceError, type ServiceError } from './errors.js';
import { errorSummary, type Logger } from './log.js';
import { DatabaseBusyError, isBusy } from './platform/db/busy.js';
import { CursorRejectedError, QuerySyntaxError } from './platform/search/errors.js';
import type { QuotaKeeper } from './access/quota-keeper.js';
import { isLockTimeout } from './platform/db/database.js';
import { BulkheadTimeoutError, type Bulkhead } from './platform/bulkhead.js';
import type { Registry } from './domains/index.js';
import { DerivedFromFrozen } from './platform/frozen.js';

export interface CallPathDeps {
  contract: Contract;
  registry: Registry;
  logger: Logger;
  quota: QuotaKeeper;
  operationTimeoutMs: number;
  /**
   * True when so many calls already wait for a database connection that this one would only
   * wait too (PostgreSQL's pool): it is refused at once, 503 with Retry-After, uncounted.
   */
  saturated?: () => boolean;
  /**
   * The operations' share of the database connections (PostgreSQL): the calls of one
   * operation run a few at a time, so calls stuck on a slow or locked table hold only their
   * operation's share and the other operations keep the rest.
   */
  bulkhead?: Bulkhead;
}

export class CallPath {
  /** Per operation, the output check of a frozen result handed out again: made once. */
  private readonly outputChecks = new Map<string, DerivedFromFrozen<string | null>>();

  constructor(private readonly deps: CallPathDeps) {}

  /**
   * `readArgs` reads the arguments (the REST body, the MCP `arguments`) after admission,
   * so a call refused for its body or the shape of its arguments is counted too.
   */
  async call(operation: string, given: Caller, readArgs: () => unknown): Promise<Record<string, unknown>> {
    const op = this.find(operation);
    await this.admitUnderLoad(given);
    const caller = await this.deps.quota.admitCall(given);
    const args = await readArgs();
    checkScope(op, caller);
    checkWorkspaceRights(op, caller);
    checkPlan(op, caller);
    this.validate(op, args);
    const result = await this.run(op, args, caller);
    return this.shape(op, result);
  }

  private find(operation: string): OperationEntry {
    const op = this.deps.contract.operation(operation);
    if (!op) throw new NotFoundError(`Opération inconnue : « ${operation} ».`);
    return op;
  }

  private async admitUnderLoad(caller: Caller): Promise<void> {
    if (!this.deps.saturated?.()) return;
    // A token revoked meanwhile is refused as such (401), not as a saturation.
    if (caller.unconfirmed) await caller.unconfirmed.confirm();
    throw new UnavailableError('Service saturé : trop d’appels attendent la base de données ; réessayer dans quelques secondes.', 2);
  }

  private validate(op: OperationEntry, args: unknown): void {
    this.deps.contract.validateArguments(op.name, args);
  }

  private async run(op: OperationEntry, args: unknown, caller: Caller): Promise<unknown> {
    const handler = this.deps.registry[op.name as keyof Registry] as (a: unknown, c: Caller) => Promise<unknown>;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeoutError(Math.round(this.deps.operationTimeoutMs / 1000))), this.deps.operationTimeoutMs);
    });
    try {
      const work = this.deps.bulkhead ? this.deps.bulkhead.run(op.name, () => handler(args, caller)) : handler(args, caller);
      return await Promise.race([work, deadline]);
    } catch (err) {
      const known = wireError(err);
      if (known instanceof UnavailableError && known !== err) this.deps.logger.error({ operation: op.name, err: errorSummary(err) }, 'échec interne');
      throw known;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A result that breaks its own output schema is a bug: logged, never sent. */
  private shape(op: OperationEntry, result: unknown): Record<string, unknown> {
    const problem = this.outputProblem(op, result);
    if (problem) {
      this.deps.logger.error({ operation: op.name, problem }, 'réponse non conforme au contrat');
      throw new UnavailableError();
    }
    return result as Record<string, unknown>;
  }

  private outputProblem(op: OperationEntry, result: unknown): string | null {
    if (result === null || typeof result !== 'object') return this.deps.contract.outputProblem(op.name, result);
    let check = this.outputChecks.get(op.name);
    if (!check) this.outputChecks.set(op.name, (check = new DerivedFromFrozen((r) => this.deps.contract.outputProblem(op.name, r))));
    return check.of(result);
  }
}

/**
 * The layers below the call path throw errors of their own kinds, without a status: each
 * gets its wire code here, in one place. Anything else unexpected is `unavailable`.
 */
export function wireError(err: unknown): ServiceError {
  if (err instanceof QuerySyntaxError) return new InvalidArgumentsError(err.message);
  if (err instanceof CursorRejectedError) return new InvalidCursorError(err.message);
  if (err instanceof BulkheadTimeoutError)
    return new UnavailableError('Service saturé : trop d’appels de cette opération attendent la base de données ; réessayer dans quelques secondes.', 2);
  if (isLockTimeout(err))
    return new UnavailableError('Service momentanément indisponible : les données demandées sont verrouillées par une autre opération ; réessayer dans quelques secondes.', 2);
  if (err instanceof DatabaseBusyError || isBusy(err))
    return new UnavailableError('Service momentanément indisponible : la base de données est verrouillée par une autre opération ; réessayer dans quelques secondes.', 2);
  return asServiceError(err);
}

