// Builds the HTTP application from its parts; main.ts and the tests both use it.
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { CallPath } from './call.js';
import type { Config } from './config.js';
import { Contract } from './contract/runtime.js';
import type { Database } from './data/database.js';
import { NotFoundError, errorBody } from './errors.js';
import { createAccessLog } from './http/access-log.js';
import { createDocumentRoutes } from './http/documents.js';
import { createHealthRoute } from './http/health.js';
import type { Logger } from './log.js';
import { createMcpRouter } from './mcp/router.js';
import { createRegistry, type Registry } from './registry.js';
import { createRestRouter } from './rest/router.js';
import type { Services } from './services.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => Date;
  /** Replaces handlers of the registry (tests of the call path only). */
  wrapRegistry?: (registry: Registry) => Registry;
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const contract = Contract.load();
  const services: Services = { db: deps.db, contract, now: deps.now ?? (() => new Date()) };
  const base = createRegistry(services);
  const registry = deps.wrapRegistry ? deps.wrapRegistry(base) : base;
  const callPath = new CallPath({ contract, registry, logger: deps.logger, operationTimeoutMs: deps.config.limits.operationTimeoutMs });
  const openapi = JSON.parse(readFileSync(new URL('../generated/openapi.json', import.meta.url), 'utf8')) as object;

  const app = new Koa({ proxy: false });
  app.silent = true;
  app.on('error', (err: Error) => deps.logger.error({ err: err.message }, 'erreur HTTP'));
  app.use(createAccessLog(deps.logger));
  app.use(createHealthRoute(deps.db));
  app.use(createDocumentRoutes());
  app.use(createMcpRouter({ contract, callPath, limits: deps.config.limits, logger: deps.logger }));
  app.use(await createRestRouter({ contract, callPath, limits: deps.config.limits, openapi }));
  app.use(async (ctx) => {
    const err = new NotFoundError(`Adresse inconnue : ${ctx.method} ${ctx.path}.`);
    ctx.status = 404;
    ctx.body = errorBody(err);
  });
  return app;
}
