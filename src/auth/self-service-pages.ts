// Self-service account pages (French, server-rendered, usable without JavaScript): sign-up
// confirmed by e-mail, forgotten password, invitations, « Mon compte » (address, password,
// leaving, deletion, export), the organisation page and the activity log of administrators.
// Public forms carry a double-submit CSRF cookie, signed-in forms a token bound to the
// session; e-mail links are single-use and consumed by a POST (a mail scanner's GET never
// uses them). Sign-up, reset and invitation answer the same whatever exists.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { ROLES, type Role } from '../access/caller.js';
import type { Database } from '../platform/db/database.js';
import type { ObjectStore } from '../platform/files/object-store.js';
import { hashPassword } from '../platform/passwords.js';
import { ACCOUNT_EXPORT_PATH, ACCOUNT_EXPORT_TTL_SECONDS, collectAccountData, signAccountExport, verifyAccountExport, zipAccountExport } from '../domains/account/data-export.js';
import { DELETED_AUTHOR, eraseAccount } from '../domains/account/erasure.js';
import { PRICE_EUR_EXCL_TAX } from '../domains/plan/actions.js';
import { sendAccountMail, type AccountMailSettings } from './account-emails.js';
import { csrfToken, csrfValid, readForm } from './forms.js';
import { escapeHtml, page } from './pages.js';
import { passwordProblem, MIN_PASSWORD_LENGTH } from './password-policy.js';
import type { AuthServer } from './provider.js';
import { confirmPassword, signIn } from './sign-in.js';
import { ACTIVITY_LABELS, listActivity, recordActivity } from './store/activity-log.js';
import { consumeLink, createLink, peekLink } from './store/account-links.js';
import { findUserByEmail, loadAccount } from './store/accounts.js';
import { listGrants } from './store/oauth-store.js';
import { admitRequest, clearLoginFailures } from './store/login-throttle.js';
import {
  changeRole,
  createInvitation,
  invitationByToken,
  joinOrganisation,
  leaveOrganisation,
  listInvitations,
  listMembers,
  markAccepted,
  ORGANISATION_GRACE_DAYS,
  removeMember,
  revokeAccountAccess,
  revokeInvitation,
} from './store/team.js';
import { WEB_SESSION_SECONDS, openWebSession, webSessionUser } from './store/web-sessions.js';

const SESSION_COOKIE = 'compte_session';
const PUBLIC_CSRF_COOKIE = 'compte_csrf';
const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,252}\.[^\s@]{1,60}$/;
const ROLE_LABELS: Record<Role, string> = { admin: 'administrateur', membre: 'membre', lecteur: 'lecteur' };
const ACTIVITY_SHOWN = 200;

export interface SelfServiceDeps {
  auth: AuthServer;
  db: Database;
  now: () => Date;
  mail: AccountMailSettings;
  /** The service's link key (signed export links). */
  linkKey: string;
  store: ObjectStore;
}

const sessionHash = (id: string) => createHash('sha256').update(id).digest('hex');
const normaliseEmail = (value: string | null) => (value ?? '').trim().toLowerCase();

function dateFr(iso: string | null): string {
  if (!iso) return 'jamais';
  return new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeStyle: 'short', timeZone: 'Europe/Paris' }).format(new Date(iso));
}

const notice = (text: string) => `<p class="muted" role="status">${escapeHtml(text)}</p>`;
const error = (text: string) => `<p class="error" role="alert">${escapeHtml(text)}</p>`;
const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;
const passwordField = (name: string, label: string, autocomplete: string) =>
  `<label for="${name}">${escapeHtml(label)}</label>\n  <input id="${name}" type="password" name="${name}" autocomplete="${autocomplete}" required>`;
const ACCOUNT_NAV = '<p class="muted"><a href="/compte">Mon compte</a> · <a href="/compte/acces-ia">Accès IA</a> · <a href="/compte/abonnement">Formule</a> · <a href="/compte/courriels">Courriels</a></p>';

export function createSelfServicePages(deps: SelfServiceDeps) {
  const { auth, db, now, mail } = deps;
  const secure = auth.issuer.startsWith('https:');
  const cookie = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/compte', overwrite: true };
  const link = (path: string) => `${auth.issuer}${path}`;

  function html(ctx: Context, status: number, title: string, body: string, wide = false): void {
    ctx.status = status;
    ctx.type = 'html';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = page(title, `<h1>${escapeHtml(title)}</h1>\n${body}`, wide);
  }

  /** The double-submit token of the public forms: the cookie's, or a new one. */
  function publicCsrf(ctx: Context): string {
    const current = ctx.cookies.get(PUBLIC_CSRF_COOKIE);
    if (current && /^[A-Za-z0-9_-]{32}$/.test(current)) return current;
    const fresh = randomBytes(24).toString('base64url');
    ctx.cookies.set(PUBLIC_CSRF_COOKIE, fresh, { ...cookie, maxAge: 3600_000 });
    return fresh;
  }

  /** A public POST: its form, or null when the CSRF check failed (the answer is written). */
  async function publicForm(ctx: Context, retry: string): Promise<URLSearchParams | null> {
    const form = await readForm(ctx);
    const expected = ctx.cookies.get(PUBLIC_CSRF_COOKIE);
    if (!expected || form.get('csrf') !== expected) {
      html(ctx, 403, 'Formulaire expiré', `<p>Le formulaire a expiré ou vient d’un autre site : <a href="${escapeHtml(retry)}">recharger la page</a> et recommencer.</p>`);
      return null;
    }
    return form;
  }

  const throttled = (ctx: Context, wait: number) =>
    html(ctx, 429, 'Trop de demandes', `<p>Trop de demandes depuis cette adresse ou pour ce compte : réessayer dans ${wait} secondes.</p>`);

  interface Session {
    userId: string;
    sessionId: string;
    csrf: string;
  }

  const signedIn =
    (run: (ctx: Context, session: Session) => Promise<void>): Middleware =>
    async (ctx) => {
      const sessionId = ctx.cookies.get(SESSION_COOKIE);
      const userId = await webSessionUser(db, sessionId, now());
      if (!userId || !sessionId) {
        ctx.redirect('/compte/connexion');
        ctx.status = 303;
        return;
      }
      return run(ctx, { userId, sessionId, csrf: csrfToken(auth.csrfKey, `compte:${sessionId}`) });
    };

  const signedInForm = (run: (ctx: Context, form: URLSearchParams, session: Session) => Promise<void>): Middleware =>
    signedIn(async (ctx, session) => {
      const form = await readForm(ctx);
      if (!csrfValid(auth.csrfKey, `compte:${session.sessionId}`, form.get('csrf'))) {
        return html(ctx, 403, 'Formulaire expiré', '<p>Le formulaire a expiré : <a href="/compte">revenir à Mon compte</a> et recommencer.</p>');
      }
      return run(ctx, form, session);
    });

  /** An administrator's page: anyone else gets a 403 page. */
  const adminOnly = (run: (ctx: Context, session: Session, organisationId: string, form: URLSearchParams | null) => Promise<void>, post: boolean): Middleware => {
    const check = async (ctx: Context, session: Session, form: URLSearchParams | null) => {
      const account = await loadAccount(db, session.userId);
      if (!account?.organisationId || account.role !== 'admin')
        return html(ctx, 403, 'Réservé aux administrateurs', `<p>Seul un administrateur de l’organisation gère ses membres et lit son journal d’activité.</p>${ACCOUNT_NAV}`);
      return run(ctx, session, account.organisationId, form);
    };
    return post ? signedInForm((ctx, form, session) => check(ctx, session, form)) : signedIn((ctx, session) => check(ctx, session, null));
  };

  // ---- Sign-up -------------------------------------------------------------------------

  function signUpPage(ctx: Context, status: number, message?: string, values: { email?: string; organisation?: string } = {}): void {
    html(
      ctx,
      status,
      'Créer un compte',
      `${message ? error(message) : ''}
<form method="post" action="/compte/inscription">
  ${hidden('csrf', publicCsrf(ctx))}
  <label for="email">Adresse électronique</label>
  <input id="email" type="email" name="email" autocomplete="email" required maxlength="254" value="${escapeHtml(values.email ?? '')}">
  <label for="organisation">Nom de l’organisation (entreprise)</label>
  <input id="organisation" type="text" name="organisation" autocomplete="organization" required maxlength="200" value="${escapeHtml(values.organisation ?? '')}">
  ${passwordField('password', `Mot de passe (${MIN_PASSWORD_LENGTH} caractères au moins)`, 'new-password')}
  <button type="submit">Créer le compte</button>
</form>
<p class="muted">Un courriel de confirmation est envoyé à l’adresse donnée : le compte existe une fois l’adresse confirmée. L’organisation démarre en formule gratuite, et vous en êtes l’administrateur. Pour rejoindre une organisation existante, demandez une invitation à son administrateur.</p>
<p class="muted"><a href="/compte/connexion">J’ai déjà un compte</a></p>`,
    );
  }

  const sentPage = (ctx: Context, title: string, text: string) => html(ctx, 200, title, `<p role="status">${escapeHtml(text)}</p><p class="muted"><a href="/compte/connexion">Page de connexion</a></p>`);

  async function signUp(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, '/compte/inscription');
    if (!form) return;
    const email = normaliseEmail(form.get('email'));
    const organisation = (form.get('organisation') ?? '').trim().replace(/\s+/g, ' ');
    const password = form.get('password') ?? '';
    const values = { email, organisation };
    if (!EMAIL_PATTERN.test(email) || email.length > 254) return signUpPage(ctx, 400, 'Adresse électronique invalide.', values);
    if (organisation.length < 2 || organisation.length > 200) return signUpPage(ctx, 400, 'Nom de l’organisation : de 2 à 200 caractères.', values);
    const problem = passwordProblem(password, email);
    if (problem) return signUpPage(ctx, 400, problem, values);
    const wait = await admitRequest(db, [`inscription:ip:${ctx.ip}`, `inscription:email:${email}`], now());
    if (wait > 0) return throttled(ctx, wait);
    if (await db('organisations').where('name', organisation).first('id'))
      return signUpPage(ctx, 409, 'Une organisation porte déjà ce nom : en choisir un autre, ou demander une invitation à son administrateur.', values);
    // Hashed in every case: the answer takes as long whether the address has an account or not.
    const passwordHash = await hashPassword(password);
    const existing = await findUserByEmail(db, email);
    if (existing) {
      await sendAccountMail(
        db,
        mail,
        {
          to: email,
          subject: 'Tentative de création de compte avec votre adresse',
          paragraphs: [
            `Une création de compte vient d’être demandée avec votre adresse sur ${mail.serviceName}, qui a déjà un compte.`,
            'Si c’était vous, connectez-vous avec votre mot de passe actuel ; si vous l’avez oublié, demandez-en un nouveau depuis la page de connexion.',
          ],
          link: { label: 'Mot de passe oublié', url: link('/compte/mot-de-passe-oublie') },
          after: ['Si ce n’était pas vous, ignorez ce message : rien n’a été modifié.'],
        },
        now(),
      );
    } else {
      const token = await createLink(db, { purpose: 'inscription', userId: null, email, payload: { passwordHash, organisation } }, now());
      await sendAccountMail(
        db,
        mail,
        {
          to: email,
          subject: 'Confirmez votre adresse pour créer votre compte',
          paragraphs: [`Pour créer votre compte et l’organisation « ${organisation} » sur ${mail.serviceName}, confirmez votre adresse électronique.`],
          link: { label: 'Confirmer mon adresse', url: link(`/compte/inscription/confirmer/${token}`) },
          after: ['Ce lien vaut 24 heures et ne sert qu’une fois.', 'Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : aucun compte ne sera créé.'],
        },
        now(),
      );
    }
    sentPage(ctx, 'Vérifiez votre messagerie', `Si cette adresse peut être utilisée, un courriel vient d’y être envoyé : suivre son lien (valable 24 heures) pour confirmer l’adresse et créer le compte.`);
  }

  /** The page of an e-mail link: a button that POSTs it (a mail scanner's GET never uses it). */
  function linkPage(ctx: Context, title: string, action: string, text: string, button: string, fields = ''): void {
    html(ctx, 200, title, `<p>${escapeHtml(text)}</p>
<form method="post" action="${escapeHtml(action)}">
  ${hidden('csrf', publicCsrf(ctx))}
  ${fields}
  <button type="submit">${escapeHtml(button)}</button>
</form>`);
  }

  const deadLink = (ctx: Context) =>
    html(ctx, 410, 'Lien invalide ou expiré', '<p>Ce lien n’est plus valable : il a déjà servi, ou il a expiré. Recommencer la démarche pour en recevoir un nouveau.</p><p class="muted"><a href="/compte/connexion">Page de connexion</a></p>');

  const token = (ctx: Context) => String((ctx.params as { token?: string }).token ?? '');

  async function confirmSignUp(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, ctx.path);
    if (!form) return;
    const at = now();
    const outcome = await db.transaction(async (trx) => {
      const used = await consumeLink(trx, token(ctx), 'inscription', at);
      if (!used) return 'dead' as const;
      if (await trx('users').where('email', used.email).first('id')) return 'exists' as const;
      const payload = used.payload as { passwordHash: string; organisation: string };
      let name = payload.organisation;
      // The name was free at sign-up; taken since, it gets a number.
      for (let n = 2; await trx('organisations').where('name', name).first('id'); n++) name = `${payload.organisation} (${n})`;
      const userId = randomUUID();
      const organisationId = randomUUID();
      await trx('users').insert({ id: userId, email: used.email, password_hash: payload.passwordHash, created_at: at.toISOString() });
      await trx('organisations').insert({ id: organisationId, name, plan: 'free', created_at: at.toISOString() });
      await trx('memberships').insert({ user_id: userId, organisation_id: organisationId, role: 'admin', created_at: at.toISOString() });
      await recordActivity(trx, { organisationId, actorId: userId, kind: 'inscription', ip: ctx.ip }, at);
      return 'created' as const;
    });
    if (outcome === 'dead') return deadLink(ctx);
    if (outcome === 'exists') return html(ctx, 409, 'Compte déjà créé', '<p>Un compte existe déjà pour cette adresse : se connecter.</p><p><a href="/compte/connexion">Se connecter</a></p>');
    html(ctx, 200, 'Compte créé', '<p role="status">Adresse confirmée : votre compte et votre organisation sont créés (formule gratuite).</p><p><a href="/compte/connexion">Se connecter</a></p>');
  }

  // ---- Forgotten password ----------------------------------------------------------------

  function forgotPage(ctx: Context, status: number, message?: string): void {
    html(
      ctx,
      status,
      'Mot de passe oublié',
      `${message ? error(message) : ''}<p>Indiquez l’adresse de votre compte : un lien pour choisir un nouveau mot de passe vous sera envoyé (valable une heure).</p>
<form method="post" action="/compte/mot-de-passe-oublie">
  ${hidden('csrf', publicCsrf(ctx))}
  <label for="email">Adresse électronique</label>
  <input id="email" type="email" name="email" autocomplete="username" required maxlength="254">
  <button type="submit">Recevoir un lien</button>
</form>
<p class="muted"><a href="/compte/connexion">Retour à la connexion</a></p>`,
    );
  }

  async function forgot(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, '/compte/mot-de-passe-oublie');
    if (!form) return;
    const email = normaliseEmail(form.get('email'));
    if (!EMAIL_PATTERN.test(email)) return forgotPage(ctx, 400, 'Adresse électronique invalide.');
    const wait = await admitRequest(db, [`reinitialisation:ip:${ctx.ip}`, `reinitialisation:email:${email}`], now());
    if (wait > 0) return throttled(ctx, wait);
    const user = await findUserByEmail(db, email);
    if (user) {
      const t = await createLink(db, { purpose: 'reinitialisation', userId: user.id, email, payload: null }, now());
      await sendAccountMail(
        db,
        mail,
        {
          to: email,
          subject: 'Choisir un nouveau mot de passe',
          paragraphs: [`Un nouveau mot de passe a été demandé pour votre compte sur ${mail.serviceName}.`],
          link: { label: 'Choisir un nouveau mot de passe', url: link(`/compte/reinitialisation/${t}`) },
          after: [
            'Ce lien vaut une heure et ne sert qu’une fois. Le nouveau mot de passe déconnecte toutes les sessions et tous les accès IA du compte.',
            'Si vous n’êtes pas à l’origine de cette demande, ignorez ce message : votre mot de passe reste le même.',
          ],
        },
        now(),
      );
    }
    sentPage(ctx, 'Vérifiez votre messagerie', 'Si un compte existe pour cette adresse, un courriel vient d’y être envoyé avec un lien pour choisir un nouveau mot de passe (valable une heure).');
  }

  function resetPage(ctx: Context, status: number, message?: string): void {
    html(
      ctx,
      status,
      'Nouveau mot de passe',
      `${message ? error(message) : ''}<form method="post" action="${escapeHtml(ctx.path)}">
  ${hidden('csrf', publicCsrf(ctx))}
  ${passwordField('password', `Nouveau mot de passe (${MIN_PASSWORD_LENGTH} caractères au moins)`, 'new-password')}
  ${passwordField('confirmation', 'Le même, une seconde fois', 'new-password')}
  <button type="submit">Enregistrer le mot de passe</button>
</form>
<p class="muted">Toutes les sessions et tous les accès IA du compte seront déconnectés.</p>`,
    );
  }

  async function reset(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, ctx.path);
    if (!form) return;
    const at = now();
    const pending = await peekLink(db, token(ctx), 'reinitialisation', at);
    if (!pending?.userId) return deadLink(ctx);
    const password = form.get('password') ?? '';
    if (password !== form.get('confirmation')) return resetPage(ctx, 400, 'Les deux mots de passe diffèrent.');
    const problem = passwordProblem(password, pending.email);
    if (problem) return resetPage(ctx, 400, problem);
    const passwordHash = await hashPassword(password);
    const done = await db.transaction(async (trx) => {
      const used = await consumeLink(trx, token(ctx), 'reinitialisation', at);
      if (!used?.userId) return false;
      await trx('users').where('id', used.userId).update({ password_hash: passwordHash });
      await revokeAccountAccess(trx, used.userId);
      const membership = await trx('memberships').where('user_id', used.userId).first('organisation_id');
      await recordActivity(trx, { organisationId: (membership?.organisation_id as string | undefined) ?? null, actorId: used.userId, kind: 'mot_de_passe_reinitialise', ip: ctx.ip }, at);
      return true;
    });
    if (!done) return deadLink(ctx);
    await clearLoginFailures(db, [`email:${pending.email}`]);
    html(ctx, 200, 'Mot de passe modifié', '<p role="status">Votre mot de passe est modifié ; toutes les sessions et tous les accès IA du compte sont déconnectés.</p><p><a href="/compte/connexion">Se connecter</a></p>');
  }

  // ---- Invitations (the invitee's side) ----------------------------------------------------

  function invitationPage(ctx: Context, status: number, invitation: { organisationName: string; role: Role; email: string }, message?: string): void {
    html(
      ctx,
      status,
      'Invitation',
      `${message ? error(message) : ''}<p>L’organisation <strong>${escapeHtml(invitation.organisationName)}</strong> vous invite à la rejoindre avec le rôle <strong>${escapeHtml(ROLE_LABELS[invitation.role])}</strong>, à l’adresse <strong>${escapeHtml(invitation.email)}</strong>.</p>
<form method="post" action="${escapeHtml(ctx.path)}">
  ${hidden('csrf', publicCsrf(ctx))}
  ${passwordField('password', 'Mot de passe', 'current-password')}
  <p class="muted">Si vous avez déjà un compte à cette adresse, son mot de passe ; sinon, choisissez-en un (${MIN_PASSWORD_LENGTH} caractères au moins) : le compte est créé.</p>
  <button type="submit">Rejoindre l’organisation</button>
</form>`,
    );
  }

  async function acceptInvitation(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, ctx.path);
    if (!form) return;
    const at = now();
    const invitation = await invitationByToken(db, token(ctx), at);
    if (!invitation) return deadLink(ctx);
    const password = form.get('password') ?? '';
    const existing = await findUserByEmail(db, invitation.email);
    let userId: string;
    let passwordHash: string | null = null;
    if (existing) {
      const result = await signIn(db, invitation.email, password, ctx.ip, at);
      if (!result.ok) return invitationPage(ctx, 400, invitation, result.message);
      if (await db('memberships').where('user_id', existing.id).first('user_id'))
        return invitationPage(ctx, 409, invitation, 'Votre compte appartient déjà à une organisation : la quitter d’abord (page « Mon compte »), puis rouvrir ce lien.');
      userId = existing.id;
    } else {
      const problem = passwordProblem(password, invitation.email);
      if (problem) return invitationPage(ctx, 400, invitation, problem);
      passwordHash = await hashPassword(password);
      userId = randomUUID();
    }
    const joined = await db.transaction(async (trx) => {
      if (!(await markAccepted(trx, invitation.id, at))) return false;
      if (passwordHash) await trx('users').insert({ id: userId, email: invitation.email, password_hash: passwordHash, created_at: at.toISOString() });
      await joinOrganisation(trx, userId, invitation.organisationId, invitation.role, at);
      await recordActivity(trx, { organisationId: invitation.organisationId, actorId: userId, subjectId: userId, kind: 'invitation_acceptee', detail: `rôle ${ROLE_LABELS[invitation.role]}`, ip: ctx.ip }, at);
      return true;
    });
    if (!joined) return deadLink(ctx);
    const id = await openWebSession(db, userId, at);
    ctx.cookies.set(SESSION_COOKIE, id, { ...cookie, path: '/', maxAge: WEB_SESSION_SECONDS * 1000 });
    ctx.redirect('/compte?bienvenue=1');
    ctx.status = 303;
  }

  // ---- Mon compte -----------------------------------------------------------------------------

  async function myAccountPage(ctx: Context, session: Session, status = 200, message?: { ok: boolean; text: string }): Promise<void> {
    const account = await loadAccount(db, session.userId);
    if (!account) return html(ctx, 404, 'Compte introuvable', '<p>Ce compte n’existe plus.</p>');
    const csrf = hidden('csrf', session.csrf);
    const queryNotice =
      ctx.query.bienvenue !== undefined ? 'Bienvenue : vous avez rejoint l’organisation.' : ctx.query.modifie !== undefined ? 'Modification enregistrée.' : null;
    html(
      ctx,
      status,
      'Mon compte',
      `${message ? (message.ok ? notice(message.text) : error(message.text)) : queryNotice ? notice(queryNotice) : ''}
<p>Adresse : <strong>${escapeHtml(account.email)}</strong><br>
${account.organisationId ? `Organisation : <strong>${escapeHtml(account.organisationName ?? '')}</strong>, rôle <strong>${escapeHtml(ROLE_LABELS[account.role as Role] ?? '')}</strong>` : 'Ce compte n’appartient à aucune organisation.'}</p>
<p><a href="/compte/acces-ia">Accès IA</a> · <a href="/compte/abonnement">Formule</a> · <a href="/compte/courriels">Courriels</a>${account.role === 'admin' ? ' · <a href="/compte/organisation">Organisation</a> · <a href="/compte/journal">Journal d’activité</a>' : ''}</p>
<h2>Changer d’adresse électronique</h2>
<form method="post" action="/compte/adresse">${csrf}
  <label for="nouvelle">Nouvelle adresse</label>
  <input id="nouvelle" type="email" name="email" autocomplete="email" required maxlength="254">
  ${passwordField('mdp-adresse', 'Mot de passe actuel', 'current-password').replace('name="mdp-adresse"', 'name="password"')}
  <button type="submit">Envoyer un lien de confirmation à la nouvelle adresse</button>
</form>
<h2>Changer de mot de passe</h2>
<form method="post" action="/compte/mot-de-passe">${csrf}
  ${passwordField('actuel', 'Mot de passe actuel', 'current-password')}
  ${passwordField('nouveau', `Nouveau mot de passe (${MIN_PASSWORD_LENGTH} caractères au moins)`, 'new-password')}
  <button type="submit">Changer de mot de passe</button>
</form>
<h2>Exporter mes données</h2>
<p>Une archive zip de fichiers JSON : le compte, son organisation et l’espace de travail de l’organisation (alertes, abonnements, suivis, dossiers de réponse avec leurs documents, brouillons, courriels envoyés), les accès IA et le journal de vos actions.</p>
<form method="post" action="/compte/export">${csrf}<button type="submit">Préparer l’export</button></form>
${
  account.organisationId
    ? `<h2>Quitter l’organisation</h2>
<p>Vous perdez l’accès à son espace de travail ; ce que vous y avez écrit reste à l’organisation. Le dernier administrateur ne peut pas partir tant que d’autres membres restent ; le dernier membre parti, l’organisation et son espace de travail sont supprimés après ${ORGANISATION_GRACE_DAYS} jours.</p>
<form method="post" action="/compte/quitter">${csrf}
  ${passwordField('mdp-quitter', 'Mot de passe actuel', 'current-password').replace('name="mdp-quitter"', 'name="password"')}
  <button type="submit" class="danger">Quitter l’organisation</button>
</form>`
    : ''
}
<h2>Supprimer le compte</h2>
<p>Vos données personnelles sont effacées, vos sessions, jetons et accès IA révoqués ; ce que vous avez écrit dans l’espace partagé reste à l’organisation, signé « ${DELETED_AUTHOR} ». Irréversible.</p>
<form method="post" action="/compte/supprimer">${csrf}
  ${passwordField('mdp-supprimer', 'Mot de passe actuel', 'current-password').replace('name="mdp-supprimer"', 'name="password"')}
  <label><input type="checkbox" name="confirmation" value="oui" required> Je veux supprimer définitivement mon compte</label>
  <button type="submit" class="danger">Supprimer mon compte</button>
</form>
<form method="post" action="/compte/deconnexion">${csrf}<button type="submit" class="secondary" style="margin-left:0">Se déconnecter</button></form>`,
      true,
    );
  }

  async function organisationOf(userId: string): Promise<string | null> {
    const row = await db('memberships').where('user_id', userId).first('organisation_id');
    return (row?.organisation_id as string | undefined) ?? null;
  }

  async function changeEmail(ctx: Context, form: URLSearchParams, session: Session): Promise<void> {
    const email = normaliseEmail(form.get('email'));
    if (!EMAIL_PATTERN.test(email)) return myAccountPage(ctx, session, 400, { ok: false, text: 'Nouvelle adresse invalide.' });
    const check = await confirmPassword(db, session.userId, form.get('password') ?? '', ctx.ip, now());
    if (!check.ok) return myAccountPage(ctx, session, 400, { ok: false, text: check.message });
    const wait = await admitRequest(db, [`adresse:ip:${ctx.ip}`, `adresse:email:${email}`], now());
    if (wait > 0) return throttled(ctx, wait);
    const current = (await db('users').where('id', session.userId).first('email'))?.email as string;
    if (email === current) return myAccountPage(ctx, session, 400, { ok: false, text: 'C’est déjà l’adresse du compte.' });
    if (await findUserByEmail(db, email)) {
      await sendAccountMail(
        db,
        mail,
        {
          to: email,
          subject: 'Changement d’adresse refusé',
          paragraphs: [`Un compte de ${mail.serviceName} a demandé à utiliser votre adresse, qui est déjà celle d’un autre compte : rien n’a été modifié.`],
        },
        now(),
      );
    } else {
      const t = await createLink(db, { purpose: 'changement_adresse', userId: session.userId, email, payload: null }, now());
      await sendAccountMail(
        db,
        mail,
        {
          to: email,
          subject: 'Confirmez votre nouvelle adresse',
          paragraphs: [`Pour que votre compte sur ${mail.serviceName} utilise désormais cette adresse, confirmez-la.`],
          link: { label: 'Confirmer la nouvelle adresse', url: link(`/compte/adresse/confirmer/${t}`) },
          after: ['Ce lien vaut 24 heures et ne sert qu’une fois. Si vous n’êtes pas à l’origine de cette demande, ignorez ce message.'],
        },
        now(),
      );
    }
    await myAccountPage(ctx, session, 200, { ok: true, text: 'Si cette adresse peut être utilisée, un lien de confirmation vient d’y être envoyé (valable 24 heures) : l’adresse du compte change une fois le lien suivi.' });
  }

  async function confirmEmail(ctx: Context): Promise<void> {
    const form = await publicForm(ctx, ctx.path);
    if (!form) return;
    const at = now();
    const outcome = await db.transaction(async (trx) => {
      const used = await consumeLink(trx, token(ctx), 'changement_adresse', at);
      if (!used?.userId) return 'dead' as const;
      if (await trx('users').where('email', used.email).first('id')) return 'taken' as const;
      await trx('users').where('id', used.userId).update({ email: used.email });
      const membership = await trx('memberships').where('user_id', used.userId).first('organisation_id');
      await recordActivity(trx, { organisationId: (membership?.organisation_id as string | undefined) ?? null, actorId: used.userId, kind: 'adresse_modifiee', ip: ctx.ip }, at);
      return 'changed' as const;
    });
    if (outcome === 'dead') return deadLink(ctx);
    if (outcome === 'taken') return html(ctx, 409, 'Adresse déjà utilisée', '<p>Cette adresse est devenue celle d’un autre compte entre-temps : rien n’a été modifié.</p>');
    html(ctx, 200, 'Adresse modifiée', '<p role="status">Votre compte utilise désormais cette adresse pour se connecter.</p><p><a href="/compte">Mon compte</a></p>');
  }

  async function changePassword(ctx: Context, form: URLSearchParams, session: Session): Promise<void> {
    const check = await confirmPassword(db, session.userId, form.get('actuel') ?? '', ctx.ip, now());
    if (!check.ok) return myAccountPage(ctx, session, 400, { ok: false, text: check.message });
    const email = (await db('users').where('id', session.userId).first('email'))?.email as string;
    const password = form.get('nouveau') ?? '';
    const problem = passwordProblem(password, email);
    if (problem) return myAccountPage(ctx, session, 400, { ok: false, text: problem });
    const passwordHash = await hashPassword(password);
    // Read before the transaction: on SQLite the transaction holds the only connection.
    const organisationId = await organisationOf(session.userId);
    await db.transaction(async (trx) => {
      await trx('users').where('id', session.userId).update({ password_hash: passwordHash });
      // The other web sessions end; this one stays, and the AI accesses the holder granted too.
      await trx('web_sessions').where('user_id', session.userId).whereNot('id_hash', sessionHash(session.sessionId)).delete();
      await recordActivity(trx, { organisationId, actorId: session.userId, kind: 'mot_de_passe_modifie', ip: ctx.ip }, now());
    });
    await myAccountPage(ctx, session, 200, { ok: true, text: 'Mot de passe modifié ; vos autres sessions sont fermées.' });
  }

  const lastAdminText = 'Vous êtes le dernier administrateur de l’organisation et d’autres membres restent : nommer d’abord un autre administrateur (page Organisation).';

  async function leave(ctx: Context, form: URLSearchParams, session: Session): Promise<void> {
    const check = await confirmPassword(db, session.userId, form.get('password') ?? '', ctx.ip, now());
    if (!check.ok) return myAccountPage(ctx, session, 400, { ok: false, text: check.message });
    const at = now();
    const outcome = await db.transaction(async (trx) => {
      const result = await leaveOrganisation(trx, session.userId, at);
      if (result.kind === 'left') await recordActivity(trx, { organisationId: result.organisationId, actorId: session.userId, subjectId: session.userId, kind: 'depart', ip: ctx.ip }, at);
      return result;
    });
    if (outcome.kind === 'last_admin') return myAccountPage(ctx, session, 409, { ok: false, text: lastAdminText });
    if (outcome.kind === 'no_organisation') return myAccountPage(ctx, session, 409, { ok: false, text: 'Ce compte n’appartient à aucune organisation.' });
    await myAccountPage(ctx, session, 200, {
      ok: true,
      text: outcome.organisationDeleted
        ? `Vous avez quitté l’organisation. Vous en étiez le dernier membre : elle sera supprimée avec son espace de travail dans ${ORGANISATION_GRACE_DAYS} jours, sauf si quelqu’un la rejoint d’ici là.`
        : 'Vous avez quitté l’organisation.',
    });
  }

  async function deleteAccount(ctx: Context, form: URLSearchParams, session: Session): Promise<void> {
    if (form.get('confirmation') !== 'oui') return myAccountPage(ctx, session, 400, { ok: false, text: 'Cocher la case de confirmation pour supprimer le compte.' });
    const check = await confirmPassword(db, session.userId, form.get('password') ?? '', ctx.ip, now());
    if (!check.ok) return myAccountPage(ctx, session, 400, { ok: false, text: check.message });
    const outcome = await eraseAccount(db, session.userId, now(), ORGANISATION_GRACE_DAYS);
    if (outcome.kind === 'last_admin') return myAccountPage(ctx, session, 409, { ok: false, text: lastAdminText });
    if (outcome.kind === 'erased') await recordActivity(db, { organisationId: outcome.organisationId, actorId: null, kind: 'compte_supprime' }, now());
    ctx.cookies.set(SESSION_COOKIE, '', { ...cookie, path: '/', maxAge: 0 });
    html(ctx, 200, 'Compte supprimé', '<p role="status">Votre compte est supprimé : vos données personnelles sont effacées et vos accès révoqués.</p>');
  }

  async function requestExport(ctx: Context, _form: URLSearchParams, session: Session): Promise<void> {
    const expires = Math.floor(now().getTime() / 1000) + ACCOUNT_EXPORT_TTL_SECONDS;
    const url = link(`${ACCOUNT_EXPORT_PATH}${signAccountExport(deps.linkKey, session.userId, expires)}`);
    await recordActivity(db, { organisationId: await organisationOf(session.userId), actorId: session.userId, kind: 'export', ip: ctx.ip }, now());
    html(ctx, 200, 'Export de vos données', `<p>L’archive est prête à être téléchargée ; ce lien vaut ${ACCOUNT_EXPORT_TTL_SECONDS / 60} minutes.</p><p><a id="lien-export" href="${escapeHtml(url)}">Télécharger l’archive (zip)</a></p>${ACCOUNT_NAV}`);
  }

  async function downloadExport(ctx: Context): Promise<void> {
    const verified = verifyAccountExport(deps.linkKey, token(ctx), now().getTime());
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    if (verified === 'forged') return html(ctx, 403, 'Lien invalide', '<p>Ce lien d’export n’est pas valide (modifié ou incomplet) : en demander un nouveau depuis Mon compte.</p>');
    if (verified === 'expired') return html(ctx, 410, 'Lien expiré', '<p>Ce lien d’export a expiré (il vaut dix minutes) : en demander un nouveau depuis Mon compte.</p>');
    const signedInAs = await webSessionUser(db, ctx.cookies.get(SESSION_COOKIE), now());
    if (signedInAs && signedInAs !== verified.account) return html(ctx, 403, 'Lien d’un autre compte', '<p>Ce lien a été donné à un autre compte : le demander depuis le vôtre.</p>');
    const grants = await listGrants(db, verified.account, auth.resource);
    const data = await collectAccountData(db, verified.account, grants);
    if (!data) return html(ctx, 410, 'Compte supprimé', '<p>Ce compte n’existe plus.</p>');
    try {
      const present = await Promise.all(data.documents.map((d) => deps.store.has(d.objectKey)));
      if (present.includes(false)) return html(ctx, 410, 'Document indisponible', '<p>Un document joint n’est plus dans le stockage du service : l’export ne peut pas être complet.</p>');
    } catch {
      ctx.set('Retry-After', '30');
      return html(ctx, 503, 'Stockage momentanément indisponible', '<p>Le stockage des documents ne répond pas : réessayer dans un moment.</p>');
    }
    ctx.status = 200;
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Type', 'application/zip');
    ctx.set('Content-Disposition', 'attachment; filename="mes-donnees.zip"');
    ctx.body = zipAccountExport(data, deps.store);
  }

  // ---- Organisation (administrators) --------------------------------------------------------------

  async function organisationPage(ctx: Context, session: Session, organisationId: string, status = 200, message?: { ok: boolean; text: string }): Promise<void> {
    const at = now();
    const [members, invitations, org] = await Promise.all([listMembers(db, organisationId), listInvitations(db, organisationId, at), db('organisations').where('id', organisationId).first('name', 'plan')]);
    const csrf = hidden('csrf', session.csrf);
    const lastUse = new Map<string, string | null>();
    for (const m of members) {
      const grants = await listGrants(db, m.userId, auth.resource);
      const latest = [m.lastSignInAt, ...grants.map((g) => g.lastUsedAt)].filter((x): x is string => x !== null).sort().at(-1) ?? null;
      lastUse.set(m.userId, latest);
    }
    const roleOptions = (current: Role) => ROLES.map((r) => `<option value="${r}"${r === current ? ' selected' : ''}>${escapeHtml(ROLE_LABELS[r])}</option>`).join('');
    const rows = members
      .map(
        (m) => `<tr>
  <td>${escapeHtml(m.email)}${m.userId === session.userId ? ' <span class="muted">(vous)</span>' : ''}</td>
  <td><form method="post" action="/compte/organisation/role">${csrf}${hidden('membre', m.userId)}
    <select name="role" aria-label="Rôle de ${escapeHtml(m.email)}">${roleOptions(m.role)}</select>
    <button type="submit" class="secondary" style="margin:0">Changer</button></form></td>
  <td>${escapeHtml(dateFr(m.since))}</td>
  <td>${escapeHtml(dateFr(lastUse.get(m.userId) ?? null))}</td>
  <td>${m.userId === session.userId ? '' : `<form method="post" action="/compte/organisation/retirer">${csrf}${hidden('membre', m.userId)}<button type="submit" class="danger">Retirer</button></form>`}</td>
</tr>`,
      )
      .join('\n');
    const invitationRows = invitations
      .map(
        (i) => `<tr><td>${escapeHtml(i.email)}</td><td>${escapeHtml(ROLE_LABELS[i.role])}</td><td>${escapeHtml(dateFr(new Date(i.expiresAt * 1000).toISOString()))}</td>
  <td><form method="post" action="/compte/organisation/invitations/revoquer">${csrf}${hidden('invitation', i.id)}<button type="submit" class="danger">Révoquer</button></form></td></tr>`,
      )
      .join('\n');
    const seats = members.length;
    html(
      ctx,
      status,
      'Organisation',
      `${message ? (message.ok ? notice(message.text) : error(message.text)) : ''}
<p>Organisation : <strong>${escapeHtml((org?.name as string | undefined) ?? '')}</strong> — formule ${org?.plan === 'subscribed' ? 'abonnée' : 'gratuite'}.</p>
<p>Sièges : ${seats} membre${seats > 1 ? 's' : ''} × ${PRICE_EUR_EXCL_TAX} € HT = <strong>${seats * PRICE_EUR_EXCL_TAX} € HT par mois</strong> en formule abonnée.</p>
<h2>Membres</h2>
<table><thead><tr><th>Adresse</th><th>Rôle</th><th>Membre depuis</th><th>Dernière activité</th><th></th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Rôles : administrateur (gère les membres et la formule), membre (lit et écrit dans l’espace de travail), lecteur (lit seulement). Retirer un membre déconnecte aussitôt ses sessions et ses accès IA ; ce qu’il a écrit reste à l’organisation.</p>
<h2>Inviter</h2>
<form method="post" action="/compte/organisation/inviter">${csrf}
  <label for="invite-email">Adresse électronique</label>
  <input id="invite-email" type="email" name="email" required maxlength="254">
  <label for="invite-role">Rôle</label>
  <select id="invite-role" name="role">${roleOptions('membre')}</select>
  <button type="submit">Envoyer l’invitation</button>
</form>
<h2>Invitations en attente</h2>
${invitations.length ? `<table><thead><tr><th>Adresse</th><th>Rôle</th><th>Valable jusqu’au</th><th></th></tr></thead><tbody>${invitationRows}</tbody></table>` : '<p><em>Aucune invitation en attente.</em></p>'}
<p><a href="/compte/journal">Journal d’activité</a></p>
${ACCOUNT_NAV}`,
      true,
    );
  }

  async function invite(ctx: Context, session: Session, organisationId: string, form: URLSearchParams | null): Promise<void> {
    const email = normaliseEmail(form?.get('email') ?? null);
    const role = form?.get('role') as Role;
    if (!EMAIL_PATTERN.test(email)) return organisationPage(ctx, session, organisationId, 400, { ok: false, text: 'Adresse électronique invalide.' });
    if (!ROLES.includes(role)) return organisationPage(ctx, session, organisationId, 400, { ok: false, text: `Rôle inconnu : ${ROLES.join(', ')} attendu.` });
    const wait = await admitRequest(db, [`invitation:ip:${ctx.ip}`, `invitation:email:${email}`], now());
    if (wait > 0) return throttled(ctx, wait);
    const t = await createInvitation(db, { organisationId, email, role, invitedBy: session.userId }, now());
    const org = await db('organisations').where('id', organisationId).first('name');
    await sendAccountMail(
      db,
      mail,
      {
        to: email,
        subject: `Invitation à rejoindre ${String(org?.name ?? '')}`,
        paragraphs: [`L’organisation « ${String(org?.name ?? '')} » vous invite à la rejoindre sur ${mail.serviceName}, avec le rôle ${ROLE_LABELS[role]}.`],
        link: { label: 'Voir l’invitation', url: link(`/compte/invitation/${t}`) },
        after: ['Ce lien vaut 7 jours et ne sert qu’une fois. Si vous ne connaissez pas cette organisation, ignorez ce message.'],
      },
      now(),
    );
    await recordActivity(db, { organisationId, actorId: session.userId, kind: 'invitation', detail: `rôle ${ROLE_LABELS[role]}`, ip: ctx.ip }, now());
    await organisationPage(ctx, session, organisationId, 200, { ok: true, text: `Invitation envoyée à ${email} (valable 7 jours).` });
  }

  async function revokeInvite(ctx: Context, session: Session, organisationId: string, form: URLSearchParams | null): Promise<void> {
    const revoked = await revokeInvitation(db, organisationId, form?.get('invitation') ?? '', now());
    if (!revoked) return organisationPage(ctx, session, organisationId, 404, { ok: false, text: 'Invitation introuvable (déjà acceptée, révoquée ou expirée).' });
    await recordActivity(db, { organisationId, actorId: session.userId, kind: 'invitation_revoquee', detail: `rôle ${ROLE_LABELS[revoked.role]}`, ip: ctx.ip }, now());
    await organisationPage(ctx, session, organisationId, 200, { ok: true, text: `Invitation de ${revoked.email} révoquée.` });
  }

  async function setRole(ctx: Context, session: Session, organisationId: string, form: URLSearchParams | null): Promise<void> {
    const member = form?.get('membre') ?? '';
    const role = form?.get('role') as Role;
    if (!ROLES.includes(role)) return organisationPage(ctx, session, organisationId, 400, { ok: false, text: `Rôle inconnu : ${ROLES.join(', ')} attendu.` });
    const outcome = await changeRole(db, organisationId, member, role);
    if (outcome === 'not_member') return organisationPage(ctx, session, organisationId, 404, { ok: false, text: 'Ce compte n’est pas membre de l’organisation.' });
    if (outcome === 'last_admin') return organisationPage(ctx, session, organisationId, 409, { ok: false, text: 'L’organisation garde au moins un administrateur : en nommer un autre avant de changer ce rôle.' });
    await recordActivity(db, { organisationId, actorId: session.userId, subjectId: member, kind: 'role_modifie', detail: `nouveau rôle : ${ROLE_LABELS[role]}`, ip: ctx.ip }, now());
    await organisationPage(ctx, session, organisationId, 200, { ok: true, text: 'Rôle modifié.' });
  }

  async function remove(ctx: Context, session: Session, organisationId: string, form: URLSearchParams | null): Promise<void> {
    const member = form?.get('membre') ?? '';
    if (member === session.userId) return organisationPage(ctx, session, organisationId, 400, { ok: false, text: 'Pour partir vous-même, utiliser « Quitter l’organisation » sur la page Mon compte.' });
    const outcome = await removeMember(db, organisationId, member);
    if (outcome === 'not_member') return organisationPage(ctx, session, organisationId, 404, { ok: false, text: 'Ce compte n’est pas membre de l’organisation.' });
    if (outcome === 'last_admin') return organisationPage(ctx, session, organisationId, 409, { ok: false, text: 'L’organisation garde au moins un administrateur.' });
    await recordActivity(db, { organisationId, actorId: session.userId, subjectId: member, kind: 'membre_retire', ip: ctx.ip }, now());
    await organisationPage(ctx, session, organisationId, 200, { ok: true, text: 'Membre retiré : ses sessions et ses accès IA sont déconnectés.' });
  }

  async function journal(ctx: Context, _session: Session, organisationId: string): Promise<void> {
    const entries = await listActivity(db, organisationId, ACTIVITY_SHOWN);
    const who = (email: string | null, id: string | null, deletedWhenNull: boolean) => (email ? escapeHtml(email) : id || deletedWhenNull ? `<em>${DELETED_AUTHOR}</em>` : '');
    const rows = entries
      .map(
        (e) => `<tr><td>${escapeHtml(dateFr(e.at))}</td><td>${escapeHtml(ACTIVITY_LABELS[e.kind] ?? e.kind)}</td><td>${who(e.actorEmail, e.actorId, true)}</td><td>${who(e.subjectEmail, e.subjectId, false)}</td><td>${escapeHtml(e.detail ?? '')}</td><td>${escapeHtml(e.network ?? '')}${e.ip ? `<br><span class="muted">${escapeHtml(e.ip)}</span>` : ''}</td></tr>`,
      )
      .join('\n');
    html(
      ctx,
      200,
      'Journal d’activité',
      `<p>Les ${ACTIVITY_SHOWN} derniers événements de l’organisation : connexions, invitations, rôles, départs, accès IA, suppressions, exports. L’adresse IP complète est gardée ${30} jours, puis seul son réseau reste. Jamais de mot de passe ni de jeton.</p>
${entries.length ? `<table><thead><tr><th>Quand</th><th>Événement</th><th>Par</th><th>Concernant</th><th>Détail</th><th>Réseau</th></tr></thead><tbody>${rows}</tbody></table>` : '<p><em>Aucun événement.</em></p>'}
<p><a href="/compte/organisation">Organisation</a></p>`,
      true,
    );
  }

  const publicPage =
    (render: (ctx: Context) => void | Promise<void>): Middleware =>
    async (ctx) => {
      await render(ctx);
    };

  return {
    signUpForm: publicPage((ctx) => signUpPage(ctx, 200)),
    signUp: publicPage(signUp),
    confirmSignUpForm: publicPage(async (ctx) => {
      if (!(await peekLink(db, token(ctx), 'inscription', now()))) return deadLink(ctx);
      linkPage(ctx, 'Confirmer votre adresse', ctx.path, 'Confirmez votre adresse pour créer votre compte et votre organisation.', 'Confirmer et créer le compte');
    }),
    confirmSignUp: publicPage(confirmSignUp),
    forgotForm: publicPage((ctx) => forgotPage(ctx, 200)),
    forgot: publicPage(forgot),
    resetForm: publicPage(async (ctx) => {
      if (!(await peekLink(db, token(ctx), 'reinitialisation', now()))) return deadLink(ctx);
      resetPage(ctx, 200);
    }),
    reset: publicPage(reset),
    invitationForm: publicPage(async (ctx) => {
      const invitation = await invitationByToken(db, token(ctx), now());
      if (!invitation) return deadLink(ctx);
      invitationPage(ctx, 200, invitation);
    }),
    acceptInvitation: publicPage(acceptInvitation),
    confirmEmailForm: publicPage(async (ctx) => {
      if (!(await peekLink(db, token(ctx), 'changement_adresse', now()))) return deadLink(ctx);
      linkPage(ctx, 'Confirmer la nouvelle adresse', ctx.path, 'Confirmez pour que votre compte utilise désormais cette adresse.', 'Confirmer la nouvelle adresse');
    }),
    confirmEmail: publicPage(confirmEmail),
    myAccount: signedIn((ctx, session) => myAccountPage(ctx, session)),
    changeEmail: signedInForm(changeEmail),
    changePassword: signedInForm(changePassword),
    leave: signedInForm(leave),
    deleteAccount: signedInForm(deleteAccount),
    requestExport: signedInForm(requestExport),
    downloadExport: publicPage(downloadExport),
    organisation: adminOnly((ctx, session, organisationId) => organisationPage(ctx, session, organisationId), false),
    invite: adminOnly(invite, true),
    revokeInvitation: adminOnly(revokeInvite, true),
    changeRole: adminOnly(setRole, true),
    removeMember: adminOnly(remove, true),
    journal: adminOnly(journal, false),
  } satisfies Record<string, Middleware>;
}
