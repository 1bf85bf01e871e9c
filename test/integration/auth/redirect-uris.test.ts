// Open registration accepts only https redirect URIs and http ones on the loopback (127.0.0.1, [::1], localhost), as the MCP authorization spec requires: anything else is refused with invalid_redirect_uri and a French description, and a client stored before the rule never gets a code at such an address.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { pkcePair } from '../../../scripts/lib/native-flow.js';
import { startTestService, type TestService } from '../../helpers/service.js';

async function register(base: string, metadata: Record<string, unknown>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Client redirections', token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: res.status, json: await res.json() };
}

describe('Redirect URIs at registration', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  const refused: [string, string][] = [
    ['web', 'http://evil.example/cb'],
    ['native', 'http://evil.example/cb'],
    ['web', 'http://127.0.0.2/cb'],
    ['web', 'http://localhost.evil.example/cb'],
    ['web', 'http://127.0.0.1.evil.example/cb'],
    ['native', 'com.exemple.appli:/retour'],
    ['web', 'ftp://depot.exemple.fr/cb'],
    ['web', 'javascript:alert(1)'],
  ];
  for (const [applicationType, uri] of refused) {
    it(`refuses ${uri} (${applicationType}) with invalid_redirect_uri, in French, and registers nothing`, async () => {
      const before = Number((await svc.db('oauth_store').where({ model: 'Client' }).count({ n: '*' }).first())?.n);
      const answer = await register(svc.url, { application_type: applicationType, redirect_uris: ['https://appli.exemple.fr/ok', uri] });
      expect(answer.status).to.equal(400);
      expect(answer.json.error).to.equal('invalid_redirect_uri');
      expect(answer.json.error_description).to.match(/^Adresse de redirection refusée : seules les adresses https/);
      expect(answer.json.client_id).to.equal(undefined);
      expect(Number((await svc.db('oauth_store').where({ model: 'Client' }).count({ n: '*' }).first())?.n)).to.equal(before);
    });
  }

  const accepted: [string, string][] = [
    ['web', 'https://appli.exemple.fr/oauth/retour'],
    ['web', 'http://localhost:8080/cb'],
    ['web', 'http://127.0.0.1/cb'],
    ['native', 'http://127.0.0.1:53682/callback'],
    ['native', 'http://[::1]:53682/callback'],
    ['native', 'http://localhost/cb'],
  ];
  for (const [applicationType, uri] of accepted) {
    it(`accepts ${uri} (${applicationType})`, async () => {
      const answer = await register(svc.url, { application_type: applicationType, redirect_uris: [uri] });
      expect(answer.status, JSON.stringify(answer.json)).to.equal(201);
      expect(answer.json.redirect_uris).to.deep.equal([uri]);
    });
  }

  it('refuses a post-logout redirect URI outside the rule with invalid_client_metadata, in French', async () => {
    const answer = await register(svc.url, { redirect_uris: ['https://appli.exemple.fr/cb'], post_logout_redirect_uris: ['http://evil.example/fin'] });
    expect(answer.status).to.equal(400);
    expect(answer.json.error).to.equal('invalid_client_metadata');
    expect(answer.json.error_description).to.match(/^Adresse de retour après déconnexion refusée/);
  });

  it('a client stored with http://evil.example/cb before the rule: the authorize step refuses that address without redirecting to it', async () => {
    const clientId = 'client-ancien-evil';
    const payload = {
      client_id: clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      application_type: 'web',
      redirect_uris: ['http://evil.example/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    };
    await svc.db('oauth_store').insert({ model: 'Client', id_hash: createHash('sha256').update(clientId).digest('hex'), payload: JSON.stringify(payload) });
    const url = new URL(`${svc.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: 'http://evil.example/cb',
      response_type: 'code',
      scope: 'mcp:read',
      state: 'etat',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    }).toString();
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.status).to.equal(400);
    expect(res.headers.get('location')).to.equal(null);
    expect(await res.text()).to.include('redirect_uri');
  });
});
