// A certified OAuth client (oauth4webapi) gets through the whole flow with no help: 401 challenge, RFC 9728 then RFC 8414 discovery, registration, PKCE S256, consent, code exchange, rotated refresh, revocation effective on the next call.
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { signInAndConsent } from '../../../scripts/lib/native-flow.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** The error a rejected promise carries (fails the test when it resolves). */
async function rejection<T extends Error>(promise: Promise<unknown>, type: abstract new (...args: never[]) => T): Promise<T> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(type);
    return err as T;
  }
  expect.fail(`${type.name} attendue`);
}

/** The auth-params of a single `Bearer` challenge (quoted values). */
function challengeParameters(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of header.replace(/^Bearer\s+/i, '').matchAll(/([a-z_]+)="([^"]*)"/gi)) out[(m[1] as string).toLowerCase()] = m[2] as string;
  return out;
}

// The steps run in order and share what the client learnt (metadata, client, tokens).
describe('OAuth 2.1 flow driven by oauth4webapi', () => {
  let svc: TestService;
  let meUrl: URL;
  let resource: string;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  const clientAuth = oauth.None();
  const registeredRedirect = 'http://127.0.0.1:45123/cb';
  /** Another loopback port than the registered one (RFC 8252 §7.3). */
  const redirectUri = 'http://127.0.0.1:51789/cb';
  let tokens: oauth.TokenEndpointResponse;

  before(async () => {
    svc = await startTestService();
    meUrl = new URL(`${svc.url}/api/mcp/v1/me`);
    resource = `${svc.url}/api/mcp`;
  });
  after(async () => svc.close());

  /** Authorization request (PKCE S256, state, resource, scopes), login and consent forms, then the code exchange. */
  async function authorizeAndExchange(scope: string): Promise<oauth.TokenEndpointResponse> {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorize = new URL(as.authorization_endpoint as string);
    authorize.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope,
      state,
      resource,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const back = await signInAndConsent(authorize.toString(), redirectUri, svc.account);
    expect(`${back.origin}${back.pathname}`).to.equal(redirectUri);
    const params = oauth.validateAuthResponse(as, client, back, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, { ...insecure, additionalParameters: { resource } });
    return oauth.processAuthorizationCodeResponse(as, client, response);
  }

  function refresh(refreshToken: string): Promise<oauth.TokenEndpointResponse> {
    return oauth
      .refreshTokenGrantRequest(as, client, clientAuth, refreshToken, { ...insecure, additionalParameters: { resource } })
      .then((response) => oauth.processRefreshTokenResponse(as, client, response));
  }

  async function meStatus(token: string): Promise<number> {
    return (await svc.rest('me', undefined, { token })).status;
  }

  it('answers a call without token with 401 and the Bearer challenge naming the RFC 9728 metadata', async () => {
    const anonymous = await fetch(meUrl);
    expect(anonymous.status).to.equal(401);
    const header = anonymous.headers.get('www-authenticate') ?? '';
    expect(header).to.match(/^Bearer /);
    const params = challengeParameters(header);
    expect(params.realm).to.equal('MCP');
    expect(params.resource_metadata).to.equal(`${svc.url}/.well-known/oauth-protected-resource`);
    // A client holding a bad token finds the same challenge, as the library parses it.
    const challengeError = await rejection(oauth.protectedResourceRequest('inconnu', 'GET', meUrl, undefined, undefined, insecure), oauth.WWWAuthenticateChallengeError);
    expect(challengeError.status).to.equal(401);
    // Bearer first (what MCP clients read), then DPoP with its algorithms (RFC 9449 §7.1).
    expect(challengeError.cause.map((c) => c.scheme)).to.deep.equal(['bearer', 'dpop']);
    expect(challengeError.cause[0]?.parameters.realm).to.equal('MCP');
    expect(challengeError.cause[0]?.parameters.resource_metadata).to.equal(params.resource_metadata);
    expect(challengeError.cause[1]?.parameters.algs).to.equal('ES256 Ed25519 EdDSA');
    expect(challengeError.cause[1]?.parameters.error).to.equal(undefined);
  });

  it('discovers the resource (RFC 9728, both address forms) then its authorization server (RFC 8414)', async () => {
    const anonymous = await fetch(meUrl);
    const metadataUrl = challengeParameters(anonymous.headers.get('www-authenticate') ?? '').resource_metadata as string;
    const rs = await oauth.processResourceDiscoveryResponse(new URL(resource), await fetch(metadataUrl));
    expect(rs.resource).to.equal(resource);
    expect(rs.authorization_servers).to.deep.equal([svc.url]);
    const pathForm = await oauth.resourceDiscoveryRequest(new URL(resource), insecure);
    expect(new URL(pathForm.url).pathname).to.equal('/.well-known/oauth-protected-resource/api/mcp');
    expect(await oauth.processResourceDiscoveryResponse(new URL(resource), pathForm)).to.deep.equal(rs);

    const issuer = new URL((rs.authorization_servers as string[])[0] as string);
    const discovery = await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure });
    expect(new URL(discovery.url).pathname).to.equal('/.well-known/oauth-authorization-server');
    as = await oauth.processDiscoveryResponse(issuer, discovery);
    expect(as.code_challenge_methods_supported).to.deep.equal(['S256']);
    expect(as.authorization_endpoint).to.equal(`${svc.url}/oauth/authorize`);
    expect(as.token_endpoint).to.equal(`${svc.url}/oauth/token`);
    expect(as.registration_endpoint).to.equal(`${svc.url}/oauth/register`);
    expect(as.revocation_endpoint).to.equal(`${svc.url}/oauth/revoke`);
  });

  it('announces the service scopes in the authorization server metadata, as in the resource metadata', async () => {
    const issuer = new URL(svc.url);
    const metadata = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    // oidc-provider always adds `openid`; nothing else besides the service's scopes.
    expect([...(metadata.scopes_supported ?? [])].filter((s) => s !== 'openid').sort()).to.deep.equal(['mcp:public', 'mcp:read', 'mcp:write']);
  });

  it('registers a native client without secret (RFC 7591)', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      {
        client_name: 'Client oauth4webapi',
        application_type: 'native',
        redirect_uris: [registeredRedirect],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
      },
      insecure,
    );
    expect(response.status).to.equal(201);
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.client_id).to.be.a('string').and.not.equal('');
    expect(registered.client_secret).to.equal(undefined);
    expect(registered.redirect_uris).to.deep.equal([registeredRedirect]);
    client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
  });

  it('authorizes with PKCE S256 on another loopback port, exchanges the code, and the token reaches `me` without personal data', async () => {
    tokens = await authorizeAndExchange('mcp:read mcp:write');
    expect(tokens.token_type).to.equal('bearer');
    expect(tokens.scope).to.equal('mcp:read mcp:write');
    expect(tokens.expires_in).to.be.a('number').above(0);
    expect(tokens.refresh_token).to.be.a('string').and.not.equal('');

    const me = await oauth.protectedResourceRequest(tokens.access_token, 'GET', meUrl, undefined, undefined, insecure);
    expect(me.status).to.equal(200);
    const body = (await me.json()) as Record<string, unknown>;
    expect(body).to.deep.equal({ authenticated: true, tier: 'subscribed', scope: 'mcp:read mcp:write' });
    const text = JSON.stringify(body);
    for (const personal of [svc.account.email, svc.account.userId, String(svc.account.organisationId)]) expect(text).not.to.include(personal);
  });

  it('rotates the refresh token: new access and refresh tokens, the old refresh token refused (and its replay ends the family)', async () => {
    const oldRefresh = tokens.refresh_token as string;
    const refreshed = await refresh(oldRefresh);
    expect(refreshed.access_token).to.be.a('string').and.not.equal(tokens.access_token);
    expect(refreshed.refresh_token).to.be.a('string').and.not.equal(oldRefresh);
    expect(refreshed.scope).to.equal('mcp:read mcp:write');
    expect(await meStatus(refreshed.access_token)).to.equal(200);

    const reuse = await rejection(refresh(oldRefresh), oauth.ResponseBodyError);
    expect(reuse.status).to.equal(400);
    expect(reuse.error).to.equal('invalid_grant');
    // oidc-provider treats a replayed rotated refresh token as a theft (OAuth 2.1 §4.3.1): the whole grant is revoked.
    expect(await meStatus(refreshed.access_token)).to.equal(401);
    expect((await rejection(refresh(refreshed.refresh_token as string), oauth.ResponseBodyError)).error).to.equal('invalid_grant');
  });

  it('revokes an access token (RFC 7009): the very next call is 401 with the challenge', async () => {
    tokens = await authorizeAndExchange('mcp:read mcp:write');
    expect(await meStatus(tokens.access_token)).to.equal(200);
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.access_token, { ...insecure, additionalParameters: { token_type_hint: 'access_token' } });
    expect(response.status).to.equal(200);
    await oauth.processRevocationResponse(response);
    const after = await svc.rest('me', undefined, { token: tokens.access_token });
    expect(after.status).to.equal(401);
    expect(after.json.error.code).to.equal('unauthenticated');
    expect(challengeParameters(after.headers.get('www-authenticate') ?? '').resource_metadata).to.equal(`${svc.url}/.well-known/oauth-protected-resource`);
    // Revoking the refresh token too (a no-op if the server already dropped it with the grant): it gives no more tokens.
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token as string, { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } }),
    );
    expect((await rejection(refresh(tokens.refresh_token as string), oauth.ResponseBodyError)).error).to.equal('invalid_grant');
  });

  it('revokes a refresh token on its own: it is refused at the token endpoint', async () => {
    tokens = await authorizeAndExchange('mcp:read');
    const response = await oauth.revocationRequest(as, client, clientAuth, tokens.refresh_token as string, { ...insecure, additionalParameters: { token_type_hint: 'refresh_token' } });
    await oauth.processRevocationResponse(response);
    const refused = await rejection(refresh(tokens.refresh_token as string), oauth.ResponseBodyError);
    expect(refused.status).to.equal(400);
    expect(refused.error).to.equal('invalid_grant');
  });
});
