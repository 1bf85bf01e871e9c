// The authorize step's pages: login, then consent listing the requested scopes in French.
import type { Context, Middleware } from 'koa';
import type { Database } from '../platform/db/database.js';
import { csrfToken, csrfValid, readForm } from './forms.js';
import { consentPage, errorPage, loginPage } from './pages.js';
import type { AuthServer } from './provider.js';
import { signIn } from './sign-in.js';
import { recordActivity } from './store/activity-log.js';

/** The handlers of the authorize step's pages; app.ts gives each its address (the interaction's uid captured first). */
export function createInteractionPages(auth: AuthServer, db: Database, now: () => Date) {
  const { provider } = auth;

  async function clientName(clientId: unknown): Promise<string | null> {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    const name = (client?.clientName as string | undefined) ?? null;
    // A client described by its metadata document names itself: the page also shows the
    // host that published it, which the name alone could impersonate.
    const documentHost = typeof clientId === 'string' && clientId.startsWith('https://') ? URL.parse(clientId)?.host : undefined;
    if (documentHost) return name ? `${name} (${documentHost})` : documentHost;
    return name;
  }

  function requestedScopes(details: Awaited<ReturnType<typeof provider.interactionDetails>>): string[] {
    const missing = (details.prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
    const scopes = missing[auth.resource] ?? String(details.params.scope ?? '').split(' ').filter(Boolean);
    return [...new Set(scopes)];
  }

  async function show(ctx: Context, uid: string, error?: string, email?: string): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const name = await clientName(details.params.client_id);
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    if (details.prompt.name === 'login') {
      ctx.body = loginPage({ action: `/oauth/interaction/${uid}/login`, csrf: csrfToken(auth.csrfKey, `${uid}:login`), clientName: name, email, error });
    } else {
      ctx.body = consentPage({ action: `/oauth/interaction/${uid}/consent`, csrf: csrfToken(auth.csrfKey, `${uid}:consent`), clientName: name, scopes: requestedScopes(details) });
    }
  }

  async function login(ctx: Context, uid: string): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const form = await readForm(ctx);
    if (details.uid !== uid || details.prompt.name !== 'login' || !csrfValid(auth.csrfKey, `${uid}:login`, form.get('csrf'))) {
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = errorPage('csrf', 'Formulaire expiré ou invalide : recommencer la connexion depuis l’application.');
      return;
    }
    const email = form.get('email') ?? '';
    const result = await signIn(db, email, form.get('password') ?? '', ctx.ip, now());
    if (!result.ok) {
      ctx.status = 200;
      return show(ctx, uid, result.message, email);
    }
    ctx.respond = false;
    await provider.interactionFinished(ctx.req, ctx.res, { login: { accountId: result.userId } }, { mergeWithLastSubmission: false });
  }

  async function consent(ctx: Context, uid: string): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const form = await readForm(ctx);
    if (details.uid !== uid || details.prompt.name !== 'consent' || !csrfValid(auth.csrfKey, `${uid}:consent`, form.get('csrf'))) {
      ctx.status = 403;
      ctx.type = 'html';
      ctx.body = errorPage('csrf', 'Formulaire expiré ou invalide : recommencer depuis l’application.');
      return;
    }
    ctx.respond = false;
    if (form.get('decision') !== 'approve') {
      await provider.interactionFinished(ctx.req, ctx.res, { error: 'access_denied', error_description: 'L’accès a été refusé par le titulaire du compte.' }, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = details.session?.accountId as string;
    const clientId = details.params.client_id as string;
    const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId });
    if (!grant) throw new Error('grant disparu');
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope((missing.missingOIDCScope as string[]).join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims as string[]);
    for (const [indicator, scopes] of Object.entries((missing.missingResourceScopes ?? {}) as Record<string, string[]>)) grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    if (!details.grantId) {
      const membership = await db('memberships').where('user_id', accountId).first('organisation_id');
      await recordActivity(db, { organisationId: (membership?.organisation_id as string | undefined) ?? null, actorId: accountId, kind: 'acces_ia_accorde', detail: await clientName(clientId), ip: ctx.ip }, now());
    }
    await provider.interactionFinished(ctx.req, ctx.res, { consent: details.grantId ? {} : { grantId } }, { mergeWithLastSubmission: true });
  }

  /** A step of the authorize flow for the interaction in the address (the route's capture). */
  const step =
    (run: (ctx: Context, uid: string) => Promise<void>): Middleware =>
    async (ctx) => {
      try {
        await run(ctx, (ctx.captures as string[])[0] as string);
      } catch (err) {
        if (ctx.respond === false) throw err;
        const name = (err as { name?: string }).name;
        ctx.status = name === 'SessionNotFound' ? 400 : 503;
        ctx.type = 'html';
        ctx.body = errorPage(
          name === 'SessionNotFound' ? 'session_introuvable' : 'indisponible',
          name === 'SessionNotFound' ? 'Cette demande d’autorisation a expiré ou vient d’un autre navigateur : recommencer depuis l’application.' : 'Service momentanément indisponible.',
        );
      }
    };

  return {
    /** GET /oauth/interaction/{uid}: the login or the consent page, as the interaction asks. */
    show: step((ctx, uid) => show(ctx, uid)),
    /** POST /oauth/interaction/{uid}/login */
    login: step(login),
    /** POST /oauth/interaction/{uid}/consent */
    consent: step(consent),
    /** Any other method on these addresses. */
    methodNotAllowed: (async (ctx) => {
      ctx.status = 405;
      ctx.type = 'html';
      ctx.body = errorPage('method_not_allowed', 'Méthode non autorisée.');
    }) satisfies Middleware,
  };
}
