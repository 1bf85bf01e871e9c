// Rule: the service's non-API addresses are exact (case and trailing slash count), a GET address answers HEAD alike, and anything else is the 404 error body.
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

describe('routes outside the API', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  const status = async (path: string, init: RequestInit = {}) => (await fetch(`${svc.url}${path}`, { redirect: 'manual', ...init })).status;

  it('answers the exact addresses', async () => {
    expect(await status('/healthz')).to.equal(200);
    expect(await status('/openapi.json')).to.equal(200);
    expect(await status('/.well-known/oauth-protected-resource')).to.equal(200);
    expect(await status('/.well-known/oauth-authorization-server')).to.equal(200);
    expect(await status('/compte/connexion')).to.equal(200);
  });

  for (const path of ['/HEALTHZ', '/healthz/', '/openapi.json/', '/Docs/llms.txt', '/.well-known/oauth-protected-resource/', '/entreprises/12345678', '/etablissements/123', '/inconnue']) {
    it(`answers 404 with the error body for ${path}`, async () => {
      const res = await fetch(`${svc.url}${path}`);
      expect(res.status).to.equal(404);
      expect((await res.json()).error.code).to.equal('not_found');
    });
  }

  it('answers HEAD like GET, without a body', async () => {
    const res = await fetch(`${svc.url}/healthz`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(await res.text()).to.equal('');
    expect(await status('/openapi.json', { method: 'HEAD' })).to.equal(200);
  });

  it('does not serve the documents to other methods', async () => {
    expect(await status('/openapi.json', { method: 'POST' })).to.equal(404);
    expect(await status('/healthz', { method: 'DELETE' })).to.equal(404);
  });

  it('sends any /compte… address to the sign-in page when not signed in, and a record page too', async () => {
    for (const path of ['/compte', '/compte/acces-ia', '/compte/inconnue', '/comptes']) {
      const res = await fetch(`${svc.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).to.equal(303);
      expect(res.headers.get('location'), path).to.equal('/compte/connexion');
    }
    const record = await fetch(`${svc.url}/entreprises/123456789`, { redirect: 'manual' });
    expect(record.status).to.equal(303);
    expect(record.headers.get('location')).to.equal('/compte/connexion?suite=%2Fentreprises%2F123456789');
  });

  it('answers 405 for another method on an authorize step page, and hands other /oauth/ addresses to the authorization server', async () => {
    expect(await status('/oauth/interaction/abc_DEF-1/login')).to.equal(405);
    expect(await status('/oauth/interaction/abc/consent', { method: 'PUT' })).to.equal(405);
    const jwks = await fetch(`${svc.url}/oauth/jwks`);
    expect(jwks.status).to.equal(200);
    expect((await jwks.json()).keys).to.be.an('array');
  });
});
