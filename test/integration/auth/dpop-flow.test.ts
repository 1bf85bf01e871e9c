// A client using DPoP (oauth4webapi) gets DPoP-bound tokens and calls REST and MCP with proofs; the same token sent as a Bearer token, without proof, with a replayed proof (also to another process) or refreshed without proof is refused, with the RFC 9449 challenge; both metadata documents announce the same proof algorithms.
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { AddressInfo } from 'node:net';
import { signInAndConsent } from '../../../scripts/lib/native-flow.js';
import { freshDatabase, startTestService, type TestService } from '../../helpers/service.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const redirectUri = 'http://127.0.0.1:47311/cb';
const ALGS = ['ES256', 'Ed25519', 'EdDSA'];

/** The challenges of a WWW-Authenticate header, by scheme (lower case), with their quoted parameters. */
function challenges(header: string | null): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const m of (header ?? '').matchAll(/(?:^|,\s*)(?:([A-Za-z]+) +)?([a-z_]+)="([^"]*)"/gi)) {
    if (m[1]) out[m[1].toLowerCase()] = current = {};
    if (current) current[(m[2] as string).toLowerCase()] = m[3] as string;
  }
  return out;
}

describe('DPoP-bound tokens (RFC 9449) on REST and MCP', () => {
  const database = freshDatabase();
  let svc: TestService;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let dpop: oauth.DPoPHandle;
  let tokens: oauth.TokenEndpointResponse;
  let meUrl: URL;
  let resource: string;

  before(async () => {
    await database.prepare();
    svc = await startTestService({ database });
    meUrl = new URL(`${svc.url}/api/mcp/v1/me`);
    resource = `${svc.url}/api/mcp`;
    const issuer = new URL(svc.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const registered = await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(
        as,
        { client_name: 'Client DPoP', application_type: 'native', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
        insecure,
      ),
    );
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
    dpop = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const verifier = oauth.generateRandomCodeVerifier();
    const authorize = new URL(as.authorization_endpoint as string);
    authorize.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'mcp:read mcp:write',
      state: 'etat',
      resource,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const back = await signInAndConsent(authorize.toString(), redirectUri, svc.account);
    const params = oauth.validateAuthResponse(as, client, back, 'etat');
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, { DPoP: dpop, ...insecure, additionalParameters: { resource } });
    tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
  });
  after(async () => {
    await svc.close();
    await database.cleanup();
  });

  /** A request signed by the client's DPoP handle; `sent` receives the headers it went with. */
  function withProof(method: string, url: URL, o: { headers?: Record<string, string>; body?: string; token?: string; sent?: (h: Headers) => void } = {}): Promise<Response> {
    return oauth.protectedResourceRequest(o.token ?? tokens.access_token, method, url, new Headers(o.headers), o.body, {
      DPoP: dpop,
      ...insecure,
      [oauth.customFetch]: (input, init) => {
        o.sent?.(new Headers(init.headers));
        return fetch(input, init as RequestInit);
      },
    });
  }

  const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  it('announces the same proof algorithms in the authorization server and resource metadata', async () => {
    expect(as.dpop_signing_alg_values_supported).to.deep.equal(ALGS);
    const rs = (await (await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, unknown>;
    expect(rs.dpop_signing_alg_values_supported).to.deep.equal(ALGS);
    expect(rs.dpop_bound_access_tokens_required).to.equal(false);
  });

  it('issues a DPoP-bound token (token_type DPoP) that REST and MCP accept with a proof', async () => {
    expect(tokens.token_type).to.equal('dpop');
    const me = await withProof('GET', meUrl);
    expect(me.status).to.equal(200);
    expect(await me.json()).to.deep.equal({ authenticated: true, tier: 'subscribed', scope: 'mcp:read mcp:write' });
    for (const path of ['/api/mcp', '/api/mcp/assistant']) {
      const listed = await withProof('POST', new URL(`${svc.url}${path}`), { headers: mcpHeaders, body: mcpBody });
      expect(listed.status, path).to.equal(200);
      expect(((await listed.json()) as { result: { tools: unknown[] } }).result.tools).to.not.be.empty;
    }
  });

  it('refuses the bound token sent as a Bearer token: REST 401 unauthenticated and MCP 401 -32001, DPoP challenge error="invalid_token"', async () => {
    const rest = await svc.rest('me', undefined, { token: tokens.access_token });
    expect(rest.status).to.equal(401);
    expect(rest.json.error.code).to.equal('unauthenticated');
    const restChallenges = challenges(rest.headers.get('www-authenticate'));
    expect(restChallenges.dpop).to.include({ error: 'invalid_token', algs: ALGS.join(' ') });
    expect(restChallenges.bearer?.resource_metadata).to.equal(`${svc.url}/.well-known/oauth-protected-resource`);
    const mcp = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers: { ...mcpHeaders, authorization: `Bearer ${tokens.access_token}` }, body: mcpBody });
    expect(mcp.status).to.equal(401);
    expect(((await mcp.json()) as { error: { code: number } }).error.code).to.equal(-32001);
    expect(challenges(mcp.headers.get('www-authenticate')).dpop).to.include({ error: 'invalid_token' });
    // As a strict client parses it.
    const parsed = await oauth.protectedResourceRequest(tokens.access_token, 'GET', meUrl, undefined, undefined, insecure).then(
      () => expect.fail('401 attendu'),
      (err: unknown) => err as oauth.WWWAuthenticateChallengeError,
    );
    expect(parsed).to.be.instanceOf(oauth.WWWAuthenticateChallengeError);
    expect(parsed.cause.map((c) => c.scheme)).to.deep.equal(['bearer', 'dpop']);
    expect(parsed.cause[1]?.parameters).to.include({ error: 'invalid_token', algs: ALGS.join(' '), realm: 'MCP' });
  });

  it('refuses the DPoP scheme without a proof, and a replayed proof, with error="invalid_dpop_proof"', async () => {
    const bare = await fetch(meUrl, { headers: { authorization: `DPoP ${tokens.access_token}` } });
    expect(bare.status).to.equal(401);
    expect(challenges(bare.headers.get('www-authenticate')).dpop).to.include({ error: 'invalid_dpop_proof', algs: ALGS.join(' ') });

    let sent: Headers | undefined;
    expect((await withProof('GET', meUrl, { sent: (h) => (sent = h) })).status).to.equal(200);
    const replay = await fetch(meUrl, { headers: { authorization: sent?.get('authorization') as string, dpop: sent?.get('dpop') as string } });
    expect(replay.status).to.equal(401);
    expect(((await replay.json()) as { error: { code: string } }).error.code).to.equal('unauthenticated');
    expect(challenges(replay.headers.get('www-authenticate')).dpop).to.include({ error: 'invalid_dpop_proof' });
  });

  it('refuses a proof made for another address (htu)', async () => {
    let sent: Headers | undefined;
    await withProof('GET', new URL(`${svc.url}/api/mcp/v1/quotas.get`), { sent: (h) => (sent = h) }).catch(() => undefined);
    const moved = await fetch(meUrl, { headers: { authorization: sent?.get('authorization') as string, dpop: sent?.get('dpop') as string } });
    expect(moved.status).to.equal(401);
    expect(challenges(moved.headers.get('www-authenticate')).dpop).to.include({ error: 'invalid_dpop_proof' });
  });

  it('a proof accepted by one process is refused by another on the same database (replay across processes)', async () => {
    const second = await startTestService({ database, config: { publicUrl: svc.url } });
    try {
      const secondMe = `http://127.0.0.1:${(second.server.address() as AddressInfo).port}/api/mcp/v1/me`;
      let sent: Headers | undefined;
      expect((await withProof('GET', meUrl, { sent: (h) => (sent = h) })).status).to.equal(200);
      const replay = await fetch(secondMe, { headers: { authorization: sent?.get('authorization') as string, dpop: sent?.get('dpop') as string } });
      expect(replay.status).to.equal(401);
      expect(challenges(replay.headers.get('www-authenticate')).dpop).to.include({ error: 'invalid_dpop_proof' });
    } finally {
      await second.stop();
    }
  });

  it('refreshes only with a proof of the same key; the new access token is bound too', async () => {
    const withoutProof = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, { ...insecure, additionalParameters: { resource } });
    expect(withoutProof.status).to.equal(400);
    const otherKey = oauth.DPoP(client, await oauth.generateKeyPair('ES256'));
    const wrongKey = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, { DPoP: otherKey, ...insecure, additionalParameters: { resource } });
    expect(wrongKey.status).to.equal(400);
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token as string, { DPoP: dpop, ...insecure, additionalParameters: { resource } }),
    );
    expect(refreshed.token_type).to.equal('dpop');
    expect((await withProof('GET', meUrl, { token: refreshed.access_token })).status).to.equal(200);
    expect((await svc.rest('me', undefined, { token: refreshed.access_token })).status).to.equal(401);
  });
});
