// The OAuth 2.1 authorization server: oidc-provider with our Knex storage, open dynamic
// registration (RFC 7591), revocation (RFC 7009), resource indicators (RFC 8707) for the
// canonical resource and each restricted MCP address (resources.ts), PKCE S256 always,
// opaque access tokens, rotated refresh tokens, DPoP-bound tokens on request (RFC 9449; the
// resource side checks the proofs, bearer.ts).
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { oidcProviderLoaded } from './oidc-runtime-notice.js';
import Provider, { errors, type Configuration, type ErrorOut, type KoaContextWithOIDC } from 'oidc-provider';
import { loadAccount } from './store/accounts.js';
import type { Database } from '../platform/db/database.js';
import { burnAuthorizationCode, oauthAdapterFactory } from './store/oauth-store.js';
import { applyClientRules, clientMetadataRules } from './client-rules.js';
import { DPOP_ALGS } from './dpop.js';
import { secret } from '../platform/db/secrets.js';
import { errorPage } from './pages.js';
import { LEGAL_PATHS } from './legal-pages.js';
import { clientMetadataDocuments, type ClientMetadataTestTrust } from './client-metadata-documents.js';
import { allResources, canonicalResource } from './resources.js';

oidcProviderLoaded();

export const RESOURCE_SCOPES = ['mcp:read', 'mcp:write', 'mcp:public'] as const;
/** Granted to a client that asks for no scope (the legacy connector scope). */
export const DEFAULT_SCOPE = 'mcp:public';

export interface AuthServerSettings {
  publicUrl: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  clientMetadataTestTrust?: ClientMetadataTestTrust;
}

export interface AuthServer {
  provider: Provider;
  /** The provider's own HTTP handler (authorize, token, revoke, discovery…); see `providerHandler`. */
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  issuer: string;
  /** The canonical resource: `{base_url}/api/mcp`. */
  resource: string;
  csrfKey: string;
}

export async function createAuthServer(db: Database, settings: AuthServerSettings): Promise<AuthServer> {
  const issuer = settings.publicUrl;
  const resource = canonicalResource(settings.publicUrl);
  const resources = allResources(settings.publicUrl);
  const cookieKey = await secret(db, 'cookie-key', () => randomBytes(32).toString('base64url'));
  const csrfKey = await secret(db, 'csrf-key', () => randomBytes(32).toString('base64url'));
  const signingJwk = JSON.parse(
    await secret(db, 'signing-jwk', () => JSON.stringify(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }))),
  ) as Record<string, string>;
  const kid = createHash('sha256').update(String(signingJwk.x)).digest('base64url').slice(0, 16);
  const documents = clientMetadataDocuments(settings.clientMetadataTestTrust);

  const configuration: Configuration = {
    adapter: oauthAdapterFactory(db),
    jwks: { keys: [{ ...signingJwk, kid, use: 'sig', alg: 'ES256' }] },
    enabledJWA: {
      idTokenSigningAlgValues: ['ES256'],
      dPoPSigningAlgValues: [...DPOP_ALGS],
      // No HMAC: storage keeps only a hash of a client's secret, which cannot key a MAC.
      clientAuthSigningAlgValues: ['ES256', 'Ed25519', 'EdDSA', 'PS256', 'RS256'],
    },
    // client_secret_jwt is left out for the same reason.
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    extraClientMetadata: clientMetadataRules,
    cookies: { keys: [cookieKey], long: { sameSite: 'lax' }, short: { sameSite: 'lax' } },
    async findAccount(_ctx, sub) {
      const account = await loadAccount(db, sub);
      return account ? { accountId: sub, claims: async () => ({ sub }) } : undefined;
    },
    // The service's scopes are the only ones: RFC 8414 metadata announces exactly them.
    scopes: [...RESOURCE_SCOPES],
    // RFC 8414 §2: the legal pages and the documentation (legal-pages.ts).
    discovery: {
      op_policy_uri: `${issuer}${LEGAL_PATHS.privacy}`,
      op_tos_uri: `${issuer}${LEGAL_PATHS.terms}`,
      service_documentation: `${issuer}/llms.txt`,
    },
    fetch: documents.fetch,
    features: {
      // An https URL as client_id: the client's metadata document (client-metadata-documents.ts).
      clientIdMetadataDocument: documents.feature,
      devInteractions: { enabled: false },
      dPoP: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      // A client revokes only its own tokens.
      revocation: { enabled: true, allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId },
      // Off: the default scope for a client that asks none is applied at /oauth/authorize.
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => resource,
        useGrantedResource: async () => true,
        // The canonical resource (every address and REST) or one restricted MCP address (that address only).
        getResourceServerInfo: async (_ctx, indicator) => {
          if (!resources.includes(indicator))
            throw new errors.InvalidTarget(`ressource inconnue ; ressources de ce service : ${resources.join(', ')} (la première vaut pour toutes les adresses)`);
          return { scope: RESOURCE_SCOPES.join(' '), audience: indicator, accessTokenTTL: settings.accessTokenTtlSeconds, accessTokenFormat: 'opaque' };
        },
      },
    },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Tokens of scripts and assistants live their own life, not the browser session's.
    expiresWithSession: async () => false,
    rotateRefreshToken: true,
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      revocation: '/oauth/revoke',
      registration: '/oauth/register',
      jwks: '/oauth/jwks',
      end_session: '/oauth/logout',
      introspection: '/oauth/introspect',
      pushed_authorization_request: '/oauth/par',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      backchannel_authentication: '/oauth/backchannel',
      userinfo: '/oauth/userinfo',
      challenge: '/oauth/challenge',
      credential: '/oauth/credential',
    },
    interactions: { url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    ttl: {
      AccessToken: settings.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      RefreshToken: settings.refreshTokenTtlSeconds,
      Grant: 365 * 24 * 3600,
      Interaction: 3600,
      Session: 14 * 24 * 3600,
      IdToken: 3600,
    },
    async renderError(ctx: KoaContextWithOIDC, out: ErrorOut) {
      ctx.type = 'html';
      ctx.body = errorPage(String(out.error ?? 'erreur'), String(out.error_description ?? ''));
    },
  };
  const provider = new Provider(issuer, configuration);
  provider.on('server_error', () => undefined);
  // It is a Koa application: it would print a client's aborted or timed-out request (a stack trace)
  // on standard error: those are the client's doing, answered already, and never logged.
  provider.silent = true;
  applyClientRules(provider);
  provider.use(burnCodeOnFailedRedemption(db));
  return { provider, handle: await providerHandler(provider), issuer, resource, csrfKey };
}

/**
 * A code whose redemption failed (wrong code_verifier, redirect_uri, expired…) is deleted
 * before the refusal leaves: oidc-provider would let it be tried again until it expires,
 * so a stolen code could be tried against PKCE while the real client's exchange waits.
 */
function burnCodeOnFailedRedemption(db: Database): Parameters<Provider['use']>[0] {
  return async (ctx, next) => {
    await next();
    const params = ctx.oidc?.params as { grant_type?: unknown; code?: unknown } | undefined;
    if (ctx.oidc?.route !== 'token' || ctx.status !== 400 || params?.grant_type !== 'authorization_code' || typeof params.code !== 'string') return;
    if ((ctx.body as { error?: unknown } | undefined)?.error !== 'invalid_grant') return;
    try {
      await burnAuthorizationCode(db, params.code);
    } catch {
      // The code may still be usable: the client is told to start again rather than retry.
      ctx.status = 503;
      ctx.body = { error: 'temporarily_unavailable', error_description: 'Service momentanément indisponible : recommencer l’autorisation.' };
    }
  };
}

/**
 * oidc-provider runs each of its requests in an AsyncLocalStorage. On Node 20, once such a
 * storage has run, promise hooks stay on for every promise of the process, OAuth or not:
 * about 7 % of the CPU of every API call. The storage is read only inside an OAuth request
 * (client metadata documents look up the request there); so when the last OAuth request in
 * progress ends, it is disabled, which turns the hooks off until the next OAuth request
 * turns them on again.
 */
async function providerHandler(provider: Provider): Promise<AuthServer['handle']> {
  const callback = provider.callback();
  const als = await providerStorage();
  let inProgress = 0;
  return async (req, res) => {
    inProgress += 1;
    try {
      await callback(req, res);
    } finally {
      inProgress -= 1;
      if (inProgress === 0) als?.disable();
    }
  };
}

/**
 * The storage instance oidc-provider itself uses. Not part of its typed interface: loaded by
 * path, and tolerated if it moves (null: nothing disabled). It must come from the same
 * module instance as the provider's: an ES import when this code runs as an ES module
 * (`npm start`), a require when it was loaded as CommonJS (as mocha loads it through tsx).
 */
export async function providerStorage(): Promise<AsyncLocalStorage<unknown> | null> {
  const path = 'oidc-provider/lib/helpers/als.js';
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS only, see above
    const loaded = (typeof require === 'function' ? require(path) : await import(path)) as { default?: unknown };
    return loaded.default instanceof AsyncLocalStorage ? loaded.default : null;
  } catch {
    return null;
  }
}
