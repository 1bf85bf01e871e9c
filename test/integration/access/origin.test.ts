// Browser calls from an origin not allowed get 403 origin_denied on REST and MCP; preflights are answered for allowed origins only.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('browser origins', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ config: { allowedOrigins: ['https://app.exemple.fr'] } });
  });
  after(async () => svc.close());

  it('lets an allowed origin call REST, with CORS headers', async () => {
    const res = await svc.rest('referentiels.regions', {}, { init: { headers: { origin: 'https://app.exemple.fr' } } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal('https://app.exemple.fr');
    expect(res.headers.get('access-control-expose-headers')).to.include('WWW-Authenticate');
  });

  it('refuses another origin with 403 origin_denied on REST, before anything else runs', async () => {
    const res = await svc.rest('referentiels.regions', {}, { init: { headers: { origin: 'https://evil.exemple' } } });
    expect(res.status).to.equal(403);
    expect(res.json.error.code).to.equal('origin_denied');
    expect(res.json.error.message).to.include('https://evil.exemple');
    expect(res.headers.get('access-control-allow-origin')).to.equal(null);
  });

  it('refuses another origin on each MCP address with 403', async () => {
    for (const path of ['/api/mcp', '/api/mcp/connectors', '/api/mcp/assistant']) {
      const res = await fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: { origin: 'https://evil.exemple', 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${svc.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(res.status, path).to.equal(403);
      const body = await res.json();
      expect(body.jsonrpc, path).to.equal('2.0');
      expect(body.error.code).to.equal(-32600);
      expect(body.error.message).to.match(/Origine non autorisée/);
    }
  });

  it('refuses with the REST error body anywhere under /api/mcp but the three MCP addresses (/api/mcp/v1 itself included)', async () => {
    for (const path of ['/api/mcp/v1', '/api/mcp/v1/', '/api/mcp/v1/referentiels.regions', '/api/mcp/v1/inconnue/plus/loin', '/api/mcp/autre']) {
      for (const method of ['POST', 'GET', 'OPTIONS']) {
        const res = await fetch(`${svc.url}${path}`, { method, headers: { origin: 'https://evil.exemple', 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) });
        expect(res.status, `${method} ${path}`).to.equal(403);
        const body = await res.json();
        expect(body, `${method} ${path}`).to.have.keys('error', 'api_contract_version');
        expect(body.error.code).to.equal('origin_denied');
        expect(body).to.not.have.property('jsonrpc');
      }
    }
  });

  it('quotes a long Origin short in the refusal', async () => {
    const origin = `https://${'a'.repeat(3000)}.exemple`;
    const res = await svc.rest('referentiels.regions', {}, { init: { headers: { origin } } });
    expect(res.status).to.equal(403);
    expect(res.json.error.message.length).to.be.below(300);
  });

  it('answers a preflight for an allowed origin only', async () => {
    const ok = await fetch(`${svc.url}/api/mcp`, { method: 'OPTIONS', headers: { origin: 'https://app.exemple.fr', 'access-control-request-method': 'POST' } });
    expect(ok.status).to.equal(204);
    expect(ok.headers.get('access-control-allow-methods')).to.include('POST');
    expect(ok.headers.get('access-control-allow-headers')).to.match(/Authorization/i);
    const denied = await fetch(`${svc.url}/api/mcp/v1/referentiels.regions`, { method: 'OPTIONS', headers: { origin: 'https://evil.exemple' } });
    expect(denied.status).to.equal(403);
  });

  it('accepts the service’s own origin and calls without Origin (scripts)', async () => {
    const own = await svc.rest('referentiels.regions', {}, { init: { headers: { origin: new URL(svc.url).origin } } });
    expect(own.status).to.equal(200);
    expect((await svc.rest('referentiels.regions', {})).status).to.equal(200);
  });
});
