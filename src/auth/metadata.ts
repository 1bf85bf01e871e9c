// Discovery documents: RFC 9728 protected-resource metadata and RFC 8414 authorization-server
// metadata (served by oidc-provider), and the mount of oidc-provider's own endpoints.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';
import type { AuthServer } from './provider.js';
import { RESOURCE_SCOPES } from './provider.js';
import { DPOP_ALGS } from './dpop.js';
import { resourceOf, type Address } from './resources.js';
import { LEGAL_PATHS } from './legal-pages.js';

/**
 * RFC 9728 metadata of one resource, readable from any origin: the canonical one
 * (`{base_url}/api/mcp`, at the root and in path form) or a restricted MCP address (in path
 * form: `/.well-known/oauth-protected-resource/api/mcp/connectors`).
 */
export function protectedResourceMetadata(auth: AuthServer, address: Address): Middleware {
  const document = {
    resource: resourceOf(auth.issuer, address),
    authorization_servers: [auth.issuer],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ['header'],
    // RFC 9449 proofs are checked on every address (bearer.ts); bearer tokens stay accepted.
    dpop_signing_alg_values_supported: [...DPOP_ALGS],
    dpop_bound_access_tokens_required: false,
    resource_name:
      address === 'full' || address === 'rest'
        ? 'Données marchés publics et bâtiment (MCP et REST)'
        : `Données marchés publics et bâtiment (MCP, adresse ${address === 'connectors' ? 'connecteurs' : 'assistant'})`,
    resource_documentation: `${auth.issuer}/docs/llms.txt`,
    // RFC 9728 §2: the legal pages (legal-pages.ts).
    resource_policy_uri: `${auth.issuer}${LEGAL_PATHS.privacy}`,
    resource_tos_uri: `${auth.issuer}${LEGAL_PATHS.terms}`,
  };
  return async (ctx) => {
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = document;
  };
}

/** RFC 8414 metadata: the same document oidc-provider publishes at its OpenID discovery address. */
export function authorizationServerMetadata(auth: AuthServer): Middleware {
  return async (ctx) => {
    ctx.req.url = '/.well-known/openid-configuration';
    ctx.respond = false;
    await auth.handle(ctx.req, ctx.res);
  };
}

/**
 * A body still arriving after `bodyTimeoutMs` (oidc-provider reads its bodies itself, with no
 * limit of time): answered 408 with an OAuth error, and the connection closed, as REST cuts
 * at the same limit. Nothing is done with what was sent.
 */
function cutSlowBody(req: IncomingMessage, res: ServerResponse, bodyTimeoutMs: number): void {
  if (req.complete || (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined)) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    if (!res.headersSent) {
      const seconds = Math.ceil(bodyTimeoutMs / 1000);
      const body = JSON.stringify({ error: 'invalid_request', error_description: `Corps de la requête reçu trop lentement : il doit arriver en entier en ${seconds} secondes au plus.` });
      res.writeHead(408, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
      res.end(body, () => req.socket.destroy());
    } else req.socket.destroy();
  }, bodyTimeoutMs);
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  res.once('close', clear);
}

/** oidc-provider's endpoints (authorize, token, revoke, register, jwks, OpenID discovery): handed over as they come, a slow body cut at the body limit. */
export function providerEndpoints(auth: AuthServer, bodyTimeoutMs: number): Middleware {
  return async (ctx) => {
    cutSlowBody(ctx.req, ctx.res, bodyTimeoutMs);
    if (ctx.path === '/oauth/authorize' && ctx.method === 'GET') {
      // RFC 6749 §3.3: a client that asks for no scope gets the default (legacy) scope.
      const url = new URL(ctx.req.url ?? '/', 'http://x');
      if (!url.searchParams.get('scope')?.trim()) {
        url.searchParams.set('scope', 'mcp:public');
        ctx.req.url = url.pathname + url.search;
      }
    }
    ctx.respond = false;
    await auth.handle(ctx.req, ctx.res);
  };
}
