// REST transport: `POST /api/mcp/v1/{operation}`. openapi-backend routes against the
// contract (404 unknown operation, 405 wrong method); the body is read under the spec's
// limits and handed to the call path. Argument validation (Ajv 2020) runs in the call path,
// so REST and MCP refuse with the same French message.
import type { Context, Middleware } from 'koa';
import { OpenAPIBackend, type Context as RouteContext } from 'openapi-backend';
import type { CallPath } from '../call.js';
import { bearerChallenge, type BearerAuthenticator } from '../auth/bearer.js';
import type { Contract } from '../contract/runtime.js';
import { InvalidBodyError, MethodNotAllowedError, NotFoundError, asServiceError, errorBody, type ServiceError } from '../errors.js';
import { readJsonBody, type BodyLimits } from '../http/read-body.js';

export const REST_PREFIX = '/api/mcp/v1/';

export function renderRestError(ctx: Context, err: ServiceError, publicUrl: string): void {
  ctx.status = err.status;
  const challenge = bearerChallenge(err, publicUrl);
  if (challenge) ctx.set('WWW-Authenticate', challenge);
  if (err.retryAfterSeconds !== null) ctx.set('Retry-After', String(err.retryAfterSeconds));
  if (err.status === 405) ctx.set('Allow', ctx.state.allow ?? 'POST');
  // The request body may be left unread (413, 408): close rather than reuse the socket.
  if (err.status === 408 || err.status === 413) ctx.set('Connection', 'close');
  ctx.body = errorBody(err);
}

export async function createRestRouter(deps: {
  contract: Contract;
  callPath: CallPath;
  authenticator: BearerAuthenticator;
  limits: BodyLimits;
  openapi: object;
  publicUrl: string;
}): Promise<Middleware> {
  const { contract, callPath, limits } = deps;
  // openapi-backend only routes: authentication is the bearer step, validation the call path's.
  const { security: _security, ...routing } = deps.openapi as { security?: unknown };
  const api = new OpenAPIBackend({ definition: routing as never, quick: true, validate: false });
  const handlers: Record<string, (c: RouteContext, ctx: Context) => Promise<void>> = {};
  for (const op of contract.operations.values()) {
    handlers[op.name] = async (_c, ctx) => {
      ctx.state.operation = op.name;
      const caller = await deps.authenticator.authenticate(ctx.get('authorization') || undefined, 'rest');
      ctx.state.caller = caller;
      const args = op.method === 'get' ? {} : await readJsonBody(ctx.req, limits);
      if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new InvalidBodyError('Le corps doit être un objet JSON (les arguments de l’opération).');
      ctx.body = await callPath.call(op.name, args, caller);
      ctx.status = 200;
    };
  }
  api.register({
    ...handlers,
    notFound: async (_c: RouteContext, ctx: Context) => {
      throw new NotFoundError(`Opération inconnue : « ${ctx.path.slice(REST_PREFIX.length) || '(vide)'} ». La liste des opérations est dans /openapi.json.`);
    },
    methodNotAllowed: async (_c: RouteContext, ctx: Context) => {
      const name = ctx.path.slice(REST_PREFIX.length);
      const allow = contract.operation(name)?.method === 'get' ? 'GET' : 'POST';
      ctx.state.allow = allow;
      throw new MethodNotAllowedError(`Méthode ${ctx.method} non autorisée : l'opération « ${name} » s'appelle en ${allow}.`);
    },
  });
  await api.init();

  return async (ctx, next) => {
    if (!ctx.path.startsWith(REST_PREFIX) && ctx.path !== REST_PREFIX.slice(0, -1)) return next();
    ctx.state.address = 'rest';
    try {
      await api.handleRequest({ method: ctx.method, path: ctx.path, headers: ctx.headers as Record<string, string> }, ctx);
    } catch (err) {
      renderRestError(ctx, asServiceError(err), deps.publicUrl);
    }
  };
}
