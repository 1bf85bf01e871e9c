// Account settings, section "Accès IA": the accesses the holder granted (client, scopes,
// date granted, last use), each of which can be disconnected (its tokens revoked at once);
// section "Courriels": the organisation's e-mail sends and their state (the outbox).
// Plain server-rendered HTML, usable without JavaScript.
import { randomBytes } from 'node:crypto';
import type { Context, Middleware, Next } from 'koa';
import type { Database } from '../platform/db/database.js';
import { listGrants, revokeGrantEverywhere } from './store/oauth-store.js';
import { WEB_SESSION_SECONDS, closeWebSession, openWebSession, webSessionUser } from './store/web-sessions.js';
import { csrfToken, csrfValid, readForm } from './forms.js';
import { escapeHtml, page, SCOPE_LABELS } from './pages.js';
import type { AuthServer } from './provider.js';
import { signIn } from './sign-in.js';
import { loadAccount } from './store/accounts.js';
import { recordActivity } from './store/activity-log.js';
import { confirmSubscription, memberCount, pendingRequest, requestById } from '../domains/plan/store.js';
import { PRICE_EUR_EXCL_TAX, PRICE_TEXT, planPagePath, requestPagePath } from '../domains/plan/actions.js';
import { presentEmail } from '../domains/emails/actions.js';
import { listEmails } from '../domains/emails/store.js';
import { sourcesPageHtml } from './sources-page.js';
import type { SyncPlan } from '../sync/status.js';

export const SESSION_COOKIE = 'compte_session';

/** Where a sign-in may send back to: the record pages only (no open redirect). */
export function safeNext(value: string | null | undefined): string | null {
  if (!value) return null;
  if (/^\/compte\/abonnement(\/[0-9a-f-]{36})?$/.test(value)) return value;
  return /^\/(entreprises|etablissements|marches|attributions|acheteurs|ventes|bodacc|deliberations|publications|contacts|permis|rapports\/marque)\/[^/?#\\]+$/.test(value) ? value : null;
}
const LOGIN_CSRF_COOKIE = 'compte_csrf';

function dateFr(iso: string | null): string {
  if (!iso) return 'jamais';
  return new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Paris' }).format(new Date(iso));
}

function signInPage(csrf: string, error?: string, email?: string, next?: string | null): string {
  return page(
    'Connexion au compte',
    `<h1>Connexion au compte</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/compte/connexion">
  <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
  ${next ? `<input type="hidden" name="suite" value="${escapeHtml(next)}">` : ''}
  <label for="email">Adresse électronique</label>
  <input id="email" type="email" name="email" autocomplete="username" required value="${escapeHtml(email ?? '')}">
  <label for="password">Mot de passe</label>
  <input id="password" type="password" name="password" autocomplete="current-password" required>
  <button type="submit">Se connecter</button>
</form>
<p class="muted"><a href="/compte/mot-de-passe-oublie">Mot de passe oublié ?</a> · <a href="/compte/inscription">Créer un compte</a></p>`,
  );
}

/** A page of the plan section (no-store, never framed). */
function planHtml(ctx: Context, status: number, title: string, body: string): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.body = page(title, `<h1>${escapeHtml(title)}</h1>\n${body}\n<p><a href="/compte/abonnement">Formule de l’organisation</a> · <a href="/compte/acces-ia">Accès IA</a></p>`);
}

/** The handlers of the account pages, by what they do; app.ts gives each its address. */
/** Sends shown on the e-mail page: the latest ones (emails_lister pages through all). */
const EMAILS_SHOWN = 50;

export function createAccountPages(auth: AuthServer, db: Database, now: () => Date, options: { smtpConfigured: boolean; sync?: SyncPlan } = { smtpConfigured: false }) {
  const secure = auth.issuer.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/compte', overwrite: true };

  async function accessesPage(ctx: Context, userId: string, sessionId: string, notice?: string): Promise<void> {
    const grants = await listGrants(db, userId, auth.resource);
    const csrf = csrfToken(auth.csrfKey, `compte:${sessionId}`);
    const rows = grants
      .map(
        (g) => `<tr>
  <td><strong>${escapeHtml(g.clientName ?? 'Application sans nom')}</strong><br><span class="muted">${escapeHtml(g.clientId)}</span></td>
  <td>${g.scopes.map((s) => `<span title="${escapeHtml(SCOPE_LABELS[s] ?? s)}">${escapeHtml(s)}</span>`).join('<br>')}</td>
  <td>${escapeHtml(dateFr(g.grantedAt))}</td>
  <td>${escapeHtml(dateFr(g.lastUsedAt))}</td>
  <td><form method="post" action="/compte/acces-ia/deconnecter">
    <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
    <input type="hidden" name="grant" value="${escapeHtml(g.grantId)}">
    <button type="submit" class="danger">Déconnecter</button>
  </form></td>
</tr>`,
      )
      .join('\n');
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.body = page(
      'Accès IA',
      `<h1>Accès IA</h1>
<p>Les applications (assistants IA, automatisations, scripts) auxquelles vous avez donné accès à votre compte. Déconnecter un accès révoque aussitôt ses jetons.</p>
${notice ? `<p class="muted" role="status">${escapeHtml(notice)}</p>` : ''}
<p><a href="/compte">Mon compte</a> · <a href="/compte/courriels">Courriels envoyés</a></p>
${grants.length ? `<table><thead><tr><th>Application</th><th>Portées</th><th>Accordé le</th><th>Dernière utilisation</th><th></th></tr></thead><tbody>${rows}</tbody></table>` : '<p><em>Aucun accès accordé.</em></p>'}
<form method="post" action="/compte/deconnexion"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" class="secondary" style="margin-left:0">Se déconnecter</button></form>`,
      true,
    );
  }

  async function emailsPage(ctx: Context, userId: string): Promise<void> {
    const membership = await db('memberships').where('user_id', userId).first('organisation_id');
    const organisationId = (membership?.organisation_id as string | undefined) ?? null;
    const sends = organisationId ? (await listEmails(db, organisationId, undefined, { offset: 0, limit: EMAILS_SHOWN })).records.map((m) => presentEmail(m, options.smtpConfigured)) : [];
    const rows = sends
      .map(
        (m) => `<tr>
  <td>${escapeHtml(dateFr(m.cree_le))}</td>
  <td>${escapeHtml(m.sujet)}</td>
  <td>${[...m.destinataires, ...m.copie.map((c) => `${c} (copie)`)].map(escapeHtml).join('<br>')}</td>
  <td><strong>${escapeHtml(m.etat_libelle)}</strong>${m.remarque ? `<br><span class="muted">${escapeHtml(m.remarque)}</span>` : ''}</td>
  <td>${m.tentatives}</td>
  <td>${escapeHtml(m.derniere_reponse_smtp ?? '')}</td>
</tr>`,
      )
      .join('\n');
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.body = page(
      'Courriels',
      `<h1>Courriels</h1>
<p>Les ${EMAILS_SHOWN} derniers messages que votre organisation a fait envoyer par le service, et leur état.${options.smtpConfigured ? '' : ' <strong>Aucun serveur SMTP n’est configuré : les messages restent dans la boîte d’envoi.</strong>'}</p>
${!organisationId ? '<p><em>Votre compte n’appartient à aucune organisation.</em></p>' : sends.length ? `<table><thead><tr><th>Demandé le</th><th>Objet</th><th>Destinataires</th><th>État</th><th>Tentatives</th><th>Dernière réponse du serveur</th></tr></thead><tbody>${rows}</tbody></table>` : '<p><em>Aucun courriel envoyé.</em></p>'}
<p><a href="/compte/acces-ia">Accès IA</a></p>`,
      true,
    );
  }

  /** Runs `run` for a signed-in holder; anyone else is sent to the sign-in page. */
  const signedIn =
    (run: (ctx: Context, userId: string, sessionId: string, next: Next) => Promise<void>): Middleware =>
    async (ctx, next) => {
      const sessionId = ctx.cookies.get(SESSION_COOKIE);
      const userId = await webSessionUser(db, sessionId, now());
      if (!userId || !sessionId) {
        // Back to the page asked for after sign-in (the plan pages an API answer links to).
        const next = ctx.method === 'GET' ? safeNext(ctx.path) : null;
        ctx.redirect(next ? `/compte/connexion?suite=${encodeURIComponent(next)}` : '/compte/connexion');
        ctx.status = 303;
        return;
      }
      return run(ctx, userId, sessionId, next);
    };

  /** A POST of the signed-in pages, its form checked against the session's CSRF token. */
  const signedInForm = (run: (ctx: Context, form: URLSearchParams, userId: string, sessionId: string) => Promise<void>): Middleware =>
    signedIn(async (ctx, userId, sessionId) => {
      const form = await readForm(ctx);
      if (!csrfValid(auth.csrfKey, `compte:${sessionId}`, form.get('csrf'))) {
        ctx.status = 403;
        return accessesPage(ctx, userId, sessionId, 'Formulaire expiré : recommencer.');
      }
      return run(ctx, form, userId, sessionId);
    });

  return {
    /** GET /compte/connexion: the sign-in form, with its double-submit CSRF cookie. */
    signInForm: async (ctx) => {
      const csrf = randomBytes(24).toString('base64url');
      ctx.cookies.set(LOGIN_CSRF_COOKIE, csrf, { ...cookie, maxAge: 3600_000 });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.type = 'html';
      ctx.body = signInPage(csrf, undefined, undefined, safeNext(String(ctx.query.suite ?? '')));
    },

    /** POST /compte/connexion: opens a web session, then back to the page asked for (a record page) or the accesses. */
    signIn: async (ctx) => {
      const form = await readForm(ctx);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Frame-Options', 'DENY');
      const expected = ctx.cookies.get(LOGIN_CSRF_COOKIE);
      if (!expected || form.get('csrf') !== expected) {
        ctx.status = 403;
        ctx.type = 'html';
        ctx.body = signInPage(expected ?? '', 'Formulaire expiré : recharger la page et recommencer.');
        return;
      }
      const email = form.get('email') ?? '';
      const next = safeNext(form.get('suite'));
      const result = await signIn(db, email, form.get('password') ?? '', ctx.ip, now());
      if (!result.ok) {
        ctx.type = 'html';
        ctx.body = signInPage(expected, result.message, email, next);
        return;
      }
      const id = await openWebSession(db, result.userId, now());
      // The session cookie is sent to the record pages too (permalinks), hence path '/'.
      ctx.cookies.set(SESSION_COOKIE, id, { ...cookie, path: '/', maxAge: WEB_SESSION_SECONDS * 1000 });
      ctx.redirect(next ?? '/compte/acces-ia');
      ctx.status = 303;
    },

    /** GET /compte, /compte/acces-ia: the accesses granted. */
    accesses: signedIn((ctx, userId, sessionId) => accessesPage(ctx, userId, sessionId, ctx.query.deconnecte ? 'Accès déconnecté : ses jetons sont révoqués.' : undefined)),

    /** GET /compte/courriels: the organisation's sends (the outbox included). */
    emails: signedIn((ctx, userId) => emailsPage(ctx, userId)),

    /** POST /compte/acces-ia/deconnecter: revokes one grant of this holder and every token of it. */
    disconnect: signedInForm(async (ctx, form, userId, sessionId) => {
      const grantId = form.get('grant') ?? '';
      // Only a grant of this account: another account's grant is "not found", unchanged.
      const owned = (await listGrants(db, userId, auth.resource)).some((g) => g.grantId === grantId);
      if (!owned) {
        ctx.status = 404;
        return accessesPage(ctx, userId, sessionId, 'Accès introuvable.');
      }
      const grant = (await listGrants(db, userId, auth.resource)).find((g) => g.grantId === grantId);
      await revokeGrantEverywhere(db, grantId);
      const account = await loadAccount(db, userId);
      await recordActivity(db, { organisationId: account?.organisationId ?? null, actorId: userId, kind: 'acces_ia_deconnecte', detail: grant?.clientName ?? grant?.clientId ?? null, ip: ctx.ip }, now());
      ctx.redirect('/compte/acces-ia?deconnecte=1');
      ctx.status = 303;
    }),

    /** POST /compte/deconnexion: closes the web session. */
    signOut: signedInForm(async (ctx, _form, _userId, sessionId) => {
      await closeWebSession(db, sessionId);
      ctx.cookies.set(SESSION_COOKIE, '', { ...cookie, path: '/', maxAge: 0 });
      ctx.redirect('/compte/connexion');
      ctx.status = 303;
    }),

    /** GET /compte/abonnement: the organisation's plan, and its request awaiting confirmation. */
    /** GET /compte/sources: the sources' synchronisation, for the organisation's administrators. */
    sources: signedIn(async (ctx, userId) => {
      const account = await loadAccount(db, userId);
      if (account?.role !== 'admin') return planHtml(ctx, 403, 'Page réservée aux administrateurs', '<p>L’état des sources et de leur synchronisation est réservé aux administrateurs.</p>');
      ctx.type = 'html';
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.body = await sourcesPageHtml(db, options.sync ?? { enabled: false, sources: null, settings: {} }, now());
    }),

    plan: signedIn(async (ctx, userId) => {
      const account = await loadAccount(db, userId);
      const orgId = account?.organisationId ?? null;
      const pending = orgId ? await pendingRequest(db, orgId, now()) : null;
      const members = orgId ? await memberCount(db, orgId) : 0;
      const notice = ctx.query.confirme ? '<p role="status">Abonnement confirmé : la formule abonnée s’applique dès le prochain appel.</p>' : '';
      planHtml(
        ctx,
        200,
        'Formule de l’organisation',
        `${notice}${
          account?.organisationId
            ? `<p>Organisation : <strong>${escapeHtml(account.organisationName ?? '')}</strong> (${members} membre${members > 1 ? 's' : ''}).</p>
<p>Formule : <strong>${account.plan === 'subscribed' ? 'abonnée' : 'gratuite'}</strong>.</p>
<p>Sièges : ${members} membre${members > 1 ? 's' : ''} × ${PRICE_EUR_EXCL_TAX} € HT = <strong>${members * PRICE_EUR_EXCL_TAX} € HT par mois</strong> en formule abonnée (${escapeHtml(PRICE_TEXT)}).</p>
${pending ? `<p>Une demande d’abonnement attend la confirmation d’un administrateur : <a href="${escapeHtml(requestPagePath(pending.id))}">voir la demande</a>.</p>` : ''}`
            : '<p>Ce compte n’appartient à aucune organisation : il est en formule gratuite et ne peut pas s’abonner.</p>'
        }`,
      );
    }),

    /** GET /compte/abonnement/:id: the request, with the confirmation form for an administrator. */
    subscriptionRequest: signedIn(async (ctx, userId, sessionId) => {
      const id = (ctx.params as { id: string }).id;
      const account = await loadAccount(db, userId);
      const request = await requestById(db, id);
      // Another organisation's request is not found, never a hint it exists.
      if (!request || !account || request.organisationId !== account.organisationId) return planHtml(ctx, 404, 'Demande introuvable', '<p>Cette demande d’abonnement n’existe pas dans votre organisation.</p>');
      const members = await memberCount(db, request.organisationId);
      const csrf = csrfToken(auth.csrfKey, `compte:${sessionId}`);
      const at = now().toISOString();
      const state =
        account.plan === 'subscribed'
          ? '<p>L’organisation a la formule abonnée : rien à confirmer.</p>'
          : request.confirmedAt || request.expiresAt <= at
            ? '<p>Cette demande a expiré : en démarrer une nouvelle (outil abonnement_souscrire ou opération abonnement.subscribe).</p>'
            : account.role === 'admin'
              ? `<form method="post" action="${escapeHtml(requestPagePath(request.id))}/confirmer">
  <input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
  <button type="submit">Confirmer l’abonnement</button>
</form>`
              : '<p>Seul un administrateur de l’organisation peut confirmer cette demande : lui transmettre l’adresse de cette page.</p>';
      planHtml(
        ctx,
        200,
        'Demande d’abonnement',
        `<p>Organisation : <strong>${escapeHtml(account.organisationName ?? '')}</strong> (${members} membre${members > 1 ? 's' : ''}).</p>
<p>Demandée le ${escapeHtml(dateFr(request.requestedAt))} ; valable jusqu’au ${escapeHtml(dateFr(request.expiresAt))}.</p>
<p>Formule abonnée : ${escapeHtml(PRICE_TEXT)}, soit <strong>${members * PRICE_EUR_EXCL_TAX} € HT par mois</strong> pour l’organisation. Elle ouvre les opérations réservées (alertes, rapport de marque…) et relève les plafonds d’appels.</p>
${state}`,
      );
    }),

    /** POST /compte/abonnement/:id/confirmer: an administrator confirms; the plan changes. */
    confirmSubscription: signedInForm(async (ctx, _form, userId) => {
      const id = (ctx.params as { id: string }).id;
      const outcome = await confirmSubscription(db, id, userId, now());
      if (outcome === 'confirmed' || outcome === 'already_subscribed') {
        ctx.redirect(`${planPagePath()}${outcome === 'confirmed' ? '?confirme=1' : ''}`);
        ctx.status = 303;
        return;
      }
      if (outcome === 'not_found') return planHtml(ctx, 404, 'Demande introuvable', '<p>Cette demande d’abonnement n’existe pas dans votre organisation.</p>');
      if (outcome === 'not_admin')
        return planHtml(ctx, 403, 'Confirmation refusée', '<p>Seul un administrateur de l’organisation peut confirmer l’abonnement. Votre rôle ne le permet pas : transmettre l’adresse de la demande à un administrateur.</p>');
      return planHtml(ctx, 409, 'Demande expirée', '<p>Cette demande a expiré : en démarrer une nouvelle (outil abonnement_souscrire ou opération abonnement.subscribe).</p>');
    }),

    /** Any other address under /compte: sign-in first; signed in, it is unknown (404 further on). */
    signInRequired: signedIn((_ctx, _userId, _sessionId, next) => next()),
  } satisfies Record<string, Middleware>;
}
