// The login, consent and "Accès IA" forms refuse forged posts (CSRF), never say which credential was wrong, slow down repeated failures, escape what they show, and act only on the signed-in holder's accesses.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { CookieJar, discover, follow, formFields, obtainToken, pkcePair, registerNativeClient } from '../../../scripts/lib/native-flow.js';
import { escapeHtml, SCOPE_LABELS } from '../../../src/auth/pages.js';
import { WRONG_CREDENTIALS } from '../../../src/auth/sign-in.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const REDIRECT_URI = 'http://127.0.0.1:53999/callback';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

interface LoginStep {
  jar: CookieJar;
  /** The interaction page's address. */
  url: string;
  html: string;
  action: string;
  csrf: string;
  state: string;
}

/** Registers a client and follows an authorization request to its login page. */
async function openLogin(svc: TestService, clientName = 'Formulaires', scope = 'mcp:read'): Promise<LoginStep> {
  const meta = await discover(svc.url);
  const clientId = await registerNativeClient(meta.registration_endpoint as string, REDIRECT_URI, clientName);
  const { challenge } = pkcePair();
  const state = randomBytes(12).toString('base64url');
  const url = new URL(meta.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope,
    resource: `${svc.url}/api/mcp`,
  }).toString();
  const jar = new CookieJar();
  const step = await follow(url.toString(), jar, {}, REDIRECT_URI);
  const html = await step.res.text();
  expect(step.res.status, html.slice(0, 300)).to.equal(200);
  expect(html).to.contain('name="password"');
  const { action, fields } = formFields(html);
  return { jar, url: step.url, html, action: new URL(action, step.url).toString(), csrf: fields.csrf as string, state };
}

/** Posts a form, following redirects up to (not into) the loopback redirect. */
async function postForm(url: string, jar: CookieJar, fields: Record<string, string>): Promise<{ url: string; status: number; html: string; res: Response }> {
  const step = await follow(url, jar, { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() }, REDIRECT_URI);
  return { url: step.url, status: step.res.status, html: await step.res.text(), res: step.res };
}

function alertText(html: string): string | undefined {
  return /<p class="error" role="alert">([^<]*)<\/p>/.exec(html)?.[1];
}

function csrfOf(html: string): string {
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  expect(csrf, 'jeton CSRF dans la page').to.be.a('string');
  return csrf as string;
}

/** Signs in to the account settings; returns the jar (with the session) and the "Accès IA" page. */
async function compteSignIn(svc: TestService, account: { email: string; password: string }): Promise<{ jar: CookieJar; html: string; csrf: string }> {
  const jar = new CookieJar();
  const page = await follow(`${svc.url}/compte/connexion`, jar);
  const { fields } = formFields(await page.res.text());
  const signedIn = await follow(`${svc.url}/compte/connexion`, jar, {
    method: 'POST',
    headers: FORM,
    body: new URLSearchParams({ csrf: fields.csrf as string, email: account.email, password: account.password }).toString(),
  });
  const html = await signedIn.res.text();
  expect(signedIn.url, html.slice(0, 300)).to.equal(`${svc.url}/compte/acces-ia`);
  expect(signedIn.res.status).to.equal(200);
  return { jar, html, csrf: csrfOf(html) };
}

async function meStatus(svc: TestService, token: string): Promise<number> {
  return (await fetch(`${svc.url}/api/mcp/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status;
}

async function grantIdsOf(svc: TestService, accountId: string): Promise<{ grantId: string; clientId: string }[]> {
  const rows = await svc.db('oauth_store').where({ model: 'Grant', account_id: accountId }).select('payload');
  return rows.map((r: { payload: string }) => {
    const p = JSON.parse(r.payload) as { jti: string; clientId: string };
    return { grantId: p.jti, clientId: p.clientId };
  });
}

describe('Authorize login and consent forms (no browser)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.close());

  it('a login post without the csrf field, or with a wrong one, is 403 and signs nobody in', async () => {
    const login = await openLogin(svc);
    const other = await openLogin(svc);
    const credentials = { email: svc.account.email, password: svc.account.password };
    const attempts: Record<string, Record<string, string>> = {
      'sans csrf': credentials,
      'csrf vide': { ...credentials, csrf: '' },
      'csrf inventé': { ...credentials, csrf: randomBytes(32).toString('base64url') },
      'csrf d’une autre demande': { ...credentials, csrf: other.csrf },
    };
    for (const [name, fields] of Object.entries(attempts)) {
      const answer = await postForm(login.action, login.jar, fields);
      expect(answer.status, name).to.equal(403);
      expect(answer.html, name).to.contain('Formulaire expiré ou invalide');
      expect(answer.url, name).to.equal(login.action);
    }
    // Still at the login step: the interaction page shows the login form, not the consent.
    const again = await follow(login.url, login.jar, {}, REDIRECT_URI);
    const html = await again.res.text();
    expect(again.res.status).to.equal(200);
    expect(html).to.contain('name="password"');
    expect(html).to.not.contain('name="decision"');
    // The right csrf then works (the forged posts were not counted as failures either).
    const ok = await postForm(login.action, login.jar, { ...credentials, csrf: login.csrf });
    expect(ok.status).to.equal(200);
    expect(ok.html).to.contain('name="decision"');
  });

  it('a consent post with a wrong csrf is 403 and does not redirect', async () => {
    const login = await openLogin(svc);
    const consent = await postForm(login.action, login.jar, { email: svc.account.email, password: svc.account.password, csrf: login.csrf });
    const { action, fields } = formFields(consent.html);
    const consentUrl = new URL(action, consent.url).toString();
    for (const csrf of [undefined, 'faux', login.csrf]) {
      const answer = await postForm(consentUrl, login.jar, { decision: 'approve', ...(csrf === undefined ? {} : { csrf }) });
      expect(answer.status, String(csrf)).to.equal(403);
      expect(answer.url.startsWith(REDIRECT_URI)).to.equal(false);
    }
    const approved = await postForm(consentUrl, login.jar, { decision: 'approve', csrf: fields.csrf as string });
    expect(approved.url.startsWith(REDIRECT_URI)).to.equal(true);
    expect(new URL(approved.url).searchParams.get('code')).to.be.a('string');
  });

  it('the consent page lists each requested scope with its French label; no scope requested: mcp:public', async () => {
    const cases: [string, string[]][] = [
      ['mcp:read mcp:write', ['mcp:read', 'mcp:write']],
      ['', ['mcp:public']],
    ];
    for (const [scope, expected] of cases) {
      const login = await openLogin(svc, 'Portées', scope);
      const consent = await postForm(login.action, login.jar, { email: svc.account.email, password: svc.account.password, csrf: login.csrf });
      const items = [...consent.html.matchAll(/<li><strong>([^<]+)<\/strong> : ([^<]+)<\/li>/g)].map((m) => [m[1], m[2]]);
      expect(items, scope).to.deep.equal(expected.map((s) => [s, escapeHtml(SCOPE_LABELS[s] as string)]));
    }
  });

  it('wrong credentials: the same page for an unknown e-mail and for a wrong password', async () => {
    const login = await openLogin(svc);
    const unknownEmail = `inconnu-${randomBytes(3).toString('hex')}@exemple.fr`;
    const unknown = await postForm(login.action, login.jar, { email: unknownEmail, password: svc.account.password, csrf: login.csrf });
    const wrong = await postForm(login.action, login.jar, { email: svc.account.email, password: `${svc.account.password}x`, csrf: login.csrf });
    for (const answer of [unknown, wrong]) {
      expect(answer.status).to.equal(200);
      expect(answer.url).to.equal(login.action);
    }
    expect(alertText(unknown.html)).to.equal(WRONG_CREDENTIALS);
    expect(alertText(wrong.html)).to.equal(alertText(unknown.html));
    // Apart from the e-mail typed back into the field, the two pages are identical.
    expect(unknown.html.replace(unknownEmail, 'E')).to.equal(wrong.html.replace(svc.account.email, 'E'));

    // The account settings sign-in says the same.
    const jar = new CookieJar();
    const page = await follow(`${svc.url}/compte/connexion`, jar);
    const { fields } = formFields(await page.res.text());
    const compteUnknown = await follow(`${svc.url}/compte/connexion`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf: fields.csrf as string, email: unknownEmail, password: 'x' }).toString() });
    const compteWrong = await follow(`${svc.url}/compte/connexion`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf: fields.csrf as string, email: svc.account.email, password: 'x' }).toString() });
    const a = await compteUnknown.res.text();
    const b = await compteWrong.res.text();
    expect(compteUnknown.res.status).to.equal(200);
    expect(compteWrong.res.status).to.equal(200);
    expect(alertText(a)).to.equal(WRONG_CREDENTIALS);
    expect(a.replace(unknownEmail, 'E')).to.equal(b.replace(svc.account.email, 'E'));

    // A success clears the counters (4 failures so far from this address).
    const ok = await postForm(login.action, login.jar, { email: svc.account.email, password: svc.account.password, csrf: login.csrf });
    expect(ok.html).to.contain('name="decision"');
  });

  it('login and consent pages: X-Frame-Options DENY, Cache-Control no-store, HTML in UTF-8', async () => {
    const meta = await discover(svc.url);
    const clientId = await registerNativeClient(meta.registration_endpoint as string, REDIRECT_URI, 'En-têtes');
    const url = new URL(meta.authorization_endpoint as string);
    url.search = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's', scope: 'mcp:read' }).toString();
    const jar = new CookieJar();
    const first = await follow(url.toString(), jar, {}, REDIRECT_URI);
    const html = await first.res.text();
    const responses: [string, Response][] = [['connexion', first.res]];
    const { action, fields } = formFields(html);
    const loginUrl = new URL(action, first.url).toString();
    const failed = await postForm(loginUrl, jar, { csrf: fields.csrf as string, email: svc.account.email, password: 'faux' });
    responses.push(['connexion (erreur)', failed.res]);
    const consent = await postForm(loginUrl, jar, { csrf: fields.csrf as string, email: svc.account.email, password: svc.account.password });
    expect(consent.html).to.contain('name="decision"');
    responses.push(['consentement', consent.res]);
    for (const [name, res] of responses) {
      expect(res.headers.get('x-frame-options'), name).to.equal('DENY');
      expect(res.headers.get('cache-control'), name).to.equal('no-store');
      expect(res.headers.get('content-type'), name).to.equal('text/html; charset=utf-8');
    }
  });

  it('the client name, and the e-mail typed back, are escaped in the pages', async () => {
    const evil = '<script>alert(1)</script>';
    const escaped = '&lt;script&gt;alert(1)&lt;/script&gt;';
    const login = await openLogin(svc, evil);
    expect(login.html).to.contain(`<strong>${escaped}</strong> demande l’accès à votre compte.`);
    expect(login.html).to.not.match(/<script/i);

    const typed = '"><script>alert(2)</script>@exemple.fr';
    const failed = await postForm(login.action, login.jar, { email: typed, password: 'x', csrf: login.csrf });
    expect(failed.html).to.contain('value="&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;@exemple.fr"');
    expect(failed.html).to.not.match(/<script/i);

    const consent = await postForm(login.action, login.jar, { email: svc.account.email, password: svc.account.password, csrf: login.csrf });
    expect(consent.html).to.contain(`<strong>${escaped}</strong> demande les autorisations suivantes`);
    expect(consent.html).to.not.match(/<script/i);
    const { action, fields } = formFields(consent.html);
    const approved = await postForm(new URL(action, consent.url).toString(), login.jar, { decision: 'approve', csrf: fields.csrf as string });
    expect(approved.url.startsWith(REDIRECT_URI)).to.equal(true);

    // The "Accès IA" table shows that client's grant, escaped too.
    const { html } = await compteSignIn(svc, svc.account);
    expect(html).to.contain(`<strong>${escaped}</strong>`);
    expect(html).to.not.match(/<script/i);
  });
});

describe('Sign-in throttling', () => {
  let svc: TestService;
  beforeEach(async () => {
    svc = await startTestService();
  });
  afterEach(async () => svc?.close());

  it('after 5 failures for one e-mail, a 6th attempt with the right password is refused: "Trop de tentatives"', async () => {
    const account = await svc.createAccount();
    const login = await openLogin(svc);
    for (let i = 1; i <= 5; i++) {
      const answer = await postForm(login.action, login.jar, { email: account.email, password: `faux-${i}`, csrf: login.csrf });
      expect(alertText(answer.html), `échec ${i}`).to.equal(WRONG_CREDENTIALS);
    }
    const sixth = await postForm(login.action, login.jar, { email: account.email, password: account.password, csrf: login.csrf });
    expect(sixth.status).to.equal(200);
    expect(sixth.url).to.equal(login.action);
    expect(sixth.html).to.not.contain('name="decision"');
    expect(alertText(sixth.html)).to.match(/^Trop de tentatives échouées : réessayer dans \d+ secondes\.$/);

    // The account settings sign-in shares the same counters.
    const jar = new CookieJar();
    const page = await follow(`${svc.url}/compte/connexion`, jar);
    const { fields } = formFields(await page.res.text());
    const compte = await follow(`${svc.url}/compte/connexion`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf: fields.csrf as string, email: account.email, password: account.password }).toString() });
    expect(compte.res.status).to.equal(200);
    expect(compte.url).to.equal(`${svc.url}/compte/connexion`);
    expect(alertText(await compte.res.text())).to.match(/^Trop de tentatives/);
  });

  it('the e-mail counter ignores case and spaces, and is not wiped by another account’s success', async () => {
    const victim = await svc.createAccount();
    const other = await svc.createAccount();
    const login = await openLogin(svc);
    const variants = [victim.email, victim.email.toUpperCase(), ` ${victim.email} `, victim.email.replace(/^c/, 'C')];
    for (const email of variants) {
      const answer = await postForm(login.action, login.jar, { email, password: 'faux', csrf: login.csrf });
      expect(alertText(answer.html)).to.equal(WRONG_CREDENTIALS);
    }
    // Another account signs in from the same address (clearing that address's failures)...
    const otherLogin = await openLogin(svc);
    const ok = await postForm(otherLogin.action, otherLogin.jar, { email: other.email, password: other.password, csrf: otherLogin.csrf });
    expect(ok.html).to.contain('name="decision"');
    // ...the victim's 5th failure still counts, and the right password is then refused.
    const fifth = await postForm(login.action, login.jar, { email: victim.email, password: 'faux', csrf: login.csrf });
    expect(alertText(fifth.html)).to.equal(WRONG_CREDENTIALS);
    const sixth = await postForm(login.action, login.jar, { email: victim.email, password: victim.password, csrf: login.csrf });
    expect(alertText(sixth.html)).to.match(/^Trop de tentatives/);
  });

  // Password spraying: a client address gets 20 failures over any e-mails, and signing in to
  // one's own account in between does not reset them.
  it('a success of one account does not wipe the failures of its client address for other e-mails', async function () {
    this.timeout(20000);
    const own = await svc.createAccount();
    const login = await openLogin(svc);
    const tryUnknown = async () =>
      alertText((await postForm(login.action, login.jar, { email: `x${randomBytes(3).toString('hex')}@exemple.fr`, password: 'faux', csrf: login.csrf })).html);
    for (let i = 0; i < 19; i++) expect(await tryUnknown()).to.equal(WRONG_CREDENTIALS);
    const ownLogin = await openLogin(svc);
    const ok = await postForm(ownLogin.action, ownLogin.jar, { email: own.email, password: own.password, csrf: ownLogin.csrf });
    expect(ok.html).to.contain('name="decision"');
    expect(await tryUnknown()).to.equal(WRONG_CREDENTIALS); // 20th failure from this address
    expect(await tryUnknown()).to.match(/^Trop de tentatives/);
  });
});

describe('"Accès IA" account settings forms (no browser)', () => {
  let svc: TestService;
  let other: TestAccount;
  let otherToken: string;
  before(async () => {
    svc = await startTestService();
    other = await svc.createAccount({ organisation: 'Autre organisation' });
    otherToken = await svc.tokenFor(other);
  });
  after(async () => svc?.close());

  it('/compte/acces-ia without a session redirects to the sign-in page', async () => {
    for (const path of ['/compte', '/compte/acces-ia']) {
      const res = await fetch(`${svc.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).to.equal(303);
      expect(res.headers.get('location'), path).to.equal('/compte/connexion');
    }
    const post = await fetch(`${svc.url}/compte/acces-ia/deconnecter`, { method: 'POST', redirect: 'manual', headers: FORM, body: 'grant=x&csrf=y' });
    expect(post.status).to.equal(303);
    expect(post.headers.get('location')).to.equal('/compte/connexion');
  });

  it('the sign-in page sets a double-submit csrf cookie; a sign-in whose csrf does not match it is 403 and opens no session', async () => {
    const page = await fetch(`${svc.url}/compte/connexion`);
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('compte_csrf='));
    expect(cookie).to.be.a('string');
    expect(cookie).to.match(/httponly/i).and.match(/samesite=lax/i).and.match(/path=\/compte/i);
    const csrf = formFields(await page.text()).fields.csrf as string;
    expect(cookie).to.contain(`compte_csrf=${csrf}`);

    const credentials = { email: svc.account.email, password: svc.account.password };
    const cases: [string, string | undefined, Record<string, string>][] = [
      ['mauvais cookie', `compte_csrf=${randomBytes(24).toString('base64url')}`, { ...credentials, csrf }],
      ['sans cookie', undefined, { ...credentials, csrf }],
      ['sans champ', `compte_csrf=${csrf}`, credentials],
      ['champ différent', `compte_csrf=${csrf}`, { ...credentials, csrf: `${csrf}x` }],
      ['cookie et champ vides', 'compte_csrf=', { ...credentials, csrf: '' }],
    ];
    for (const [name, cookieHeader, fields] of cases) {
      const res = await fetch(`${svc.url}/compte/connexion`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...FORM, ...(cookieHeader ? { cookie: cookieHeader } : {}) },
        body: new URLSearchParams(fields).toString(),
      });
      expect(res.status, name).to.equal(403);
      expect(res.headers.getSetCookie().some((c) => c.startsWith('compte_session=')), name).to.equal(false);
      expect(await res.text(), name).to.contain('Formulaire expiré');
    }
  });

  it('signed in: the session cookie is HttpOnly, SameSite=Lax; the page is no-store and not framable; it lists only the holder’s accesses', async () => {
    const jar = new CookieJar();
    const page = await follow(`${svc.url}/compte/connexion`, jar);
    const { fields } = formFields(await page.res.text());
    const res = await fetch(`${svc.url}/compte/connexion`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie: jar.header() },
      body: new URLSearchParams({ csrf: fields.csrf as string, email: svc.account.email, password: svc.account.password }).toString(),
    });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/compte/acces-ia');
    const session = res.headers.getSetCookie().find((c) => c.startsWith('compte_session='));
    expect(session).to.match(/httponly/i).and.match(/samesite=lax/i).and.match(/path=\/(;|$)/i); // sent to the record pages (permalinks) too
    jar.store(res);
    const list = await follow(`${svc.url}/compte/acces-ia`, jar);
    expect(list.res.status).to.equal(200);
    expect(list.res.headers.get('x-frame-options')).to.equal('DENY');
    expect(list.res.headers.get('cache-control')).to.equal('no-store');
    const html = await list.res.text();
    const mine = await grantIdsOf(svc, svc.account.userId);
    const theirs = await grantIdsOf(svc, other.userId);
    expect(mine).to.have.length(1);
    expect(theirs).to.have.length(1);
    expect(html).to.contain(`name="grant" value="${mine[0]?.grantId}"`);
    expect(html).to.not.contain(theirs[0]?.grantId);
    expect(html).to.not.contain(theirs[0]?.clientId);
  });

  it('disconnecting another account’s grant answers 404 and leaves it working', async () => {
    const { jar, csrf } = await compteSignIn(svc, svc.account);
    const [theirs] = await grantIdsOf(svc, other.userId);
    expect(theirs).to.not.equal(undefined);
    for (const grant of [theirs?.grantId as string, 'inexistant', '']) {
      const answer = await follow(`${svc.url}/compte/acces-ia/deconnecter`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ grant, csrf }).toString() });
      expect(answer.res.status, grant).to.equal(404);
      expect(await answer.res.text(), grant).to.contain('Accès introuvable.');
    }
    expect(await grantIdsOf(svc, other.userId)).to.deep.equal([theirs]);
    expect(await meStatus(svc, otherToken)).to.equal(200);
    expect(await meStatus(svc, svc.token)).to.equal(200);
  });

  it('a disconnection with a missing or wrong csrf (or another session’s) is 403 and revokes nothing', async () => {
    const { jar } = await compteSignIn(svc, svc.account);
    const { csrf: otherSessionCsrf } = await compteSignIn(svc, svc.account);
    const [mine] = await grantIdsOf(svc, svc.account.userId);
    for (const csrf of [undefined, '', 'faux', otherSessionCsrf]) {
      const fields: Record<string, string> = { grant: mine?.grantId as string, ...(csrf === undefined ? {} : { csrf }) };
      const answer = await follow(`${svc.url}/compte/acces-ia/deconnecter`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() });
      expect(answer.res.status, String(csrf)).to.equal(403);
      expect(await answer.res.text()).to.contain('Formulaire expiré : recommencer.');
    }
    expect(await grantIdsOf(svc, svc.account.userId)).to.deep.equal([mine]);
    expect(await meStatus(svc, svc.token)).to.equal(200);
  });

  it('a disconnection revokes the access token and the refresh token of that access at once', async () => {
    const flow = await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password, scope: 'mcp:read', clientName: 'Script à déconnecter' });
    expect(flow.refreshToken).to.be.a('string');
    expect(await meStatus(svc, flow.accessToken)).to.equal(200);
    const grant = (await grantIdsOf(svc, svc.account.userId)).find((g) => g.clientId === flow.clientId);
    expect(grant).to.not.equal(undefined);
    const { jar, csrf } = await compteSignIn(svc, svc.account);
    const res = await fetch(`${svc.url}/compte/acces-ia/deconnecter`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...FORM, cookie: jar.header() },
      body: new URLSearchParams({ grant: grant?.grantId as string, csrf }).toString(),
    });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/compte/acces-ia?deconnecte=1');
    expect(await meStatus(svc, flow.accessToken)).to.equal(401);
    const refresh = await fetch(flow.tokenEndpoint, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: flow.refreshToken as string, client_id: flow.clientId }).toString(),
    });
    expect(refresh.status).to.equal(400);
    expect(((await refresh.json()) as { error?: string }).error).to.equal('invalid_grant');
    // The other accesses are untouched.
    expect(await meStatus(svc, svc.token)).to.equal(200);
    expect(await meStatus(svc, otherToken)).to.equal(200);
  });

  it('"Se déconnecter" ends the session: with a wrong csrf it is 403, then the next visit redirects to sign-in', async () => {
    const { jar, csrf } = await compteSignIn(svc, svc.account);
    const oldCookie = jar.header();
    const refused = await follow(`${svc.url}/compte/deconnexion`, jar, { method: 'POST', headers: FORM, body: 'csrf=faux' });
    expect(refused.res.status).to.equal(403);
    expect((await follow(`${svc.url}/compte/acces-ia`, jar)).url).to.equal(`${svc.url}/compte/acces-ia`);

    const res = await fetch(`${svc.url}/compte/deconnexion`, { method: 'POST', redirect: 'manual', headers: { ...FORM, cookie: jar.header() }, body: new URLSearchParams({ csrf }).toString() });
    expect(res.status).to.equal(303);
    expect(res.headers.get('location')).to.equal('/compte/connexion');
    const cleared = res.headers.getSetCookie().find((c) => c.startsWith('compte_session='));
    expect(cleared).to.match(/^compte_session=;/).and.match(/expires=Thu, 01 Jan 1970|max-age=0/i);
    jar.store(res);
    const next = await fetch(`${svc.url}/compte/acces-ia`, { redirect: 'manual', headers: { cookie: jar.header() } });
    expect(next.status).to.equal(303);
    expect(next.headers.get('location')).to.equal('/compte/connexion');
    // The old session cookie, replayed, is closed on the server too.
    const replay = await fetch(`${svc.url}/compte/acces-ia`, { redirect: 'manual', headers: { cookie: oldCookie } });
    expect(replay.status).to.equal(303);
    expect(replay.headers.get('location')).to.equal('/compte/connexion');
  });

  it('the account settings sign-in page is not framable and not cached', async () => {
    const page = await fetch(`${svc.url}/compte/connexion`);
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    expect(page.headers.get('cache-control')).to.equal('no-store');
  });
});
