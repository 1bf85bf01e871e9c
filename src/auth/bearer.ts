// Resource side: the bearer token of every REST and MCP call, checked against the
// authorization server's storage (so a revocation takes effect on the very next call).
import type { Caller } from '../caller.js';
import { loadAccount } from '../data/accounts.js';
import type { Database } from '../data/database.js';
import { recordGrantUse } from '../data/oauth-store.js';
import { InsufficientScopeError, UnauthenticatedError, type ServiceError } from '../errors.js';
import type { AuthServer } from './provider.js';

/** How often a grant's "last use" is written at most (not on every call). */
const USAGE_WRITE_INTERVAL_MS = 60_000;

export class BearerAuthenticator {
  private readonly lastUsageWrite = new Map<string, number>();

  constructor(
    private readonly auth: AuthServer,
    private readonly db: Database,
    private readonly now: () => Date,
  ) {}

  async authenticate(authorization: string | undefined, address: Caller['address']): Promise<Caller> {
    if (!authorization) throw new UnauthenticatedError('Authentification requise : envoyer « Authorization: Bearer <jeton> » (jeton OAuth obtenu par le flux d’autorisation).');
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new UnauthenticatedError('En-tête Authorization invalide : « Bearer <jeton> » attendu.');
    const token = await this.auth.provider.AccessToken.find(match[1]);
    if (!token || token.isExpired) throw new UnauthenticatedError('Jeton invalide, expiré ou révoqué.');
    const audience = ([] as unknown[]).concat(token.aud ?? []);
    if (!audience.includes(this.auth.resource)) throw new UnauthenticatedError('Jeton émis pour une autre ressource que ce service.');
    const account = token.accountId ? await loadAccount(this.db, token.accountId) : undefined;
    if (!account) throw new UnauthenticatedError('Jeton invalide : le compte n’existe plus.');
    const grantId = (token.grantId as string | undefined) ?? null;
    if (grantId) await this.noteUse(grantId);
    return {
      accountId: account.userId,
      organisationId: account.organisationId,
      role: account.role,
      plan: account.plan,
      emailOption: account.emailOption,
      eligibleAccess: account.eligibleAccess,
      limits: account.limits,
      scopes: String(token.scope ?? '').split(' ').filter(Boolean),
      clientId: token.clientId as string,
      grantId,
      address,
    };
  }

  private async noteUse(grantId: string): Promise<void> {
    const now = this.now();
    const last = this.lastUsageWrite.get(grantId) ?? 0;
    if (now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return;
    this.lastUsageWrite.set(grantId, now.getTime());
    await recordGrantUse(this.db, grantId, now);
  }
}

/** The `WWW-Authenticate` challenge of a 401 or a scope refusal (RFC 6750, RFC 9728). */
export function bearerChallenge(err: ServiceError, publicUrl: string): string | null {
  const metadata = `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource"`;
  if (err instanceof UnauthenticatedError) return `Bearer realm="MCP", ${metadata}`;
  if (err instanceof InsufficientScopeError) return `Bearer realm="MCP", error="insufficient_scope", scope="${err.scope}", ${metadata}`;
  return null;
}
