// Builds the HTTP application from its parts; server.ts and the tests both use it.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import Koa from 'koa';
import { createAccountPages, SESSION_COOKIE } from './auth/account-pages.js';
import { escapeHtml, page } from './auth/pages.js';
import { webSessionUser } from './auth/store/web-sessions.js';
import { dceDownloads } from './domains/dce/download.js';
import { responseFileExports } from './domains/response-files/export.js';
import { openObjectStore } from './platform/files/object-store.js';
import { BearerAuthenticator } from './auth/bearer.js';
import { createInteractionPages } from './auth/interactions.js';
import { createSelfServicePages } from './auth/self-service-pages.js';
import { LEGAL_PATHS, legalPages } from './auth/legal-pages.js';
import { authorizationServerMetadata, protectedResourceMetadata, providerEndpoints } from './auth/metadata.js';
import { metadataRoutes } from './auth/resources.js';
import { createAuthServer } from './auth/provider.js';
import { CallPath } from './call-path.js';
import type { Config } from './config.js';
import { Contract } from './contract/runtime.js';
import { echoed } from './contract/text-rules.js';
import { kindOf, poolStallWatch, waitingForConnection, type Database } from './platform/db/database.js';
import { Bulkhead } from './platform/bulkhead.js';
import { createQuotaStore } from './access/quota-store.js';
import { secret } from './platform/db/secrets.js';
import { NotFoundError, errorBody } from './errors.js';
import { createAccessLog, noteCall } from './http/access-log.js';
import { callDeadline } from './http/deadline.js';
import { contractDocument } from './http/documents.js';
import { closeAfterUnreadBody } from './http/unread-body.js';
import { createReadiness, type Readiness } from './platform/readiness.js';
import { healthRoutes } from './http/health.js';
import { createOriginPolicy } from './http/origin.js';
import {
  announcementRecordPage,
  awardRecordPage,
  brandReportRecordPage,
  companyRecordPage,
  createDcePages,
  createPermalinkPages,
  noticeRecordPage,
  permitRecordPage,
  saleRecordPage,
} from './http/permalinks.js';
import { errorSummary, type Logger } from './log.js';
import { createMcpRouter } from './mcp/router.js';
import { QuotaKeeper } from './access/quota-keeper.js';
import { createRegistry, type Registry } from './domains/index.js';
import { createRestRouter, REST_PREFIX } from './rest/router.js';
import type { Services } from './domains/context.js';
import { systemResolver } from './domains/emails/dns-check.js';
import { planLimits } from './domains/plan/store.js';
import { createCallMetrics, metricsRoute } from './http/metrics.js';
import { ProcessMetrics } from './platform/metrics.js';
import { stateMetricsText } from './state-metrics.js';

/**
 * PostgreSQL: a call is refused at once (503, Retry-After) when the operations' pool is
 * stuck (queries wait and no connection was handed out for POOL_STALL_MS: every connection
 * held by statements that do not end), or when this many queries already wait (a bound on
 * memory, far past what a moving queue holds). A long queue that moves is load: it is served.
 */
const POOL_STALL_MS = 1000;
const POOL_QUEUE_LIMIT = 500;

export interface AppDeps {
  config: Config;
  db: Database;
  /** The connections of authentication and quota admission (PostgreSQL: a pool of their own); `db` when absent. */
  control?: Database;
  /** The connection of /healthz (PostgreSQL: its own, so that calls waiting on a table never make the service look down); `db` and `control` when absent. */
  health?: Database;
  logger: Logger;
  now?: () => Date;
  /** Replaces handlers of the registry (tests of the call path only). */
  wrapRegistry?: (registry: Registry) => Registry;
  /** This process' metrics (a new set when absent). */
  metrics?: ProcessMetrics;
  /** The text of the process metrics `/metrics` serves: the machine's workers summed, in a cluster; this process' alone otherwise. */
  readMetrics?: () => Promise<string>;
  /** Whether the service is ready for traffic (/readyz); ready from the start when absent. */
  readiness?: Readiness;
}

export async function createApp(deps: AppDeps): Promise<Koa> {
  const { config, db, logger } = deps;
  const control = deps.control ?? db;
  const now = deps.now ?? (() => new Date());
  const contract = Contract.load();
  const metrics = deps.metrics ?? new ProcessMetrics({ node: !!config.metricsToken });
  metrics.watchPool('operations', db);
  if (control !== db) metrics.watchPool('control', control);
  const quota = new QuotaKeeper(createQuotaStore(control), now, {
    onFailure: (err) => logger.error({ err: errorSummary(err) }, 'quotas : comptage impossible, appels refusés (503 quota_unavailable)'),
    onRecovery: () => logger.info('quotas : comptage rétabli'),
    subscribedRates: async () => (await planLimits(control)).find((l) => l.plan === 'subscribed') ?? null,
    onRefusal: (ceiling) => metrics.quotaRefused(ceiling),
  });
  const cursorKey = await secret(db, 'search-cursor', () => randomBytes(32).toString('base64url'));
  const dceLinkKey = await secret(db, 'dce-links', () => randomBytes(32).toString('base64url'));
  const eventAckKey = await secret(db, 'event-acks', () => randomBytes(32).toString('base64url'));
  const email = { smtpConfigured: config.smtpUrl !== undefined, mailFrom: config.mailFrom, resolver: config.emailDnsResolver ?? systemResolver() };
  const dceStore = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  const services: Services = { db, contract, now, quota, publicUrl: config.publicUrl, cursorKey, dceLinkKey, eventAckKey, email, dceStore, sync: config.sync };
  const base = createRegistry(services);
  const registry = deps.wrapRegistry ? deps.wrapRegistry(base) : base;
  const postgres = kindOf(db) === 'postgres';
  const stalled = postgres ? poolStallWatch(db, POOL_STALL_MS) : undefined;
  const saturated = stalled ? () => stalled() || waitingForConnection(db) >= POOL_QUEUE_LIMIT : undefined;
  // Five eighths of the operations' connections at most for the calls of one operation (10 of
  // 16): the others keep 6. A call waits for its share within its own time limit (then 504).
  const poolSize = Number((db.client.config as { pool?: { max?: number } }).pool?.max ?? 10);
  const bulkhead = postgres ? new Bulkhead(Math.max(1, Math.ceil((poolSize * 5) / 8)), config.limits.operationTimeoutMs) : undefined;
  const callPath = new CallPath({ contract, registry, logger, quota, operationTimeoutMs: config.limits.operationTimeoutMs, saturated, bulkhead });
  const auth = await createAuthServer(control, {
    publicUrl: config.publicUrl,
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
    clientMetadataTestTrust: config.clientMetadataTestTrust,
  });
  const authenticator = new BearerAuthenticator(auth, control, now);
  const openapi = JSON.parse(readFileSync(new URL('../generated/openapi.json', import.meta.url), 'utf8')) as object;
  const transport = { contract, callPath, authenticator, limits: config.limits, logger, publicUrl: config.publicUrl };

  const accountPages = createAccountPages(auth, control, now, { smtpConfigured: email.smtpConfigured, sync: config.sync });
  const interactions = createInteractionPages(auth, control, now);
  const selfService = createSelfServicePages({
    auth,
    db: control,
    now,
    mail: { mailFrom: config.mailFrom, publicUrl: config.publicUrl, serviceName: config.legal.serviceName },
    linkKey: dceLinkKey,
    store: dceStore,
  });
  const legal = legalPages(config.legal);
  const recordPage = createPermalinkPages({ db: control, callPath, now });
  const dcePages = createDcePages({ db: control, callPath, now });
  const dceDownload = dceDownloads({ db, store: dceStore, key: dceLinkKey, now });
  const responseFileExport = responseFileExports({ db, store: dceStore, key: dceLinkKey, now });
  const INTERACTION = '\\/oauth\\/interaction\\/([A-Za-z0-9_-]+)';

  // Every address but the API's (MCP and REST below, with their own routing from the
  // contract). Exact paths: case and trailing slash count; a GET route answers HEAD too.
  const routes = new Router({ sensitive: true, strict: true });
  // Metrics: only with METRICS_TOKEN; without it the address does not exist (404 below).
  if (config.metricsToken) {
    const readProcessMetrics = deps.readMetrics ?? (() => metrics.registry.metrics());
    routes.get('/metrics', metricsRoute(config.metricsToken, async () => `${await readProcessMetrics()}\n${await stateMetricsText(db, config.sync, logger, now())}`, logger));
  }
  const health = healthRoutes(deps.health ? [deps.health] : control === db ? [db] : [db, control], logger, deps.readiness ?? createReadiness(), deps.health ? [db, control] : []);
  // RFC 9728: the canonical resource's metadata at the root and in path form, each restricted address's in path form.
  for (const { path, address } of metadataRoutes()) routes.get(path, protectedResourceMetadata(auth, address));
  routes
    .get('/healthz', health.health)
    .get('/readyz', health.ready)
    // The contract documents
    .get('/openapi.json', contractDocument('openapi.json', config.publicUrl))
    // llmstxt.org places the index at the site's root; /docs/llms.txt stays for existing readers.
    .get(['/llms.txt', '/docs/llms.txt'], contractDocument('llms.txt', config.publicUrl))
    .get('/llms-full.txt', contractDocument('llms-full.txt', config.publicUrl))
    .get('/agents/manifest.json', contractDocument('manifest.json', config.publicUrl))
    // OAuth: discovery, the authorize step's pages, then oidc-provider's own endpoints
    .get('/.well-known/oauth-authorization-server', authorizationServerMetadata(auth))
    .get(new RegExp(`^${INTERACTION}$`), interactions.show)
    .post(new RegExp(`^${INTERACTION}\\/login$`), interactions.login)
    .post(new RegExp(`^${INTERACTION}\\/consent$`), interactions.consent)
    .all(new RegExp(`^${INTERACTION}(?:\\/(?:login|consent))?$`), interactions.methodNotAllowed)
    .all(/^\/oauth\//, providerEndpoints(auth, config.limits.bodyTimeoutMs))
    .all('/.well-known/openid-configuration', providerEndpoints(auth, config.limits.bodyTimeoutMs))
    // Account settings (Accès IA); any other /compte… address asks to sign in first
    .get('/compte/connexion', accountPages.signInForm)
    .post('/compte/connexion', accountPages.signIn)
    // Self-service: sign-up, forgotten password, invitations, e-mail links (single use, POSTed)
    .get('/compte/inscription', selfService.signUpForm)
    .post('/compte/inscription', selfService.signUp)
    .get('/compte/inscription/confirmer/:token', selfService.confirmSignUpForm)
    .post('/compte/inscription/confirmer/:token', selfService.confirmSignUp)
    .get('/compte/mot-de-passe-oublie', selfService.forgotForm)
    .post('/compte/mot-de-passe-oublie', selfService.forgot)
    .get('/compte/reinitialisation/:token', selfService.resetForm)
    .post('/compte/reinitialisation/:token', selfService.reset)
    .get('/compte/invitation/:token', selfService.invitationForm)
    .post('/compte/invitation/:token', selfService.acceptInvitation)
    .get('/compte/adresse/confirmer/:token', selfService.confirmEmailForm)
    .post('/compte/adresse/confirmer/:token', selfService.confirmEmail)
    // The export link: the token is never written in the log.
    .get(/^\/compte\/export\/([A-Za-z0-9_.-]+)$/, async (ctx, next) => {
      noteCall(ctx, { address: 'compte-export' });
      ctx.params = { token: (ctx.captures as string[])[0] as string };
      return selfService.downloadExport(ctx, next);
    })
    // Mon compte, the organisation (administrators), the activity log
    .get('/compte', selfService.myAccount)
    .post('/compte/adresse', selfService.changeEmail)
    .post('/compte/mot-de-passe', selfService.changePassword)
    .post('/compte/quitter', selfService.leave)
    .post('/compte/supprimer', selfService.deleteAccount)
    .post('/compte/export', selfService.requestExport)
    .get('/compte/organisation', selfService.organisation)
    .post('/compte/organisation/inviter', selfService.invite)
    .post('/compte/organisation/invitations/revoquer', selfService.revokeInvitation)
    .post('/compte/organisation/role', selfService.changeRole)
    .post('/compte/organisation/retirer', selfService.removeMember)
    .get('/compte/journal', selfService.journal)
    .get('/compte/acces-ia', accountPages.accesses)
    .get('/compte/courriels', accountPages.emails)
    .get('/compte/sources', accountPages.sources)
    .post('/compte/acces-ia/deconnecter', accountPages.disconnect)
    .post('/compte/deconnexion', accountPages.signOut)
    .get('/compte/abonnement', accountPages.plan)
    .get('/compte/abonnement/:id', accountPages.subscriptionRequest)
    .post('/compte/abonnement/:id/confirmer', accountPages.confirmSubscription)
    .all(/^\/compte/, accountPages.signInRequired)
    // Legal pages, linked from every page's footer and from the OAuth metadata
    .get(LEGAL_PATHS.privacy, legal.privacy)
    .get(LEGAL_PATHS.terms, legal.terms)
    .get(LEGAL_PATHS.notice, legal.notice)
    .get(LEGAL_PATHS.support, legal.support)
    // Record pages (every record's `url`), through the call path
    // Consultation files' temporary links: the path (the token) is never written in the log.
    .get(/^\/dce\/telechargement\/([A-Za-z0-9_.-]+)$/, async (ctx) => {
      noteCall(ctx, { address: 'dce-telechargement' });
      const signedIn = await webSessionUser(control, ctx.cookies.get(SESSION_COOKIE), now());
      const answer = await dceDownload((ctx.captures as string[])[0] as string, signedIn ?? null);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      if ('title' in answer.body) {
        ctx.type = 'html';
        ctx.body = page(answer.body.title, `<h1>${escapeHtml(answer.body.title)}</h1><p>${escapeHtml(answer.body.message)}</p>`);
      } else ctx.body = answer.body;
    })
    // Response files' export links: the same rules (the token never in the log).
    .get(/^\/dossiers\/export\/([A-Za-z0-9_.-]+)$/, async (ctx) => {
      noteCall(ctx, { address: 'dossiers-export' });
      const signedIn = await webSessionUser(control, ctx.cookies.get(SESSION_COOKIE), now());
      const answer = await responseFileExport((ctx.captures as string[])[0] as string, signedIn ?? null);
      ctx.status = answer.status;
      ctx.set(answer.headers);
      if ('title' in answer.body) {
        ctx.type = 'html';
        ctx.body = page(answer.body.title, `<h1>${escapeHtml(answer.body.title)}</h1><p>${escapeHtml(answer.body.message)}</p>`);
      } else ctx.body = answer.body;
    })
    .get(/^\/entreprises\/(\d{9})$/, recordPage('entreprises.get', (siren) => ({ siren }), companyRecordPage))
    .get(/^\/etablissements\/(\d{14})$/, recordPage('entreprises.get', (siret) => ({ siret }), companyRecordPage))
    .get(/^\/marches\/([^/]+)$/, recordPage('marches.get', (id) => ({ marche_id: id }), noticeRecordPage))
    .get(/^\/marches\/([^/]+)\/dce\/lecture$/, dcePages.reading)
    .get(/^\/marches\/([^/]+)\/dce\/telechargement$/, dcePages.download)
    .get(/^\/attributions\/([^/]+)$/, recordPage('attributions.get', (id) => ({ id }), awardRecordPage))
    .get(/^\/bodacc\/([^/]+)$/, recordPage('bodacc.get', (id) => ({ id }), announcementRecordPage))
    .get(/^\/acheteurs\/([^/]+)$/, recordPage('acheteurs.get', (id) => ({ id })))
    .get(/^\/deliberations\/([^/]+)$/, recordPage('deliberations.get', (id) => ({ id })))
    .get(/^\/publications\/([^/]+)$/, recordPage('publications.get', (id) => ({ id })))
    .get(/^\/contacts\/([^/]+)$/, recordPage('contacts.get', (id) => ({ id })))
    .get(/^\/ventes\/([^/]+)$/, recordPage('ventes.search', (id) => ({ id_mutation: id }), saleRecordPage))
    .get(/^\/permis\/([^/]+)$/, recordPage('permis.get', (id) => ({ id }), permitRecordPage))
    .get(/^\/rapports\/marque\/(\d{9})$/, recordPage('marque.rapport', (siren) => ({ siren }), brandReportRecordPage));

  const app = new Koa({ proxy: false });
  app.silent = true;
  app.on('error', (err: Error) => logger.error({ err: errorSummary(err) }, 'erreur HTTP'));
  app.use(createAccessLog(logger));
  app.use(createCallMetrics(metrics));
  app.use(closeAfterUnreadBody());
  app.use(createOriginPolicy(config.allowedOrigins, config.publicUrl));
  // The API first: its addresses are two lookups, while the router above tries its routes'
  // patterns one by one (a twentieth of an admitted call's CPU when it came first).
  app.use(callDeadline(config.limits.operationTimeoutMs, REST_PREFIX));
  app.use(createMcpRouter(transport));
  app.use(await createRestRouter({ ...transport, openapi }));
  app.use(routes.routes());
  app.use(async (ctx) => {
    const err = new NotFoundError(`Adresse inconnue : ${echoed(ctx.method)} ${echoed(ctx.path)}.`);
    ctx.status = 404;
    ctx.body = errorBody(err);
  });
  return app;
}
