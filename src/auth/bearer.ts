// Resource side: the access token of every REST and MCP call, checked against the
// authorization server's storage (so a revocation takes effect on the very next call). A
// DPoP-bound token (RFC 9449) is accepted only under the DPoP scheme with a valid proof.
import { callerOf, type Caller } from '../access/caller.js';
import { loadAccount, type AccountRecord } from './store/accounts.js';
import { changeStamp } from '../platform/db/change-stamp.js';
import { kindOf, type Database } from '../platform/db/database.js';
import { recordGrantUse } from './store/oauth-store.js';
import { DpopProofStore } from './store/dpop-proofs.js';
import { DPOP_ALGS, DPOP_PROOF_WINDOW_SECONDS, DpopProofError, verifyDpopProof } from './dpop.js';
import { InsufficientScopeError, UnauthenticatedError, type ServiceError } from '../errors.js';
import type { AuthServer } from './provider.js';
import { allResources, audienceAllows, canonicalResource, challengeScopes, metadataUrlOf, type Address } from './resources.js';

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
  /** The thumbprint of the key a DPoP-bound token is bound to (`cnf.jkt`); null for a bearer token. */
  jkt: string | null;
  /** The resources it was issued for (RFC 8707 `aud`). */
  audience: readonly unknown[];
}

/** What the transport passes of the request for a DPoP proof: its method, its path, its `DPoP` header. */
export interface RequestProof {
  method: string;
  /** The path asked for (`ctx.path`); the proof's `htu` must be `{base_url}` followed by it. */
  path: string;
  dpop: string | undefined;
}

/**
 * A 401 about DPoP: the same `unauthenticated` refusal, whose challenge also carries the
 * RFC 9449 error (`invalid_token`: wrong scheme for this token; `invalid_dpop_proof`).
 */
export class DpopRefusal extends UnauthenticatedError {
  constructor(
    message: string,
    readonly challengeError: 'invalid_token' | 'invalid_dpop_proof',
  ) {
    super(message);
  }
}

/**
 * A 401 for a token that was presented (RFC 6750 §3.1): `invalid_token` when it is unknown,
 * expired, revoked or issued for another address; `invalid_request` for a malformed header.
 * A request without any token gets the challenge without an error code.
 */
export class TokenRefusal extends UnauthenticatedError {
  constructor(
    message: string,
    readonly challengeError: 'invalid_token' | 'invalid_request',
  ) {
    super(message);
  }
}

export class BearerAuthenticator {
  private readonly lastUsageWrite = new Map<string, number>();
  /**
   * Identities of tokens already checked, valid while the database's change stamp stays
   * the same (see platform/db/change-stamp.ts): on SQLite any commit of another process and
   * any write of this one, on PostgreSQL any write of the identity's tables by any process (a
   * revocation, a plan change, a new membership), changes the stamp and empties it.
   */
  private readonly identities = new Map<string, Identity>();
  private stamp: string | null = null;
  private readonly proofs: DpopProofStore;

  constructor(
    private readonly auth: AuthServer,
    private readonly db: Database,
    private readonly now: () => Date,
  ) {
    this.proofs = new DpopProofStore(db);
  }

  /**
   * `request` is needed for DPoP-bound tokens only; without it such a token is refused
   * (its proof cannot be checked), never accepted as a bearer token. `admissionFollows`: the
   * caller goes straight to the quota admission (the call path), which then checks the
   * stamp of an identity taken from memory in its own transaction (the caller's
   * `unconfirmed`) instead of a read of the stamp here: on PostgreSQL one round trip per
   * call instead of two (0.39 ms of CPU per admitted call before); on SQLite one read of the
   * stamp per group of calls, inside a transaction, instead of one per call.
   */
  async authenticate(authorization: string | undefined, address: Caller['address'], request?: RequestProof, options: { admissionFollows?: boolean } = {}): Promise<Caller> {
    if (!authorization) throw new UnauthenticatedError('Authentification requise : envoyer « Authorization: Bearer <jeton> » (jeton OAuth obtenu par le flux d’autorisation).');
    const match = /^(Bearer|DPoP) +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization.trim());
    if (!match?.[1] || !match[2]) throw new TokenRefusal('En-tête Authorization invalide : « Bearer <jeton> » ou « DPoP <jeton> » attendu.', 'invalid_request');
    const dpopScheme = match[1].toLowerCase() === 'dpop';
    const token = match[2];
    const remembered = options.admissionFollows ? this.remembered(token) : null;
    const identity = remembered?.identity ?? (await this.identify(token));
    if (!audienceAllows(identity.audience, this.auth.issuer, address))
      throw new TokenRefusal(
        `Jeton émis pour une autre adresse (${identity.audience.filter((a) => typeof a === 'string').join(', ')}) : il ne vaut que là. Pour toutes les adresses, demander un jeton pour la ressource ${canonicalResource(this.auth.issuer)}.`,
        'invalid_token',
      );
    if (identity.jkt !== null) await this.checkProof(token, identity.jkt, dpopScheme, request);
    else if (dpopScheme) throw new DpopRefusal('Jeton non lié à une clé DPoP : l’envoyer avec le schéma Bearer.', 'invalid_token');
    if (identity.grantId) await this.noteUse(identity.grantId);
    const caller = callerOf(identity.account, { scopes: identity.scopes, clientId: identity.clientId, grantId: identity.grantId, address });
    if (!remembered) return caller;
    return { ...caller, unconfirmed: { identityVersion: remembered.version, confirm: () => this.authenticate(authorization, address, request) } };
  }

  /**
   * The identity of a token in memory and the stamp it was read at (PostgreSQL: the
   * identity's version), without reading the stamp (the admission checks it in its own
   * transaction); null when it must be read now (an unknown or expired token; nothing read
   * yet; a DPoP-bound token, whose proof, once used, could not be checked again after a
   * re-read).
   */
  private remembered(token: string): { identity: Identity; version: string } | null {
    if (this.stamp === null) return null;
    let version = this.stamp;
    if (kindOf(this.db) === 'postgres') {
      if (!/^pg:[0-9]+$/.test(this.stamp)) return null;
      version = this.stamp.slice(3);
    }
    const known = this.identities.get(token);
    if (!known || known.jkt !== null || known.exp <= Math.floor(this.now().getTime() / 1000)) return null;
    return { identity: known, version };
  }

  /** RFC 9449 §7: the DPoP scheme, a valid proof for this request and this token, never seen before. */
  private async checkProof(token: string, jkt: string, dpopScheme: boolean, request: RequestProof | undefined): Promise<void> {
    // §7.2: a bound token sent as a bearer token is refused, or the binding would protect nothing.
    if (!dpopScheme) throw new DpopRefusal('Jeton lié à une clé (DPoP) : l’envoyer avec « Authorization: DPoP <jeton> » et une preuve DPoP.', 'invalid_token');
    if (!request?.dpop) throw new DpopRefusal('Preuve DPoP manquante : envoyer l’en-tête DPoP, une preuve neuve à chaque requête.', 'invalid_dpop_proof');
    const nowSeconds = Math.floor(this.now().getTime() / 1000);
    let proof: { jti: string; iat: number };
    try {
      proof = await verifyDpopProof(request.dpop, { method: request.method, url: `${this.auth.issuer}${request.path}`, accessToken: token, jkt, nowSeconds });
    } catch (err) {
      if (err instanceof DpopProofError) throw new DpopRefusal(err.message, 'invalid_dpop_proof');
      throw err;
    }
    // Kept one second past the last one its iat is accepted, then refused as too old anyway.
    const fresh = await this.proofs.firstUse(jkt, proof.jti, proof.iat + DPOP_PROOF_WINDOW_SECONDS + 1, nowSeconds);
    if (!fresh) throw new DpopRefusal('Preuve DPoP déjà utilisée : une preuve neuve (jti unique) est exigée à chaque requête.', 'invalid_dpop_proof');
  }

  private async identify(token: string): Promise<Identity> {
    const stamp = await changeStamp(this.db);
    if (stamp !== this.stamp) {
      this.identities.clear();
      this.stamp = stamp;
    }
    const known = this.identities.get(token);
    // Expiry is a matter of time, not of data: checked on every call, as oidc-provider does.
    if (known && known.exp > Math.floor(this.now().getTime() / 1000)) return known;
    const identity = await this.read(token);
    // Kept only if nothing changed while reading (the stamp was read before the reads).
    if (stamp === this.stamp) {
      if (this.identities.size >= MAX_CACHED_TOKENS) this.identities.clear();
      this.identities.set(token, identity);
    }
    return identity;
  }

  private async read(value: string): Promise<Identity> {
    const token = await this.auth.provider.AccessToken.find(value);
    if (!token || token.isExpired) throw new TokenRefusal('Jeton invalide, expiré ou révoqué.', 'invalid_token');
    const audience = ([] as unknown[]).concat(token.aud ?? []);
    const resources = allResources(this.auth.issuer);
    if (!audience.some((a) => resources.includes(a as string))) throw new TokenRefusal('Jeton émis pour une autre ressource que ce service.', 'invalid_token');
    const account = token.accountId ? await loadAccount(this.db, token.accountId) : undefined;
    if (!account) throw new TokenRefusal('Jeton invalide : le compte n’existe plus.', 'invalid_token');
    return {
      exp: token.exp as number,
      account,
      scopes: String(token.scope ?? '').split(' ').filter(Boolean),
      clientId: token.clientId as string,
      grantId: (token.grantId as string | undefined) ?? null,
      jkt: typeof token.jkt === 'string' ? token.jkt : null,
      audience,
    };
  }

  private async noteUse(grantId: string): Promise<void> {
    const now = this.now();
    const last = this.lastUsageWrite.get(grantId) ?? 0;
    if (now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return;
    this.lastUsageWrite.set(grantId, now.getTime());
    // The last-use date shown in Accès IA: a locked or failing database must not refuse the
    // call for it (it is written again at the next interval).
    await recordGrantUse(this.db, grantId, now).catch(() => this.lastUsageWrite.delete(grantId));
  }
}

/**
 * The `WWW-Authenticate` challenge of a 401 or a scope refusal (RFC 6750, RFC 9728), for the
 * address the call came in: its metadata, the scopes it needs, and for a presented token
 * the error (`invalid_token`, `invalid_request`). A 401 offers both schemes (RFC 9449 §7.2),
 * Bearer first as MCP clients read it; the DPoP challenge names the accepted algorithms and,
 * for a DPoP refusal, its error (§7.1).
 */
export function bearerChallenge(err: ServiceError, publicUrl: string, address: Address = 'full'): string | null {
  const metadata = `resource_metadata="${metadataUrlOf(publicUrl, address)}"`;
  const scope = `scope="${challengeScopes(address)}"`;
  if (err instanceof UnauthenticatedError) {
    const bearerError = err instanceof TokenRefusal ? `error="${err.challengeError}", ` : '';
    const dpopError = err instanceof DpopRefusal ? `error="${err.challengeError}", ` : '';
    return `Bearer realm="MCP", ${bearerError}${scope}, ${metadata}, DPoP realm="MCP", ${dpopError}algs="${DPOP_ALGS.join(' ')}", ${metadata}`;
  }
  if (err instanceof InsufficientScopeError) return `Bearer realm="MCP", error="insufficient_scope", scope="${err.scope}", ${metadata}`;
  return null;
}
