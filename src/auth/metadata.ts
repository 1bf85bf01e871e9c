// Discovery documents: RFC 9728 protected-resource metadata (also under the path form for
// /api/mcp) and RFC 8414 authorization-server metadata (served by oidc-provider).
import type { Middleware } from 'koa';
import type { AuthServer } from './provider.js';
import { RESOURCE_SCOPES } from './provider.js';

export function createMetadataRoutes(auth: AuthServer): Middleware {
  const protectedResource = {
    resource: auth.resource,
    authorization_servers: [auth.issuer],
    scopes_supported: [...RESOURCE_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Données marchés publics et bâtiment (MCP et REST)',
    resource_documentation: `${auth.issuer}/docs/llms.txt`,
  };
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/.well-known/oauth-protected-resource' || ctx.path === '/.well-known/oauth-protected-resource/api/mcp') {
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.body = protectedResource;
      return;
    }
    if (ctx.path === '/.well-known/oauth-authorization-server') {
      // The same document oidc-provider publishes at its OpenID discovery address.
      ctx.req.url = '/.well-known/openid-configuration';
      ctx.respond = false;
      await auth.handle(ctx.req, ctx.res);
      return;
    }
    return next();
  };
}

/** Everything else under /oauth/ (authorize, token, revoke, register, jwks) goes to oidc-provider. */
export function createProviderMount(auth: AuthServer): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/oauth/') && ctx.path !== '/.well-known/openid-configuration') return next();
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
