// Browser calls to the API: an Origin outside ALLOWED_ORIGINS (and not the service's own)
// is refused with 403 origin_denied; CORS preflights are answered for allowed origins only.
// The refusal speaks JSON-RPC on the three MCP addresses only; anywhere else under /api/mcp
// (REST operations, `/api/mcp/v1` itself, unknown addresses) it is the REST error body, as
// every other answer there.
import type { Middleware } from 'koa';
import { echoed } from '../contract/text-rules.js';
import { OriginDeniedError, errorBody } from '../errors.js';
import { MCP_ADDRESSES } from '../mcp/router.js';
import { noteCall } from './access-log.js';

const API_PREFIX = '/api/mcp';

export function originAllowed(origin: string, allowed: readonly string[], publicUrl: string): boolean {
  return origin === new URL(publicUrl).origin || allowed.includes(origin);
}

export function createOriginPolicy(allowed: readonly string[], publicUrl: string): Middleware {
  return async (ctx, next) => {
    const origin = ctx.get('origin');
    if (!origin || !(ctx.path === API_PREFIX || ctx.path.startsWith(`${API_PREFIX}/`))) return next();
    if (!originAllowed(origin, allowed, publicUrl)) {
      const err = new OriginDeniedError(`Origine non autorisée : ${echoed(origin)}. Les appels depuis un navigateur ne sont acceptés que des origines déclarées.`);
      const mcp = Object.hasOwn(MCP_ADDRESSES, ctx.path);
      const rest = ctx.path === `${API_PREFIX}/v1` || ctx.path.startsWith(`${API_PREFIX}/v1/`);
      ctx.status = 403;
      noteCall(ctx, { address: rest ? 'rest' : ctx.path });
      ctx.body = mcp ? { jsonrpc: '2.0', id: null, error: { code: -32600, message: err.message } } : errorBody(err);
      return;
    }
    ctx.set('Access-Control-Allow-Origin', origin);
    ctx.set('Vary', 'Origin');
    ctx.set('Access-Control-Expose-Headers', 'WWW-Authenticate, Retry-After, Mcp-Session-Id');
    if (ctx.method === 'OPTIONS') {
      ctx.set('Access-Control-Allow-Methods', 'GET, POST');
      ctx.set('Access-Control-Allow-Headers', 'Authorization, DPoP, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Method, Mcp-Name');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    return next();
  };
}
