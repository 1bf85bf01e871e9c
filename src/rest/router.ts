// REST transport: `POST /api/mcp/v1/{operation}`. Routes come from the contract through
// openapi-backend (404 unknown operation, 405 wrong method); the body is read under the
// spec's limits and handed to the call path. Argument validation (Ajv 2020) runs in the
// call path, so REST and MCP refuse with the same French message.
import type { Context, Middleware } from 'koa';
import { OpenAPIBackend } from 'openapi-backend';
import type { CallPath } from '../call-path.js';
import { bearerChallenge, type BearerAuthenticator } from '../auth/bearer.js';
import type { Contract } from '../contract/runtime.js';
import { echoed } from '../contract/text-rules.js';
import { InvalidBodyError, MethodNotAllowedError, NotFoundError, asServiceError, errorBody, type ServiceError } from '../errors.js';
import { noteCall } from '../http/access-log.js';
import { whileReadingBody } from '../http/deadline.js';
import { readJsonBody, type BodyLimits } from '../platform/read-body.js';
import { DerivedFromFrozen } from '../platform/frozen.js';

export const REST_PREFIX = '/api/mcp/v1/';

/** `allow`: the method of the operation asked for, named by a 405. */
export function renderRestError(ctx: Context, err: ServiceError, publicUrl: string, allow = 'POST'): void {
  ctx.status = err.status;
  const challenge = bearerChallenge(err, publicUrl, 'rest');
  if (challenge) ctx.set('WWW-Authenticate', challenge);
  if (err.retryAfterSeconds !== null) ctx.set('Retry-After', String(err.retryAfterSeconds));
  if (err.status === 405) ctx.set('Allow', allow);
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
  // openapi-backend reads the contract and lists its operations once; each request is then
  // one lookup in that table (authentication is the bearer step, validation the call path's).
  const { security: _security, ...definition } = deps.openapi as { security?: unknown };
  const api = new OpenAPIBackend({ definition: definition as never, quick: true, validate: false });
  await api.init();
  const routes = new Map<string, { method: string; name: string }>();
  for (const op of api.getOperations() as { path: string; method: string; operationId?: string }[]) {
    routes.set(op.path, { method: op.method.toUpperCase(), name: op.operationId as string });
  }

  const encoded = new DerivedFromFrozen((result) => Buffer.from(JSON.stringify(result)));

  async function run(ctx: Context, name: string): Promise<void> {
    const op = contract.operation(name);
    if (!op) throw new NotFoundError(`Opération inconnue : « ${name} ».`);
    noteCall(ctx, { operation: op.name });
    // The call path admits the caller right after: that admission checks the identity's change stamp.
    const caller = await deps.authenticator.authenticate(ctx.get('authorization') || undefined, 'rest', { method: ctx.method, path: ctx.path, dpop: ctx.get('dpop') || undefined }, { admissionFollows: true });
    noteCall(ctx, { accountId: caller.accountId });
    const result = await callPath.call(op.name, caller, async () => {
      if (op.method === 'get') return {};
      const args = await whileReadingBody(ctx, () => readJsonBody(ctx.req, limits));
      if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new InvalidBodyError('Le corps doit être un objet JSON (les arguments de l’opération).');
      return args;
    });
    // Encoded once: given the object, Koa serialises it, measures the string's UTF-8 length
    // and the socket encodes it again (a sixteenth of an admitted call's CPU, 6.7 KB answer).
    // A frozen result handed out again (platform/frozen.ts) keeps its bytes.
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = encoded.of(result);
    ctx.status = 200;
  }

  return async (ctx, next) => {
    if (!ctx.path.startsWith(REST_PREFIX) && ctx.path !== REST_PREFIX.slice(0, -1)) return next();
    noteCall(ctx, { address: 'rest' });
    const route = routes.get(ctx.path);
    try {
      const name = ctx.path.slice(REST_PREFIX.length);
      if (!route) throw new NotFoundError(`Opération inconnue : « ${echoed(name) || '(vide)'} ». La liste des opérations est dans /openapi.json.`);
      if (ctx.method !== route.method) throw new MethodNotAllowedError(`Méthode ${ctx.method} non autorisée : l'opération « ${name} » s'appelle en ${route.method}.`);
      await run(ctx, route.name);
    } catch (err) {
      renderRestError(ctx, asServiceError(err), deps.publicUrl, route?.method);
    }
  };
}
