// The access rules, in one place for both transports: which scope opens which operation,
// and who may write in a workspace.
import type { OperationEntry, ToolEntry } from '../contract/types.js';
import { AccessDeniedError, InsufficientScopeError, OrganizationRequiredError, RoleDeniedError } from '../errors.js';
import { WRITING_ROLES, type Caller } from './caller.js';

type Access = Pick<Caller, 'scopes' | 'address'>;

/**
 * The scope the caller lacks for this operation, or null. `mcp:public` (legacy) opens MCP
 * reads and writes except the event-subscription mutations, and REST reads only.
 */
export function missingScope(op: Pick<OperationEntry, 'scope' | 'effect' | 'explicitWriteScope'>, caller: Access): string | null {
  if (caller.scopes.includes(op.scope)) return null;
  if (caller.scopes.includes('mcp:public')) {
    if (op.effect === 'read') return null;
    if (caller.address !== 'rest' && !op.explicitWriteScope) return null;
  }
  return op.scope;
}

export function checkScope(op: OperationEntry, caller: Access): void {
  const missing = missingScope(op, caller);
  if (missing) throw new InsufficientScopeError(missing);
}

/**
 * A tool is announced when the caller's scopes open at least one operation it runs (a
 * read-only access still lists its alerts; creating one is refused naming mcp:write).
 */
export function toolVisible(tool: ToolEntry, operations: ReadonlyMap<string, OperationEntry>, caller: Access): boolean {
  return tool.operations.some((name) => {
    const op = operations.get(name);
    return op !== undefined && missingScope(op, caller) === null;
  });
}

/** Writes need an organisation (resolved from the identity) and a role that may write. */
export function checkWorkspaceRights(op: OperationEntry, caller: Caller): void {
  if (op.effect !== 'write') return;
  if (!caller.organisationId)
    throw new OrganizationRequiredError('Cette action écrit dans un espace de travail : le compte doit appartenir à une organisation.');
  if (!caller.role || !WRITING_ROLES.includes(caller.role))
    throw new RoleDeniedError(`Le rôle « ${caller.role ?? 'aucun'} » ne permet pas d’écrire dans l’espace de l’organisation ; demander le rôle membre ou admin.`);
}

/**
 * Paid-only operations (the contract's `x-paid-only`) need the subscribed plan; those marked
 * `x-eligible-access` also open to an organisation granted an eligible access.
 */
export function checkPlan(op: Pick<OperationEntry, 'paidOnly' | 'eligibleAccess'>, caller: Pick<Caller, 'plan' | 'eligibleAccess' | 'organisationId'>): void {
  if (!op.paidOnly || caller.plan === 'subscribed') return;
  if (op.eligibleAccess && caller.eligibleAccess) return;
  const needed = op.eligibleAccess
    ? 'à la formule abonnée (12 € HT par utilisateur et par mois, sans engagement) ou à un accès éligible accordé à l’organisation'
    : 'à la formule abonnée (12 € HT par utilisateur et par mois, sans engagement)';
  throw new AccessDeniedError(
    caller.organisationId
      ? `Cette action est réservée ${needed} ; votre organisation est sur la formule gratuite${op.eligibleAccess ? ', sans accès éligible' : ''}.`
      : `Cette action est réservée ${needed} ; le compte doit appartenir à une organisation abonnée${op.eligibleAccess ? ' ou bénéficiant d’un accès éligible' : ''}.`,
  );
}
