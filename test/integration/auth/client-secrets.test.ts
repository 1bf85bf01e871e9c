// A public client gets no secret (token_endpoint_auth_method left out means none); a confidential client's secret is stored only as a hash: registration gives it once in clear, no column of the table holds it, client_secret_basic and client_secret_post authenticate with it while a wrong secret or the stored hash itself is refused (invalid_client), client_secret_jwt is not offered, and the migration hashes the secrets stored before it.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { signInAndConsent } from '../../../scripts/lib/native-flow.js';
import { hashClientSecret } from '../../../src/auth/store/client-secret.js';
import { openDatabase } from '../../../src/platform/db/database.js';
import { freshDatabase, startTestService, type TestService } from '../../helpers/service.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const redirectUri = 'http://127.0.0.1:47412/cb';

/** A revocation of an unknown token (200 when the client authenticates, RFC 7009), with the client's credentials in `init`. */
async function revokeAs(base: string, form: Record<string, string>, authorization?: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(authorization ? { authorization } : {}) },
    body: new URLSearchParams({ token: 'jeton-inconnu', ...form }).toString(),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const idHash = (id: string) => createHash('sha256').update(id).digest('hex');

describe('Client secrets at rest', () => {
  let svc: TestService;
  let as: oauth.AuthorizationServer;
  let clientId: string;
  let secret: string;

  before(async () => {
    svc = await startTestService();
    const issuer = new URL(svc.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const response = await oauth.dynamicClientRegistrationRequest(
      as,
      { client_name: 'Client confidentiel', application_type: 'web', redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_basic', grant_types: ['authorization_code', 'refresh_token'] },
      insecure,
    );
    expect(response.status).to.equal(201);
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    clientId = registered.client_id;
    secret = registered.client_secret as string;
  });
  after(async () => svc.close());

  it('gives the secret once, in clear, at registration (a long random value)', () => {
    expect(secret).to.be.a('string');
    expect(secret.length).to.be.at.least(64);
  });

  it('stores only its hash: no column of oauth_store holds the secret', async () => {
    const rows = (await svc.db('oauth_store').select('*')) as Record<string, unknown>[];
    for (const row of rows) for (const [column, value] of Object.entries(row)) expect(String(value), column).not.to.include(secret);
    const stored = await svc.db('oauth_store').where({ model: 'Client', id_hash: idHash(clientId) }).first('payload');
    expect((JSON.parse(stored.payload as string) as { client_secret: string }).client_secret).to.equal(hashClientSecret(secret));
  });

  it('authenticates the client with its secret through the whole flow (client_secret_basic, oauth4webapi)', async () => {
    const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'client_secret_basic' };
    const verifier = oauth.generateRandomCodeVerifier();
    const authorize = new URL(as.authorization_endpoint as string);
    authorize.search = new URLSearchParams({
      client_id: clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'mcp:read',
      state: 'etat',
      resource: `${svc.url}/api/mcp`,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const back = await signInAndConsent(authorize.toString(), redirectUri, svc.account);
    const params = oauth.validateAuthResponse(as, client, back, 'etat');
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(secret), params, redirectUri, verifier, { ...insecure, additionalParameters: { resource: `${svc.url}/api/mcp` } }),
    );
    expect((await svc.rest('me', undefined, { token: tokens.access_token })).status).to.equal(200);
  });

  it('accepts the secret in the body too (client_secret_post)', async () => {
    expect((await revokeAs(svc.url, { client_id: clientId, client_secret: secret })).status).to.equal(200);
    expect((await revokeAs(svc.url, {}, basic(clientId, secret))).status).to.equal(200);
  });

  it('issues no secret to a public client, also when token_endpoint_auth_method is left out (it is then none), and that client exchanges its code as a public client (oauth4webapi)', async () => {
    for (const metadata of [{}, { token_endpoint_auth_method: 'none' }]) {
      const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Client public', redirect_uris: [redirectUri], ...metadata }, insecure);
      const registered = await oauth.processDynamicClientRegistrationResponse(response);
      expect(registered.token_endpoint_auth_method, JSON.stringify(metadata)).to.equal('none');
      expect(registered, JSON.stringify(metadata)).to.not.have.property('client_secret');
      expect(registered, JSON.stringify(metadata)).to.not.have.property('client_secret_expires_at');
      const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: 'none' };
      const verifier = oauth.generateRandomCodeVerifier();
      const authorize = new URL(as.authorization_endpoint as string);
      authorize.search = new URLSearchParams({
        client_id: registered.client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'mcp:read',
        state: 'etat',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      }).toString();
      const back = await signInAndConsent(authorize.toString(), redirectUri, svc.account);
      const params = oauth.validateAuthResponse(as, client, back, 'etat');
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure));
      expect((await svc.rest('me', undefined, { token: tokens.access_token })).status).to.equal(200);
    }
  });

  it('honours client_secret_post when asked at registration: a secret, used in the body', async () => {
    const response = await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Client post', redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post' }, insecure);
    const registered = await oauth.processDynamicClientRegistrationResponse(response);
    expect(registered.token_endpoint_auth_method).to.equal('client_secret_post');
    expect(registered.client_secret).to.be.a('string');
    expect((await revokeAs(svc.url, { client_id: registered.client_id, client_secret: registered.client_secret as string })).status).to.equal(200);
  });

  it('refuses a wrong secret, and the stored hash used as the secret, with invalid_client', async () => {
    for (const [label, presented] of [
      ['mauvais secret', `${secret}x`],
      ['hachage stocké', hashClientSecret(secret)],
    ] as const) {
      const viaBasic = await revokeAs(svc.url, {}, basic(clientId, presented));
      expect(viaBasic.status, label).to.equal(401);
      expect(viaBasic.json.error, label).to.equal('invalid_client');
      expect((await revokeAs(svc.url, { client_id: clientId, client_secret: presented })).json.error, label).to.equal('invalid_client');
    }
  });

  it('does not offer client_secret_jwt (a MAC cannot be keyed by a hash): not announced, refused at registration', async () => {
    expect(as.token_endpoint_auth_methods_supported).to.not.include('client_secret_jwt');
    expect(as.token_endpoint_auth_methods_supported).to.include.members(['none', 'client_secret_basic', 'client_secret_post']);
    const res = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_jwt' }),
    });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { error: string }).error).to.equal('invalid_client_metadata');
  });

  it('the migration hashes in place a secret stored in clear before it, and the client still authenticates with it', async () => {
    const database = freshDatabase();
    try {
      const first = await startTestService({ database });
      await first.stop();
      // The database as it was before the migration: its table absent, a client row with its secret in clear.
      const db = openDatabase(database.databaseUrl, { searchPath: database.searchPath });
      const legacyId = 'client-ancien-confidentiel';
      const legacySecret = 'secret-en-clair-'.padEnd(86, 'x');
      try {
        await db('knex_migrations').where({ name: '0007-oauth-hardening' }).delete();
        await db.schema.dropTable('oauth_dpop_proofs');
        const payload = {
          client_id: legacyId,
          client_secret: legacySecret,
          client_secret_expires_at: 0,
          client_id_issued_at: Math.floor(Date.now() / 1000),
          application_type: 'web',
          redirect_uris: [redirectUri],
          token_endpoint_auth_method: 'client_secret_basic',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        };
        await db('oauth_store').insert({ model: 'Client', id_hash: idHash(legacyId), payload: JSON.stringify(payload) });
      } finally {
        await db.destroy();
      }
      const second = await startTestService({ database });
      try {
        const row = await second.db('oauth_store').where({ model: 'Client', id_hash: idHash(legacyId) }).first('payload');
        expect(row.payload).not.to.include(legacySecret);
        expect((JSON.parse(row.payload as string) as { client_secret: string }).client_secret).to.equal(hashClientSecret(legacySecret));
        expect((await revokeAs(second.url, {}, basic(legacyId, legacySecret))).status).to.equal(200);
        expect((await revokeAs(second.url, {}, basic(legacyId, 'autre'))).status).to.equal(401);
      } finally {
        await second.stop();
      }
    } finally {
      await database.cleanup();
    }
  });
});
