// Every OAuth refusal answers its exact OAuth error or HTTP code (PKCE, codes, redirect URIs, resource, expiry, revocation, scopes on each address), tokens are stored hashed and outlive the process.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { CookieJar, follow, formFields, obtainToken, pkcePair, registerNativeClient, signInAndConsent } from '../../../scripts/lib/native-flow.js';
import type { OperationEntry, ProfileName, ToolEntry } from '../../../src/contract/types.js';
import { mcpClient } from '../../helpers/mcp.js';
import { freshDatabase, startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };
const MCP_ADDRESSES: { path: string; profile: ProfileName }[] = [
  { path: '/api/mcp', profile: 'full' },
  { path: '/api/mcp/assistant', profile: 'assistant' },
];
const operations = new Map(
  (JSON.parse(readFileSync(new URL('../../../generated/operations.json', import.meta.url), 'utf8')) as { operations: OperationEntry[] }).operations.map((o) => [o.name, o]),
);
const activeTools = (profile: ProfileName) => catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));

const LOOPBACK = 'http://127.0.0.1:53682/callback';

interface Meta {
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint: string;
  revocation_endpoint: string;
}

async function metadata(base: string): Promise<Meta> {
  return (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Meta;
}

function authorizeUrl(meta: Meta, params: Record<string, string | undefined>): string {
  const url = new URL(meta.authorization_endpoint);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.toString();
}

/** The first answer of the authorize endpoint, redirects not followed. */
async function authorizeOnce(url: string): Promise<{ status: number; location: URL | null; text: string }> {
  const res = await fetch(url, { redirect: 'manual' });
  const location = res.headers.get('location');
  return { status: res.status, location: location ? new URL(location, url) : null, text: await res.text() };
}

async function tokenRequest(meta: Meta, params: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(meta.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params).toString(),
  });
  return { status: res.status, json: await res.json() };
}

/** A JSON-RPC request to an MCP address, raw: status, headers and body as sent. */
async function mcpPost(url: string, token: string | null, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

const toolsCall = (name: string) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });

/** The 401 challenge: Bearer first, the address's metadata (path form for a restricted address), its scopes, and `invalid_token` when a token was presented. */
function expectChallenge(headers: Headers, base: string, o: { path?: string; error?: string | null } = {}): void {
  const header = headers.get('www-authenticate') ?? '';
  expect(header).to.match(/^Bearer /);
  expect(header).to.include('realm="MCP"');
  const restricted = o.path && o.path !== '/api/mcp' ? o.path : '';
  expect(header).to.include(`resource_metadata="${base}/.well-known/oauth-protected-resource${restricted}"`);
  expect(header).to.include(o.path === '/api/mcp/connectors' ? 'scope="mcp:read"' : 'scope="mcp:read mcp:write"');
  const bearer = header.slice(0, header.indexOf('DPoP'));
  if (o.error === undefined || o.error === null) expect(bearer).to.not.include('error=');
  else expect(bearer).to.include(`error="${o.error}"`);
}

async function expectUnauthenticatedEverywhere(svc: TestService, token: string): Promise<void> {
  const rest = await svc.rest('me', undefined, { token });
  expect(rest.status, 'REST').to.equal(401);
  expect(rest.json.error.code).to.equal('unauthenticated');
  expectChallenge(rest.headers, svc.url, { error: 'invalid_token' });
  for (const { path } of MCP_ADDRESSES) {
    const mcp = await mcpPost(`${svc.url}${path}`, token, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(mcp.status, path).to.equal(401);
    expect(mcp.json.error.code).to.equal(-32001);
    expectChallenge(mcp.headers, svc.url, { path, error: 'invalid_token' });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A code for `account` through the login and consent forms, with its verifier. */
async function codeFor(meta: Meta, clientId: string, account: TestAccount, resource: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkcePair();
  const url = authorizeUrl(meta, {
    client_id: clientId,
    redirect_uri: LOOPBACK,
    response_type: 'code',
    scope: 'mcp:read',
    state: 'etat',
    resource,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const back = await signInAndConsent(url, LOOPBACK, account);
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`aucun code : ${back.toString()}`);
  return { code, verifier };
}

describe('OAuth refusals', () => {
  let svc: TestService;
  let meta: Meta;
  let resource: string;
  let clientId: string;

  before(async () => {
    svc = await startTestService();
    meta = await metadata(svc.url);
    resource = `${svc.url}/api/mcp`;
    clientId = await registerNativeClient(meta.registration_endpoint, LOOPBACK, 'Tests des refus');
  });
  after(async () => svc.close());

  const baseParams = () => ({ client_id: clientId, redirect_uri: LOOPBACK, response_type: 'code', scope: 'mcp:read', state: 'etat', resource });

  describe('PKCE', () => {
    it('refuses code_challenge_method=plain (invalid_request on the redirect, no code)', async () => {
      const { verifier } = pkcePair();
      const answer = await authorizeOnce(authorizeUrl(meta, { ...baseParams(), code_challenge: verifier, code_challenge_method: 'plain' }));
      expect(answer.status).to.be.within(300, 399);
      expect(answer.location?.toString()).to.match(/^http:\/\/127\.0\.0\.1:53682\/callback\?/);
      expect(answer.location?.searchParams.get('error')).to.equal('invalid_request');
      expect(answer.location?.searchParams.get('error_description')).to.match(/code_challenge_method/);
      expect(answer.location?.searchParams.get('code')).to.equal(null);
    });

    it('refuses an authorization request without code_challenge (PKCE required)', async () => {
      const answer = await authorizeOnce(authorizeUrl(meta, baseParams()));
      expect(answer.location?.searchParams.get('error')).to.equal('invalid_request');
      expect(answer.location?.searchParams.get('error_description')).to.match(/PKCE/);
      expect(answer.location?.searchParams.get('code')).to.equal(null);
    });

    it('refuses a wrong code_verifier at the token endpoint with invalid_grant', async () => {
      const { code } = await codeFor(meta, clientId, svc.account, resource);
      const wrong = pkcePair().verifier;
      const answer = await tokenRequest(meta, { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: wrong });
      expect(answer.status).to.equal(400);
      expect(answer.json.error).to.equal('invalid_grant');
      expect(answer.json.access_token).to.equal(undefined);
    });

    it('burns the code on a wrong code_verifier: the right verifier afterwards is refused too, and no token is issued', async () => {
      const { code, verifier } = await codeFor(meta, clientId, svc.account, resource);
      const params = { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId };
      const wrong = await tokenRequest(meta, { ...params, code_verifier: pkcePair().verifier });
      expect(wrong.json.error).to.equal('invalid_grant');
      const right = await tokenRequest(meta, { ...params, code_verifier: verifier });
      expect(right.status).to.equal(400);
      expect(right.json.error).to.equal('invalid_grant');
      expect(right.json.access_token).to.equal(undefined);
      const sha = createHash('sha256').update(code).digest('hex');
      expect(await svc.db('oauth_store').where({ model: 'AuthorizationCode', id_hash: sha }).first()).to.equal(undefined);
    });

    it('burns the code on a missing code_verifier or another redirect_uri too', async () => {
      for (const broken of [{ code_verifier: undefined }, { redirect_uri: 'http://127.0.0.1:53682/autre' }]) {
        const { code, verifier } = await codeFor(meta, clientId, svc.account, resource);
        const params: Record<string, string | undefined> = { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier, ...broken };
        const first = await tokenRequest(meta, Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<string, string>);
        expect(first.json.error, JSON.stringify(broken)).to.equal('invalid_grant');
        const again = await tokenRequest(meta, { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier });
        expect(again.json.error, JSON.stringify(broken)).to.equal('invalid_grant');
      }
    });
  });

  it('refuses a code used twice with invalid_grant, and revokes what the first use gave', async () => {
    const { code, verifier } = await codeFor(meta, clientId, svc.account, resource);
    const params = { grant_type: 'authorization_code', code, redirect_uri: LOOPBACK, client_id: clientId, code_verifier: verifier };
    const first = await tokenRequest(meta, params);
    expect(first.status).to.equal(200);
    expect((await svc.rest('me', undefined, { token: first.json.access_token })).status).to.equal(200);
    const second = await tokenRequest(meta, params);
    expect(second.status).to.equal(400);
    expect(second.json.error).to.equal('invalid_grant');
    // OAuth 2.1 §4.1.3: the tokens issued from a replayed code should be revoked.
    expect((await svc.rest('me', undefined, { token: first.json.access_token })).status).to.equal(401);
  });

  describe('redirect URIs', () => {
    async function expectRefusedWithoutRedirect(url: string): Promise<void> {
      const answer = await authorizeOnce(url);
      expect(answer.status).to.equal(400);
      expect(answer.location).to.equal(null);
      expect(answer.text).to.include('redirect_uri');
    }

    it('a web client registered with an exact URI: another path is refused without redirecting to it', async () => {
      const registered = await fetch(meta.registration_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Appli web', application_type: 'web', redirect_uris: ['https://appli.exemple.fr/oauth/retour'], token_endpoint_auth_method: 'none' }),
      });
      expect(registered.status).to.equal(201);
      const web = ((await registered.json()) as { client_id: string }).client_id;
      const { challenge } = pkcePair();
      const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
      for (const other of ['https://appli.exemple.fr/oauth/autre', 'https://appli.exemple.fr/oauth/retour/', 'https://appli.exemple.fr/oauth/retour?x=1', 'https://autre.exemple.fr/oauth/retour']) {
        await expectRefusedWithoutRedirect(authorizeUrl(meta, { ...baseParams(), ...pkce, client_id: web, redirect_uri: other }));
      }
      // The exact URI goes on to the login page.
      const exact = await authorizeOnce(authorizeUrl(meta, { ...baseParams(), ...pkce, client_id: web, redirect_uri: 'https://appli.exemple.fr/oauth/retour' }));
      expect(exact.location?.pathname).to.match(/^\/oauth\/interaction\//);
    });

    it('a native client: a loopback redirect on another path is refused without redirecting to it', async () => {
      const { challenge } = pkcePair();
      const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
      await expectRefusedWithoutRedirect(authorizeUrl(meta, { ...baseParams(), ...pkce, redirect_uri: 'http://127.0.0.1:53682/autre' }));
      await expectRefusedWithoutRedirect(authorizeUrl(meta, { ...baseParams(), ...pkce, redirect_uri: 'http://127.0.0.2:53682/callback' }));
    });

    it('a native client registered with http://localhost may come back on another port (RFC 8252, as issue 3 asks)', async () => {
      const registered = 'http://localhost:40001/cb';
      const native = await registerNativeClient(meta.registration_endpoint, registered, 'Client localhost');
      const redirect = 'http://localhost:40777/cb';
      const { verifier, challenge } = pkcePair();
      const back = await signInAndConsent(
        authorizeUrl(meta, { ...baseParams(), client_id: native, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: 'S256' }),
        redirect,
        svc.account,
      );
      const code = back.searchParams.get('code') as string;
      expect(code).to.be.a('string');
      const tokens = await tokenRequest(meta, { grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: native, code_verifier: verifier });
      expect(tokens.status).to.equal(200);
    });
  });

  describe('resource indicator (RFC 8707)', () => {
    it('refuses another resource at the authorization endpoint with invalid_target', async () => {
      const { challenge } = pkcePair();
      for (const other of [`${svc.url}/api/autre`, 'https://ailleurs.exemple.fr/api/mcp', `${svc.url}/api/mcp/v1`]) {
        const answer = await authorizeOnce(authorizeUrl(meta, { ...baseParams(), resource: other, code_challenge: challenge, code_challenge_method: 'S256' }));
        expect(answer.location?.searchParams.get('error'), other).to.equal('invalid_target');
        expect(answer.location?.searchParams.get('code')).to.equal(null);
      }
    });

    it('refuses another resource at the token endpoint with invalid_target', async () => {
      const { code, verifier } = await codeFor(meta, clientId, svc.account, resource);
      const answer = await tokenRequest(meta, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: LOOPBACK,
        client_id: clientId,
        code_verifier: verifier,
        resource: 'https://ailleurs.exemple.fr/api/mcp',
      });
      expect(answer.status).to.equal(400);
      expect(answer.json.error).to.equal('invalid_target');
    });
  });

  describe('tokens refused on the resource side', () => {
    it('a revoked token: 401 on REST and MCP, with the challenge', async () => {
      const flow = await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password, scope: 'mcp:read' });
      expect((await svc.rest('me', undefined, { token: flow.accessToken })).status).to.equal(200);
      const revoked = await fetch(meta.revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: flow.accessToken, client_id: flow.clientId }).toString(),
      });
      expect(revoked.status).to.equal(200);
      await expectUnauthenticatedEverywhere(svc, flow.accessToken);
    });

    it('a garbage token, or a malformed Authorization header: 401 with the challenge', async () => {
      await expectUnauthenticatedEverywhere(svc, randomBytes(32).toString('base64url'));
      await expectUnauthenticatedEverywhere(svc, 'pas-un-jeton');
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${svc.token} en trop`]) {
        const res = await svc.rest('me', undefined, { token: null, init: { headers: { authorization } } });
        expect(res.status, authorization).to.equal(401);
        expectChallenge(res.headers, svc.url, { error: 'invalid_request' });
      }
    });

    it('no token on MCP: HTTP 401, JSON-RPC -32001, with the challenge', async () => {
      for (const { path } of MCP_ADDRESSES) {
        const answer = await mcpPost(`${svc.url}${path}`, null, toolsCall('referentiel_sources'));
        expect(answer.status, path).to.equal(401);
        expect(answer.json.error.code).to.equal(-32001);
        expectChallenge(answer.headers, svc.url, { path, error: null });
      }
    });
  });

  describe('an expired access token', () => {
    let short: TestService;
    before(async () => {
      short = await startTestService({ config: { accessTokenTtlSeconds: 2 } });
    });
    after(async () => short.close());

    it('is refused once its lifetime is over: REST 401 and MCP 401 -32001, both with the challenge', async () => {
      const flow = await obtainToken({ baseUrl: short.url, email: short.account.email, password: short.account.password, scope: 'mcp:read' });
      // Issued at or before now, in whole seconds: expired for certain two seconds from now.
      const received = Date.now();
      expect(flow.expiresIn).to.be.within(1, 2);
      // Valid at first (at least one whole second of its two is left)…
      expect((await short.rest('me', undefined, { token: flow.accessToken })).status).to.equal(200);
      // …then refused after expiry (expiry counts in whole seconds). Counted from the start
      // of the flow instead, the wait could end a second early (seen once in CI).
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, received + 2100 - Date.now())));
      await expectUnauthenticatedEverywhere(short, flow.accessToken);
    });
  });

  describe('default scope and consent', () => {
    it('a client that asks for no scope gets mcp:public (token response and me)', async () => {
      const flow = await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password });
      expect(flow.scope).to.equal('mcp:public');
      const me = await svc.rest('me', undefined, { token: flow.accessToken });
      expect(me.status).to.equal(200);
      expect(me.json).to.deep.equal({ authenticated: true, tier: 'subscribed', scope: 'mcp:public' });
    });

    it('offers no pushed authorization (PAR), so every request meets the default-scope rule', async () => {
      const par = (meta as Meta & { pushed_authorization_request_endpoint?: string }).pushed_authorization_request_endpoint;
      expect(par).to.equal(undefined);
      const pushed = await fetch(`${svc.url}/oauth/par`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, redirect_uri: LOOPBACK, response_type: 'code', state: 'etat', resource }).toString(),
      });
      expect(pushed.status).to.equal(404);
    });

    it('a holder who denies at the consent page sends the client error=access_denied', async () => {
      const { challenge } = pkcePair();
      const back = await signInAndConsent(authorizeUrl(meta, { ...baseParams(), code_challenge: challenge, code_challenge_method: 'S256' }), LOOPBACK, svc.account, 'deny');
      expect(`${back.origin}${back.pathname}`).to.equal(LOOPBACK);
      expect(back.searchParams.get('error')).to.equal('access_denied');
      expect(back.searchParams.get('state')).to.equal('etat');
      expect(back.searchParams.get('code')).to.equal(null);
    });

    it('the consent page lists the requested scopes in French', async () => {
      const { challenge } = pkcePair();
      const jar = new CookieJar();
      const url = authorizeUrl(meta, { ...baseParams(), scope: 'mcp:read mcp:write', code_challenge: challenge, code_challenge_method: 'S256' });
      const login = await follow(url, jar, {}, LOOPBACK);
      const loginHtml = await login.res.text();
      expect(loginHtml).to.include('name="email"').and.include('name="password"');
      const { action, fields } = formFields(loginHtml);
      const form = new URLSearchParams({ ...fields, email: svc.account.email, password: svc.account.password });
      const consent = await follow(
        new URL(action, login.url).toString(),
        jar,
        { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() },
        LOOPBACK,
      );
      expect(consent.res.status).to.equal(200);
      const html = await consent.res.text();
      expect(html).to.include('<html lang="fr">');
      const items = [...html.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1] as string);
      expect(items).to.have.length(2);
      expect(items.find((i) => i.includes('mcp:read'))).to.match(/Lire/);
      expect(items.find((i) => i.includes('mcp:write'))).to.match(/Écrire/);
      expect(html).to.match(/name="decision" value="approve"/).and.match(/name="decision" value="deny"/);
    });
  });

  it('stores tokens hashed: neither the access nor the refresh token appears in any column of oauth_store', async () => {
    const flow = await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password, scope: 'mcp:read mcp:write' });
    expect(flow.refreshToken).to.be.a('string');
    const rows = (await svc.db('oauth_store').select('*')) as Record<string, unknown>[];
    expect(rows.length).to.be.above(0);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        expect(text, column).not.to.include(flow.accessToken);
        expect(text, column).not.to.include(flow.refreshToken as string);
      }
    }
    // The store holds them by their hash.
    const sha = (s: string) => createHash('sha256').update(s).digest('hex');
    expect(rows.some((r) => r.model === 'AccessToken' && r.id_hash === sha(flow.accessToken))).to.equal(true);
    expect(rows.some((r) => r.model === 'RefreshToken' && r.id_hash === sha(flow.refreshToken as string))).to.equal(true);
  });

  describe('storage in the database: restart and several processes', () => {
    it('a token survives a restart of the service on the same address', async () => {
      const database = freshDatabase();
      const port = await freePort();
      try {
        const first = await startTestService({ database, config: { port } });
        const token = first.token;
        try {
          expect((await first.rest('me', undefined, { token })).status).to.equal(200);
        } finally {
          await first.stop();
        }
        const second = await startTestService({ database, config: { port } });
        try {
          expect(second.url).to.equal(first.url);
          const me = await second.rest('me', undefined, { token });
          expect(me.status).to.equal(200);
          expect(me.json.scope).to.equal('mcp:read mcp:write');
        } finally {
          await second.stop();
        }
      } finally {
        await database.cleanup();
      }
    });

    it('a restart on another port changes the issuer and the resource: the old token is refused there (audience)', async () => {
      const database = freshDatabase();
      try {
        const first = await startTestService({ database });
        const token = first.token;
        await first.stop();
        const second = await startTestService({ database });
        try {
          expect(second.url).not.to.equal(first.url);
          const me = await second.rest('me', undefined, { token });
          expect(me.status).to.equal(401);
          expect(me.json.error.message).to.match(/autre ressource/);
        } finally {
          await second.stop();
        }
      } finally {
        await database.cleanup();
      }
    });

    it('two processes on one database behind one public URL both accept a token issued by the first', async () => {
      const database = freshDatabase();
      try {
        const first = await startTestService({ database });
        try {
          // The second process listens elsewhere but is published under the same URL (PUBLIC_URL), as behind a load balancer.
          const second = await startTestService({ database, config: { publicUrl: first.url } });
          try {
            const secondAddress = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}`;
            expect(secondAddress).not.to.equal(first.url);
            const flow = await obtainToken({ baseUrl: first.url, email: first.account.email, password: first.account.password, scope: 'mcp:read' });
            const token = flow.accessToken;
            expect((await first.rest('me', undefined, { token })).status).to.equal(200);
            const onSecond = await fetch(`${secondAddress}/api/mcp/v1/me`, { headers: { authorization: `Bearer ${token}` } });
            expect(onSecond.status).to.equal(200);
            // Revoked through the first, refused by the second on the very next call.
            const revoked = await fetch(`${first.url}/oauth/revoke`, {
              method: 'POST',
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: new URLSearchParams({ token, client_id: flow.clientId }).toString(),
            });
            expect(revoked.status).to.equal(200);
            expect((await fetch(`${secondAddress}/api/mcp/v1/me`, { headers: { authorization: `Bearer ${token}` } })).status).to.equal(401);
          } finally {
            await second.stop();
          }
        } finally {
          await first.stop();
        }
      } finally {
        await database.cleanup();
      }
    });

    it('two processes on one database, each on its own address: the second refuses the first one’s token (another audience)', async () => {
      const database = freshDatabase();
      try {
        const first = await startTestService({ database });
        const second = await startTestService({ database });
        try {
          expect((await first.rest('me', undefined, { token: first.token })).status).to.equal(200);
          const me = await second.rest('me', undefined, { token: first.token });
          expect(me.status).to.equal(401);
          expect(me.json.error.code).to.equal('unauthenticated');
        } finally {
          await Promise.all([first.stop(), second.stop()]);
        }
      } finally {
        await database.cleanup();
      }
    });
  });

  describe('scopes on each address', () => {
    let writeOnly: string;
    let readOnly: string;
    let legacy: string;
    before(async () => {
      const account = svc.account;
      [writeOnly, readOnly, legacy] = await Promise.all([svc.tokenFor(account, 'mcp:write'), svc.tokenFor(account, 'mcp:read'), svc.tokenFor(account, '')]);
    });

    it('REST: a read without mcp:read is 403 insufficient_scope naming mcp:read, with the challenge', async () => {
      const answer = await svc.rest('referentiels.sources', {}, { token: writeOnly });
      expect(answer.status).to.equal(403);
      expect(answer.json.error.code).to.equal('insufficient_scope');
      expect(answer.json.error.message).to.include('mcp:read');
      const header = answer.headers.get('www-authenticate') ?? '';
      expect(header).to.include('error="insufficient_scope"');
      expect(header).to.include('scope="mcp:read"');
      expect(header).to.include(`resource_metadata="${svc.url}/.well-known/oauth-protected-resource"`);
    });

    for (const { path } of MCP_ADDRESSES) {
      it(`MCP ${path}: tools/call of a read tool without mcp:read is HTTP 403, JSON-RPC -32003 naming mcp:read, with the challenge`, async () => {
        const answer = await mcpPost(`${svc.url}${path}`, writeOnly, toolsCall('referentiel_sources'));
        expect(answer.status).to.equal(403);
        expect(answer.json.error.code).to.equal(-32003);
        expect(answer.json.error.message).to.include('mcp:read');
        const header = answer.headers.get('www-authenticate') ?? '';
        expect(header).to.include('error="insufficient_scope"');
        expect(header).to.include('scope="mcp:read"');
        expect(header).to.include(`resource_metadata="${svc.url}/.well-known/oauth-protected-resource${path === '/api/mcp' ? '' : path}"`);
      });
    }

    for (const { path, profile } of MCP_ADDRESSES) {
      it(`MCP ${path}: tools/list shows only what the scopes open (mcp:write: no read tool; mcp:read: every tool with a read; mcp:public: all but the event-subscription mutations)`, async () => {
        const expected = activeTools(profile);
        const readTools = expected.filter((t) => t.effect === 'read').map((t) => t.name);
        expect(readTools).to.not.be.empty;
        const names = async (token: string) => {
          const client = await mcpClient(`${svc.url}${path}`, token);
          try {
            return (await client.listTools()).tools.map((t) => t.name).sort();
          } finally {
            await client.close();
          }
        };
        const opens = (t: ToolEntry, open: (op: OperationEntry) => boolean) => t.operations.some((n) => open(operations.get(n) as OperationEntry));
        const withRead = expected.filter((t) => opens(t, (op) => op.effect === 'read')).map((t) => t.name).sort();
        const forLegacy = expected.filter((t) => opens(t, (op) => !op.explicitWriteScope)).map((t) => t.name).sort();
        // Tools that only write, and only what mcp:public may not open: the three event-subscription mutations.
        expect(expected.map((t) => t.name).filter((n) => !forLegacy.includes(n)).sort()).to.deep.equal(['evenements_abonnement_creer', 'evenements_abonnement_supprimer', 'evenements_acquitter']);
        expect(await names(writeOnly)).to.not.include.any.members(readTools);
        expect(await names(readOnly)).to.deep.equal(withRead);
        expect(await names(legacy)).to.deep.equal(forLegacy);
      });
    }

    it('mcp:public can call REST reads', async () => {
      const me = await svc.rest('me', undefined, { token: legacy });
      expect(me.json.scope).to.equal('mcp:public');
      const answer = await svc.rest('referentiels.sources', {}, { token: legacy });
      expect(answer.status).to.equal(200);
    });
  });
});
