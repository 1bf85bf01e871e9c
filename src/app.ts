// Builds the HTTP application from its parts; server.ts and the tests both use it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { createAccountPages } from './auth/account-pages.js';
import { BearerAuthenticator } from './auth/bearer.js';
import { createInteractionRoutes } from './auth/interactions.js';
import { createMetadataRoutes, createProviderMount } from './auth/metadata.js';
import { createAuthServer } from './auth/provider.js';
import { CallPath } from './call-path.js';
import type { Config } from './config.js';
import { Contract } from './contract/runtime.js';
import type { Database } from './platform/db/database.js';
import { createQuotaStore } from './access/quota-store.js';
import { secret } from './platform/db/secrets.js';
import { NotFoundError, errorBody } from './errors.js';
import { createAccessLog } from './http/access-log.js';
import { createDocumentRoutes } from './http/documents.js';
import { createHealthRoute } from './http/health.js';
import { createOriginPolicy } from './http/origin.js';
import { createPermalinkPages } from './http/permalinks.js';
import type { Logger } from './log.js';
import { createMcpRouter } from './mcp/router.js';
import { QuotaKeeper } from './access/quota-keeper.js';
import { createRegistry, type Registry } from './domains/index.js';
import { createRestRouter } from './rest/router.js';
import type { Services } from './domains/context.js';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => Date;
  /** Replaces handlers of the registry (tests of the call path only). */
  wrapRegistry?: (registry: Registry) => Registry;
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const { config, db, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const contract = Contract.load();
  const quota = new QuotaKeeper(createQuotaStore(db), now);
  const cursorKey = await secret(db, 'search-cursor', () => randomBytes(32).toString('base64url'));
  const services: Services = { db, contract, now, quota, publicUrl: config.publicUrl, cursorKey };
  const base = createRegistry(services);
  const registry = deps.wrapRegistry ? deps.wrapRegistry(base) : base;
  const callPath = new CallPath({ contract, registry, logger, quota, operationTimeoutMs: config.limits.operationTimeoutMs });
  const auth = await createAuthServer(db, {
    publicUrl: config.publicUrl,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
  });
  const authenticator = new BearerAuthenticator(auth, db, now);
  const openapi = JSON.parse(readFileSync(new URL('../generated/openapi.json', import.meta.url), 'utf8')) as object;
  const transport = { contract, callPath, authenticator, limits: config.limits, logger, publicUrl: config.publicUrl };

  const app = new Koa({ proxy: false });
  app.silent = true;
  app.on('error', (err: Error) => logger.error({ err: err.message }, 'erreur HTTP'));
  app.use(createAccessLog(logger));
  app.use(createHealthRoute(db));
  app.use(createDocumentRoutes());
  app.use(createOriginPolicy(config.allowedOrigins, config.publicUrl));
  app.use(createMetadataRoutes(auth));
  app.use(createInteractionRoutes(auth, db, now));
  app.use(createAccountPages(auth, db, now));
  app.use(createPermalinkPages({ db, callPath, now }));
  app.use(createProviderMount(auth));
  app.use(createMcpRouter(transport));
  app.use(await createRestRouter({ ...transport, openapi }));
  app.use(async (ctx) => {
    const err = new NotFoundError(`Adresse inconnue : ${ctx.method} ${ctx.path}.`);
    ctx.status = 404;
    ctx.body = errorBody(err);
  });
  return app;
}
