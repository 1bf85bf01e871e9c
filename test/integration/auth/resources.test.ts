// Over real HTTP, each MCP address is a protected resource with its own metadata (RFC 9728, path form): a token asked for the canonical resource works on every address and on REST, one asked for a restricted address works there only (401 invalid_token elsewhere, naming why), and the challenge of each address points to its metadata.
import { expect } from 'chai';
import { obtainToken } from '../../../scripts/lib/native-flow.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const ADDRESSES = ['/api/mcp', '/api/mcp/connectors', '/api/mcp/assistant'] as const;

async function toolsList(url: string, token: string): Promise<{ status: number; challenge: string | null; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const text = await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate'), json: text ? JSON.parse(text) : null };
}

describe('protected resources per MCP address', function () {
  this.timeout(60_000);
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.close());

  it('serves each resource’s metadata, the canonical one at the root and in path form; an unknown path form is 404', async () => {
    const want: [string, string][] = [
      ['/.well-known/oauth-protected-resource', `${svc.url}/api/mcp`],
      ['/.well-known/oauth-protected-resource/api/mcp', `${svc.url}/api/mcp`],
      ['/.well-known/oauth-protected-resource/api/mcp/connectors', `${svc.url}/api/mcp/connectors`],
      ['/.well-known/oauth-protected-resource/api/mcp/assistant', `${svc.url}/api/mcp/assistant`],
    ];
    for (const [path, resource] of want) {
      const res = await fetch(`${svc.url}${path}`);
      expect(res.status, path).to.equal(200);
      const doc = (await res.json()) as { resource: string; authorization_servers: string[] };
      expect(doc.resource, path).to.equal(resource);
      expect(doc.authorization_servers).to.deep.equal([svc.url]);
    }
    for (const path of ['/.well-known/oauth-protected-resource/api/mcp/autre', '/.well-known/oauth-protected-resource/api/mcp/v1']) expect((await fetch(`${svc.url}${path}`)).status, path).to.equal(404);
  });

  it('a token for the canonical resource works on every address and on REST', async () => {
    const token = (await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password, scope: 'mcp:read' })).accessToken;
    for (const path of ADDRESSES) expect((await toolsList(`${svc.url}${path}`, token)).status, path).to.equal(200);
    expect((await svc.rest('me', undefined, { token })).status).to.equal(200);
  });

  for (const restricted of ['/api/mcp/connectors', '/api/mcp/assistant'] as const) {
    it(`a token for ${restricted} works there only: elsewhere 401 invalid_token, the challenge pointing to that address's metadata`, async () => {
      const token = (await obtainToken({ baseUrl: svc.url, email: svc.account.email, password: svc.account.password, scope: 'mcp:read', resource: `${svc.url}${restricted}` })).accessToken;
      const own = await toolsList(`${svc.url}${restricted}`, token);
      expect(own.status).to.equal(200);
      expect(own.json.result.tools.length).to.be.greaterThan(0);
      for (const path of ADDRESSES.filter((p) => p !== restricted)) {
        const other = await toolsList(`${svc.url}${path}`, token);
        expect(other.status, path).to.equal(401);
        expect(other.json.error.code).to.equal(-32001);
        expect(other.json.error.message).to.include('Jeton émis pour une autre adresse').and.include(`${svc.url}/api/mcp`);
        const metadata = path === '/api/mcp' ? '' : path;
        expect(other.challenge).to.include('error="invalid_token"').and.include(`resource_metadata="${svc.url}/.well-known/oauth-protected-resource${metadata}"`);
      }
      const rest = await svc.rest('me', undefined, { token });
      expect(rest.status).to.equal(401);
      expect(rest.json.error.code).to.equal('unauthenticated');
      expect(rest.headers.get('www-authenticate')).to.include('error="invalid_token"');
    });
  }
});
