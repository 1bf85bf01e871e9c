// A client whose client_id is an https URL is described by the document served there (Client ID Metadata Documents): advertised, fetched once per cache lifetime, its redirect_uris enforced, refused when its client_id differs, when too large, redirected or asking a shared secret, and never fetched from a private or loopback address outside tests; a strict client (oauth4webapi) completes the flow.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { CookieJar, follow, signInAndConsent } from '../../../scripts/lib/native-flow.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = 'http://127.0.0.1:47413/cb';

describe('client metadata documents (https client_id)', function () {
  this.timeout(60_000);
  let site: TestHttpsServer;
  let svc: TestService;
  let strictSvc: TestService;
  const hits: Record<string, number> = {};

  const documents = (base: string): Record<string, { status?: number; headers?: Record<string, string>; body?: unknown }> => ({
    '/clients/agent.json': {
      headers: { 'cache-control': 'max-age=300' },
      body: { client_id: `${base}/clients/agent.json`, client_name: 'Agent documenté', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] },
    },
    '/clients/autre-id.json': { body: { client_id: `${base}/clients/agent.json`, client_name: 'Usurpateur', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } },
    '/clients/gros.json': { body: { client_id: `${base}/clients/gros.json`, client_name: 'x'.repeat(6000), redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' } },
    '/clients/redirige.json': { status: 302, headers: { location: `${base}/clients/agent.json` } },
    '/clients/secret.json': { body: { client_id: `${base}/clients/secret.json`, client_name: 'Secret', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' } },
  });

  before(async () => {
    let base = '';
    site = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? '/';
      hits[path] = (hits[path] ?? 0) + 1;
      const doc = documents(base)[path];
      if (!doc) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(doc.status ?? 200, { 'content-type': 'application/json', ...doc.headers });
      res.end(doc.body === undefined ? '' : JSON.stringify(doc.body));
    });
    base = site.url;
    svc = await startTestService({ config: { clientMetadataTestTrust: { ca: site.ca } } });
    strictSvc = await startTestService();
  });
  after(async () => {
    await svc?.close();
    await strictSvc?.close();
    await site?.close();
  });

  async function authorization(service: TestService, clientId: string, redirectUri = REDIRECT): Promise<{ as: oauth.AuthorizationServer; url: string; verifier: string }> {
    const issuer = new URL(service.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint as string);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'mcp:read',
      state: 'etat',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    return { as, url: url.toString(), verifier };
  }

  it('advertises client_id_metadata_document_supported in the RFC 8414 metadata', async () => {
    const meta = (await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(meta.client_id_metadata_document_supported).to.equal(true);
  });

  it('completes the flow for a client known only by its document (oauth4webapi, public client), the pages naming the publishing host; the document is fetched once while cached', async () => {
    const clientId = `${site.url}/clients/agent.json`;
    for (let round = 0; round < 2; round++) {
      const { as, url, verifier } = await authorization(svc, clientId);
      const login = await follow(url, new CookieJar(), {}, REDIRECT);
      expect(login.res.status).to.equal(200);
      expect(await login.res.text()).to.include(`Agent documenté (${new URL(site.url).host})`);
      const back = await signInAndConsent(url, REDIRECT, svc.account);
      const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };
      const params = oauth.validateAuthResponse(as, client, back, 'etat');
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, insecure));
      expect((await svc.rest('me', undefined, { token: tokens.access_token })).status).to.equal(200);
    }
    expect(hits['/clients/agent.json']).to.equal(1);
  });

  it('enforces the document’s redirect_uris: another address gets an error page, no redirect', async () => {
    const { url } = await authorization(svc, `${site.url}/clients/agent.json`, 'http://127.0.0.1:47413/ailleurs');
    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).to.equal(400);
    expect(answer.headers.get('location')).to.equal(null);
    expect(await answer.text()).to.include('redirect_uri');
  });

  for (const [path, why] of [
    ['/clients/autre-id.json', 'a client_id that is not its URL'],
    ['/clients/gros.json', 'over 5 KiB'],
    ['/clients/redirige.json', 'a redirect (never followed)'],
    ['/clients/secret.json', 'a shared-secret authentication method'],
    ['/clients/absent.json', 'a 404'],
  ] as const) {
    it(`refuses a document with ${why}: an error page, no code`, async () => {
      const { url } = await authorization(svc, `${site.url}${path}`);
      const answer = await fetch(url, { redirect: 'manual' });
      expect(answer.status, path).to.equal(400);
      expect(answer.headers.get('location')).to.equal(null);
      expect(await answer.text()).to.include('invalid_client');
    });
  }

  it('outside tests, never fetches a document from a loopback or private address', async () => {
    const before = hits['/clients/agent.json'] ?? 0;
    for (const clientId of [`${site.url}/clients/agent.json`, 'https://localhost/clients/agent.json', 'https://10.0.0.8/agent.json', 'https://[::1]/agent.json']) {
      const { url } = await authorization(strictSvc, clientId);
      const answer = await fetch(url, { redirect: 'manual' });
      expect(answer.status, clientId).to.equal(400);
      expect(await answer.text(), clientId).to.include('invalid_client');
    }
    expect(hits['/clients/agent.json'] ?? 0).to.equal(before);
  });
});
