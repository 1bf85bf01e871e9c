// The authorize pages (login, consent) and the "Accès IA" settings work in a real browser: they render, the forms lead where they should, a disconnection revokes at once.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { discover, pkcePair, registerNativeClient } from '../../../scripts/lib/native-flow.js';
import { SCOPE_LABELS } from '../../../src/auth/pages.js';
import { WRONG_CREDENTIALS } from '../../../src/auth/sign-in.js';
import { closeBrowser, colourStats, decodePng, expectRendered, launchBrowser } from '../../helpers/browser.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

/** A loopback redirect target (RFC 8252) that records every query it receives. */
interface Loopback {
  server: Server;
  redirectUri: string;
  received: URLSearchParams[];
}

async function startLoopback(): Promise<Loopback> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      // The browser's own requests (favicon…) are not redirects.
      res.writeHead(404).end();
      return;
    }
    received.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><title>Retour</title><p>Vous pouvez fermer cette fenêtre.</p>');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return { server, redirectUri: `http://127.0.0.1:${port}/callback`, received };
}

interface Authorization {
  url: string;
  state: string;
  verifier: string;
}

function authorizationUrl(meta: Record<string, string>, svc: TestService, clientId: string, redirectUri: string, scope: string): Authorization {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(16).toString('base64url');
  const url = new URL(meta.authorization_endpoint as string);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope,
    resource: `${svc.url}/api/mcp`,
  }).toString();
  return { url: url.toString(), state, verifier };
}

async function me(svc: TestService, token: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${svc.url}/api/mcp/v1/me`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: await res.json() };
}

describe('Authorization and account pages in Chromium', function () {
  this.timeout(30000);

  let svc: TestService;
  let browser: Browser;
  let loopback: Loopback;
  let meta: Record<string, string>;
  let clientId: string;
  let holder: TestAccount;
  /** The browser of the holder who approved (keeps its authorization-server session). */
  let approvedContext: BrowserContext | undefined;
  const CLIENT_NAME = 'Assistant du navigateur';

  before(async () => {
    svc = await startTestService();
    browser = await launchBrowser();
    loopback = await startLoopback();
    meta = await discover(svc.url);
    clientId = await registerNativeClient(meta.registration_endpoint as string, loopback.redirectUri, CLIENT_NAME);
    holder = await svc.createAccount();
  });
  after(async () => {
    await closeBrowser(browser);
    await new Promise((resolve) => loopback?.server.close(resolve));
    await svc?.close();
  });

  /** Waits for the browser to land on the loopback redirect and returns its query. */
  async function redirected(page: Page): Promise<URLSearchParams> {
    await page.waitForURL((u) => u.toString().startsWith(loopback.redirectUri));
    const query = loopback.received.at(-1);
    expect(query, 'requête reçue par le serveur de retour').to.not.equal(undefined);
    return query as URLSearchParams;
  }

  it('the screenshot check fails on a blank page', async () => {
    const page = await browser.newPage();
    try {
      await page.goto('about:blank');
      const blank = colourStats(decodePng(await page.screenshot({ fullPage: true })));
      expect(blank.distinctColours).to.equal(1);
      expect(blank.dominantShare).to.equal(1);
      let failure: unknown;
      await expectRendered(page, 'blank').catch((err: unknown) => (failure = err));
      expect(failure, 'une page blanche doit échouer au contrôle de rendu').to.be.instanceOf(Error);
    } finally {
      await page.close();
    }
  });

  it('login page, wrong password error, consent in French, approve: code, token, /me', async () => {
    const auth = authorizationUrl(meta, svc, clientId, loopback.redirectUri, 'mcp:read mcp:write');
    approvedContext = await browser.newContext({ locale: 'fr-FR' });
    const page = await approvedContext.newPage();
    await page.goto(auth.url);

    // Login page.
    expect(new URL(page.url()).pathname).to.match(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    expect(await page.locator('h1').textContent()).to.equal('Connexion');
    expect(await page.locator('main').textContent()).to.contain(`${CLIENT_NAME} demande l’accès à votre compte.`);
    const email = page.locator('input[name="email"]');
    const password = page.locator('input[name="password"]');
    const submit = page.getByRole('button', { name: 'Se connecter' });
    await expectRendered(page, 'oauth-login', [email, password, submit, page.getByText('Adresse électronique'), page.getByText('Mot de passe', { exact: true })]);
    expect(await page.locator('input[name="csrf"]').getAttribute('type')).to.equal('hidden');
    expect(await page.locator('input[name="csrf"]').inputValue()).to.have.length.greaterThan(20);

    // Wrong password: an error on the page that names neither field as the wrong one.
    await email.fill(holder.email);
    await password.fill(`${holder.password}-faux`);
    await Promise.all([page.waitForLoadState('load'), submit.click()]);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.isVisible()).to.equal(true);
    const message = ((await alert.textContent()) ?? '').trim();
    expect(message).to.equal(WRONG_CREDENTIALS);
    expect(message).to.match(/adresse électronique ou mot de passe/i);
    expect(message).to.not.match(/inconnu|introuvable|n’existe|n'existe|mot de passe (est )?(faux|erroné)|compte/i);
    expect(await email.inputValue(), 'l’adresse saisie est conservée').to.equal(holder.email);
    expect(await password.inputValue(), 'le mot de passe n’est jamais renvoyé').to.equal('');
    expect(loopback.received).to.have.length(0);
    await expectRendered(page, 'oauth-login-error', [alert, email, password, submit]);

    // Right credentials: the consent page lists the requested scopes in French.
    await password.fill(holder.password);
    await submit.click();
    await page.locator('h1', { hasText: 'Autoriser l’accès' }).waitFor();
    const approve = page.locator('button[name="decision"][value="approve"]');
    const deny = page.locator('button[name="decision"][value="deny"]');
    expect((await approve.textContent())?.trim()).to.equal('Autoriser');
    expect((await deny.textContent())?.trim()).to.equal('Refuser');
    const items = (await page.locator('ul.scopes li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(items).to.deep.equal([`mcp:read : ${SCOPE_LABELS['mcp:read']}`, `mcp:write : ${SCOPE_LABELS['mcp:write']}`]);
    expect(await page.locator('main').textContent()).to.contain(`${CLIENT_NAME} demande les autorisations suivantes`);
    await expectRendered(page, 'oauth-consent', [page.locator('ul.scopes'), approve, deny]);

    // Approve: back to the loopback with a code and our state.
    await approve.click();
    const query = await redirected(page);
    expect(query.get('error')).to.equal(null);
    expect(query.get('state')).to.equal(auth.state);
    const code = query.get('code');
    expect(code).to.be.a('string').and.have.length.greaterThan(10);
    expect(query.get('iss')).to.equal(svc.url);

    const res = await fetch(meta.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: code as string, redirect_uri: loopback.redirectUri, client_id: clientId, code_verifier: auth.verifier }).toString(),
    });
    const body = (await res.json()) as { access_token?: string; token_type?: string; scope?: string };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect(body.token_type).to.match(/^bearer$/i);
    expect(body.scope?.split(' ').sort()).to.deep.equal(['mcp:read', 'mcp:write']);
    const answer = await me(svc, body.access_token as string);
    expect(answer.status).to.equal(200);
    expect(answer.json.authenticated).to.equal(true);
    expect(String(answer.json.scope).split(' ').sort()).to.deep.equal(['mcp:read', 'mcp:write']);
  });

  it('"Refuser" at the consent page ends at the redirect with error=access_denied', async () => {
    const auth = authorizationUrl(meta, svc, clientId, loopback.redirectUri, 'mcp:read');
    const context = await browser.newContext({ locale: 'fr-FR' });
    try {
      const page = await context.newPage();
      await page.goto(auth.url);
      await page.locator('input[name="email"]').fill(holder.email);
      await page.locator('input[name="password"]').fill(holder.password);
      await page.getByRole('button', { name: 'Se connecter' }).click();
      const deny = page.locator('button[name="decision"][value="deny"]');
      await deny.waitFor();
      expect((await page.locator('ul.scopes li').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim())).to.deep.equal([`mcp:read : ${SCOPE_LABELS['mcp:read']}`]);
      const before = loopback.received.length;
      await deny.click();
      const query = await redirected(page);
      expect(loopback.received).to.have.length(before + 1);
      expect(query.get('error')).to.equal('access_denied');
      expect(query.get('state')).to.equal(auth.state);
      expect(query.get('code')).to.equal(null);
    } finally {
      await context.close();
    }
  });

  it('after a disconnection, the same browser must consent again and the new code works', async () => {
    // The holder disconnects the access approved above, from the same browser.
    expect(approvedContext, 'le cas « approuver » doit avoir tourné').to.not.equal(undefined);
    const page = await (approvedContext as BrowserContext).newPage();
    await page.goto(`${svc.url}/compte/acces-ia`);
    await page.locator('input[name="email"]').fill(holder.email);
    await page.locator('input[name="password"]').fill(holder.password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    const row = page.locator('tbody tr').filter({ has: page.locator('td:first-child strong', { hasText: CLIENT_NAME }) });
    await row.waitFor();
    await row.getByRole('button', { name: 'Déconnecter' }).click();
    await page.getByRole('status').waitFor();
    expect(await row.count()).to.equal(0);

    // Authorizing again: the authorization-server session skips the login, but consent is asked again.
    const auth = authorizationUrl(meta, svc, clientId, loopback.redirectUri, 'mcp:read');
    await page.goto(auth.url);
    const approve = page.locator('button[name="decision"][value="approve"]');
    await approve.waitFor();
    await approve.click();
    const query = await redirected(page);
    expect(query.get('state')).to.equal(auth.state);
    const res = await fetch(meta.token_endpoint as string, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: query.get('code') ?? '', redirect_uri: loopback.redirectUri, client_id: clientId, code_verifier: auth.verifier }).toString(),
    });
    const body = (await res.json()) as { access_token?: string };
    expect(res.status, JSON.stringify(body)).to.equal(200);
    expect((await me(svc, body.access_token as string)).status).to.equal(200);
    await approvedContext?.close();
  });

  it('"Accès IA": sign-in required, the table lists the access, "Déconnecter" revokes its token at once', async () => {
    // A use of the default token, so "Dernière utilisation" has a date.
    expect((await me(svc, svc.token)).status).to.equal(200);
    const context = await browser.newContext({ locale: 'fr-FR' });
    try {
      const page = await context.newPage();
      await page.goto(`${svc.url}/compte/acces-ia`);
      expect(new URL(page.url()).pathname).to.equal('/compte/connexion');
      const email = page.locator('input[name="email"]');
      const password = page.locator('input[name="password"]');
      const submit = page.getByRole('button', { name: 'Se connecter' });
      await expectRendered(page, 'compte-connexion', [page.locator('h1', { hasText: 'Connexion au compte' }), email, password, submit]);
      await email.fill(svc.account.email);
      await password.fill(svc.account.password);
      await submit.click();
      await page.locator('h1', { hasText: 'Accès IA' }).waitFor();
      expect(new URL(page.url()).pathname).to.equal('/compte/acces-ia');

      expect((await page.locator('thead th').allTextContents()).map((t) => t.trim())).to.deep.equal(['Application', 'Portées', 'Accordé le', 'Dernière utilisation', '']);
      const rows = page.locator('tbody tr');
      expect(await rows.count(), 'un seul accès : celui du jeton par défaut').to.equal(1);
      const row = rows.filter({ has: page.locator('td:first-child strong', { hasText: /^Tests$/ }) });
      expect(await row.count()).to.equal(1);
      const cells = row.locator('td');
      expect((await cells.nth(1).locator('span').allTextContents()).sort()).to.deep.equal(['mcp:read', 'mcp:write']);
      expect(await cells.nth(1).locator('span').first().getAttribute('title')).to.equal(SCOPE_LABELS['mcp:read']);
      const frenchDate = /^\d{1,2}(er)? (janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre) \d{4} à \d{2}:\d{2}$/;
      expect((await cells.nth(2).textContent())?.trim()).to.match(frenchDate);
      expect((await cells.nth(3).textContent())?.trim()).to.match(frenchDate);
      const disconnect = row.getByRole('button', { name: 'Déconnecter' });
      await expectRendered(page, 'compte-acces-ia', [page.locator('table'), row, disconnect, page.getByRole('button', { name: 'Se déconnecter' })]);

      await disconnect.click();
      const status = page.getByRole('status');
      await status.waitFor();
      expect((await status.textContent())?.trim()).to.equal('Accès déconnecté : ses jetons sont révoqués.');
      expect(await page.locator('tbody tr').count()).to.equal(0);
      expect(await page.getByText('Aucun accès accordé.').isVisible()).to.equal(true);
      await expectRendered(page, 'compte-acces-ia-deconnecte', [status]);

      const after = await me(svc, svc.token);
      expect(after.status).to.equal(401);
      expect(after.json.error.code).to.equal('unauthenticated');
    } finally {
      await context.close();
    }
  });
});
