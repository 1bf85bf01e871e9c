// Resource side: the bearer token of every REST and MCP call, checked against the
// authorization server's storage (so a revocation takes effect on the very next call).
import { callerOf, type Caller } from '../access/caller.js';
import { loadAccount, type AccountRecord } from './store/accounts.js';
import { changeStamp } from '../platform/db/change-stamp.js';
import type { Database } from '../platform/db/database.js';
import { recordGrantUse } from './store/oauth-store.js';
import { InsufficientScopeError, UnauthenticatedError, type ServiceError } from '../errors.js';
import type { AuthServer } from './provider.js';

/** How often a grant's "last use" is written at most (not on every call). */
const USAGE_WRITE_INTERVAL_MS = 60_000;
/** Tokens kept in memory at most; past it the memory is emptied (simplest bound, rarely reached). */
const MAX_CACHED_TOKENS = 10_000;

/** What a valid token says about its caller: the token's own fields and the account's. */
interface Identity {
  /** Expiry of the token, in seconds since the epoch (oidc-provider's `exp`). */
  exp: number;
  account: AccountRecord;
  scopes: readonly string[];
  clientId: string;
  grantId: string | null;
}

export class BearerAuthenticator {
  private readonly lastUsageWrite = new Map<string, number>();
  /**
   * Identities of tokens already checked, valid while the database's change stamp stays
   * the same (see data/change-stamp.ts): any commit of another process and any write of
   * this one (a revocation, a plan change, a new membership) changes the stamp and empties
   * it. Without a stamp (PostgreSQL), every call reads the database.
   */
  private readonly identities = new Map<string, Identity>();
  private stamp: string | null = null;

  constructor(
    private readonly auth: AuthServer,
    private readonly db: Database,
    private readonly now: () => Date,
  ) {}

  async authenticate(authorization: string | undefined, address: Caller['address']): Promise<Caller> {
    if (!authorization) throw new UnauthenticatedError('Authentification requise : envoyer « Authorization: Bearer <jeton> » (jeton OAuth obtenu par le flux d’autorisation).');
    const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization.trim());
    if (!match?.[1]) throw new UnauthenticatedError('En-tête Authorization invalide : « Bearer <jeton> » attendu.');
    const identity = await this.identify(match[1]);
    if (identity.grantId) await this.noteUse(identity.grantId);
    return callerOf(identity.account, { scopes: identity.scopes, clientId: identity.clientId, grantId: identity.grantId, address });
  }

  private async identify(token: string): Promise<Identity> {
    const stamp = await changeStamp(this.db);
    if (stamp === null || stamp !== this.stamp) {
      this.identities.clear();
      this.stamp = stamp;
    }
    const known = stamp === null ? undefined : this.identities.get(token);
    // Expiry is a matter of time, not of data: checked on every call, as oidc-provider does.
    if (known && known.exp > Math.floor(this.now().getTime() / 1000)) return known;
    const identity = await this.read(token);
    // Kept only if nothing changed while reading (the stamp was read before the reads).
    if (stamp !== null && stamp === this.stamp) {
      if (this.identities.size >= MAX_CACHED_TOKENS) this.identities.clear();
      this.identities.set(token, identity);
    }
    return identity;
  }

  private async read(value: string): Promise<Identity> {
    const token = await this.auth.provider.AccessToken.find(value);
    if (!token || token.isExpired) throw new UnauthenticatedError('Jeton invalide, expiré ou révoqué.');
    const audience = ([] as unknown[]).concat(token.aud ?? []);
    if (!audience.includes(this.auth.resource)) throw new UnauthenticatedError('Jeton émis pour une autre ressource que ce service.');
    const account = token.accountId ? await loadAccount(this.db, token.accountId) : undefined;
    if (!account) throw new UnauthenticatedError('Jeton invalide : le compte n’existe plus.');
    return {
      exp: token.exp as number,
      account,
      scopes: String(token.scope ?? '').split(' ').filter(Boolean),
      clientId: token.clientId as string,
      grantId: (token.grantId as string | undefined) ?? null,
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
