// A strict OAuth client (oauth4webapi, no project code for the flow) connects to each MCP address from its 401 challenge alone: RFC 9728 metadata named by the challenge, RFC 8414 metadata of its authorization server, a client registered dynamically or known by its metadata document, PKCE, the resource indicator, with Bearer and DPoP tokens.
// The login and consent pages are the user's part: signInAndConsent fills them as a person would.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { signInAndConsent } from '../../../scripts/lib/native-flow.js';
import { startHttpsServer, type TestHttpsServer } from '../../helpers/https-server.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT = 'http://127.0.0.1:47519/cb';
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const TOOLS_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

/** The parameters of the Bearer challenge of a WWW-Authenticate header (RFC 9110 auth-params, quoted). */
function bearerChallenge(header: string | null): Record<string, string> {
  const bearer = /(?:^|,\s*)Bearer\s+(.*?)(?=,\s*[A-Za-z]+\s+[a-z_]+=|$)/i.exec(header ?? '')?.[1] ?? '';
  return Object.fromEntries([...bearer.matchAll(/([a-z_]+)="([^"]*)"/gi)].map((m) => [(m[1] as string).toLowerCase(), m[2] as string]));
}

describe('strict OAuth client (oauth4webapi) on the three MCP addresses', function () {
  this.timeout(60_000);
  let site: TestHttpsServer;
  let svc: TestService;
  let documentUrl = '';

  before(async () => {
    site = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.url !== '/clients/strict.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60' });
      res.end(JSON.stringify({ client_id: documentUrl, client_name: 'Client strict', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }));
    });
    documentUrl = `${site.url}/clients/strict.json`;
    svc = await startTestService({ config: { clientMetadataTestTrust: { ca: site.ca } } });
  });
  after(async () => {
    await svc?.close();
    await site?.close();
  });

  for (const path of ['/api/mcp', '/api/mcp/connectors', '/api/mcp/assistant']) {
    for (const registration of ['dynamic registration', 'client metadata document'] as const) {
      for (const binding of ['Bearer', 'DPoP'] as const) {
        it(`${path}: ${registration}, ${binding} token`, async () => {
          const resource = new URL(`${svc.url}${path}`);

          // 1. The address refuses an anonymous call; its challenge is all the client knows.
          const anonymous = await fetch(resource, { method: 'POST', headers: MCP_HEADERS, body: TOOLS_LIST });
          expect(anonymous.status).to.equal(401);
          const challenge = bearerChallenge(anonymous.headers.get('www-authenticate'));
          expect(challenge.resource_metadata, 'resource_metadata').to.be.a('string');

          // 2. RFC 9728: the metadata it names describes this very address.
          const rs = await oauth.processResourceDiscoveryResponse(resource, await fetch(challenge.resource_metadata as string));
          const issuer = new URL((rs.authorization_servers ?? [])[0] as string);

          // 3. RFC 8414: the authorization server's metadata.
          const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));

          // 4. The client: registered now, or known by its https metadata document.
          let client: oauth.Client;
          if (registration === 'dynamic registration') {
            const registered = await oauth.processDynamicClientRegistrationResponse(
              await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Client strict', application_type: 'native', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] }, insecure),
            );
            client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
          } else {
            expect(as.client_id_metadata_document_supported).to.equal(true);
            client = { client_id: documentUrl, token_endpoint_auth_method: 'none' };
          }
          const dpop = binding === 'DPoP' ? oauth.DPoP(client, await oauth.generateKeyPair('ES256')) : undefined;

          // 5. Authorization code with PKCE, for this resource and the scopes the challenge asked.
          const verifier = oauth.generateRandomCodeVerifier();
          const state = oauth.generateRandomState();
          const authorize = new URL(as.authorization_endpoint as string);
          authorize.search = new URLSearchParams({
            client_id: client.client_id,
            redirect_uri: REDIRECT,
            response_type: 'code',
            scope: challenge.scope ?? (rs.scopes_supported ?? []).join(' '),
            state,
            resource: resource.href,
            code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
            code_challenge_method: 'S256',
          }).toString();
          const back = await signInAndConsent(authorize.toString(), REDIRECT, svc.account);
          const params = oauth.validateAuthResponse(as, client, back, state);
          const exchange = () =>
            oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, REDIRECT, verifier, { ...insecure, ...(dpop ? { DPoP: dpop } : {}), additionalParameters: { resource: resource.href } });
          let tokens: oauth.TokenEndpointResponse;
          try {
            tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange());
          } catch (err) {
            if (!oauth.isDPoPNonceError(err)) throw err;
            tokens = await oauth.processAuthorizationCodeResponse(as, client, await exchange());
          }
          expect(tokens.token_type).to.equal(binding === 'DPoP' ? 'dpop' : 'bearer');

          // 6. The address answers the client, in both MCP revisions.
          const answer = await oauth.protectedResourceRequest(tokens.access_token, 'POST', resource, new Headers(MCP_HEADERS), TOOLS_LIST, { ...insecure, ...(dpop ? { DPoP: dpop } : {}) });
          expect(answer.status).to.equal(200);
          expect(((await answer.json()) as { result: { tools: unknown[] } }).result.tools).to.not.be.empty;
          const modern = await oauth.protectedResourceRequest(
            tokens.access_token,
            'POST',
            resource,
            new Headers({ ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' }),
            JSON.stringify({
              jsonrpc: '2.0',
              id: 2,
              method: 'server/discover',
              params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
            }),
            { ...insecure, ...(dpop ? { DPoP: dpop } : {}) },
          );
          expect(modern.status).to.equal(200);
          expect(((await modern.json()) as { result: { supportedVersions: string[] } }).result.supportedVersions).to.include('2026-07-28');
        });
      }
    }
  }
});
