// A DPoP-bound token is accepted only under the DPoP scheme with a fresh proof for this request (RFC 9449): typ dpop+jwt, an asymmetric alg, signed by the public jwk of its header, htm, htu without query, iat in the window, ath of the token, the key the token is bound to, a jti never accepted before by any process; anything else is 401 with the DPoP error; bearer tokens are unchanged.
import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, calculateJwkThumbprint, type JWK, type CryptoKey } from 'jose';
import { BearerAuthenticator, DpopRefusal, bearerChallenge, type RequestProof } from '../../src/auth/bearer.js';
import type { AuthServer } from '../../src/auth/provider.js';
import { createAccount } from '../../src/auth/store/accounts.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { oauthAdapterFactory } from '../../src/auth/store/oauth-store.js';
import { UnauthenticatedError } from '../../src/errors.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const ISSUER = 'http://127.0.0.1:1';
const RESOURCE = `${ISSUER}/api/mcp`;
const ME: RequestProof = { method: 'GET', path: '/api/mcp/v1/me', dpop: undefined };

interface Key {
  privateKey: CryptoKey;
  jwk: JWK;
  jkt: string;
}

async function key(alg = 'ES256'): Promise<Key> {
  const pair = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(pair.publicKey);
  return { privateKey: pair.privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

describe('DPoP proofs on the resource side', () => {
  let migrated: MigratedDatabase;
  let db: Database;
  let other: Database;
  let adapter: InstanceType<ReturnType<typeof oauthAdapterFactory>>;
  let finds = 0;
  let n = 0;
  let accountId: string;
  let holder: Key;
  let bound: string;
  let plain: string;

  const auth = {
    issuer: ISSUER,
    resource: RESOURCE,
    provider: {
      AccessToken: {
        find: async (value: string) => {
          finds += 1;
          const payload = await adapter.find(value);
          return payload ? { ...payload, isExpired: (payload.exp as number) <= Date.now() / 1000 } : undefined;
        },
      },
    },
  } as unknown as AuthServer;

  async function storeToken(jkt: string | null): Promise<string> {
    n += 1;
    const token = `jeton-dpop-${n}-${randomUUID()}`;
    const iat = Math.floor(Date.now() / 1000);
    const payload = { kind: 'AccessToken', jti: token, accountId, aud: RESOURCE, scope: 'mcp:read', clientId: 'client', grantId: `grant-${n}`, iat, exp: iat + 3600 };
    await adapter.upsert(token, jkt ? { ...payload, jkt } : payload, 3600);
    return token;
  }

  /** A proof for `token` on GET /api/mcp/v1/me, correct unless the overrides say otherwise. */
  async function proof(token: string, o: { key?: Key; signer?: CryptoKey; header?: Record<string, unknown>; claims?: Record<string, unknown>; alg?: string } = {}): Promise<string> {
    const k = o.key ?? holder;
    const claims = { htm: 'GET', htu: `${ISSUER}/api/mcp/v1/me`, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ath: ath(token), ...o.claims };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete (claims as Record<string, unknown>)[name];
    return new SignJWT(claims).setProtectedHeader({ alg: o.alg ?? 'ES256', typ: 'dpop+jwt', jwk: k.jwk, ...o.header }).sign(o.signer ?? k.privateKey);
  }

  const bearer = (on: Database = db) => new BearerAuthenticator(auth, on, () => new Date());
  /** The refusal's RFC 9449 error, 'unauthenticated' for a plain 401, or 'admis'. */
  const outcome = (p: Promise<unknown>) =>
    p.then(
      () => 'admis',
      (err: unknown) => (err instanceof DpopRefusal ? err.challengeError : err instanceof UnauthenticatedError ? 'unauthenticated' : String(err)),
    );

  before(async () => {
    migrated = await openMigratedDatabase();
    db = migrated.db;
    // A second connection to the same database: another process's writes.
    other = openDatabase(migrated.databaseUrl);
    adapter = new (oauthAdapterFactory(db))('AccessToken');
    accountId = (await createAccount(db, { email: 'dpop@exemple.fr', passwordHash: 'x', organisation: 'Org DPoP', plan: 'free' }, new Date())).userId;
    holder = await key();
    bound = await storeToken(holder.jkt);
    plain = await storeToken(null);
  });
  after(async () => {
    await other.destroy();
    await migrated.close();
  });

  it('accepts a bound token under the DPoP scheme with a valid proof (the scheme name in any case), each call with a new proof', async () => {
    const b = bearer();
    for (const scheme of ['DPoP', 'dpop']) {
      const caller = await b.authenticate(`${scheme} ${bound}`, 'rest', { ...ME, dpop: await proof(bound) });
      expect(caller).to.include({ accountId, grantId: 'grant-1' });
    }
  });

  it('accepts Ed25519 proofs too, and htu with a query or a fragment (compared without them)', async () => {
    const ed = await key('Ed25519');
    const token = await storeToken(ed.jkt);
    const b = bearer();
    expect(await outcome(b.authenticate(`DPoP ${token}`, 'rest', { ...ME, dpop: await proof(token, { key: ed, alg: 'Ed25519' }) }))).to.equal('admis');
    const htu = `${ISSUER}/api/mcp/v1/me?x=1#f`;
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: await proof(bound, { claims: { htu } }) }))).to.equal('admis');
  });

  it('refuses a bound token sent as a Bearer token, even with a valid proof: invalid_token', async () => {
    expect(await outcome(bearer().authenticate(`Bearer ${bound}`, 'rest', { ...ME, dpop: await proof(bound) }))).to.equal('invalid_token');
  });

  it('refuses a bound token when the transport gives no request (its proof cannot be checked)', async () => {
    expect(await outcome(bearer().authenticate(`DPoP ${bound}`, 'rest'))).to.equal('invalid_dpop_proof');
  });

  it('refuses an unbound token under the DPoP scheme (invalid_token), and still accepts it as a Bearer token, a DPoP header being ignored', async () => {
    const b = bearer();
    expect(await outcome(b.authenticate(`DPoP ${plain}`, 'rest', { ...ME, dpop: await proof(plain) }))).to.equal('invalid_token');
    expect(await outcome(b.authenticate(`Bearer ${plain}`, 'rest', { ...ME, dpop: 'nimporte' }))).to.equal('admis');
    expect(await outcome(b.authenticate(`Bearer ${plain}`, 'rest'))).to.equal('admis');
  });

  it('refuses a missing proof, or one that is not a JWT', async () => {
    const b = bearer();
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', ME))).to.equal('invalid_dpop_proof');
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: 'pas.une.preuve' }))).to.equal('invalid_dpop_proof');
    // Two DPoP headers reach the transport joined by a comma: never a valid JWS.
    const twice = `${await proof(bound)}, ${await proof(bound)}`;
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: twice }))).to.equal('invalid_dpop_proof');
  });

  it('refuses each broken part of the proof with invalid_dpop_proof', async () => {
    const b = bearer();
    const stranger = await key();
    const now = Math.floor(Date.now() / 1000);
    const secret = new TextEncoder().encode('x'.repeat(32)) as unknown as CryptoKey;
    const privateJwk = await exportJWK((await generateKeyPair('ES256', { extractable: true })).privateKey);
    const cases: Record<string, Promise<string>> = {
      'typ JWT': proof(bound, { header: { typ: 'JWT' } }),
      'typ absent': proof(bound, { header: { typ: undefined } }),
      'alg HS256 (symmetric)': proof(bound, { alg: 'HS256', signer: secret }),
      'signed by another key than its jwk': proof(bound, { signer: stranger.privateKey }),
      'jwk absent': proof(bound, { header: { jwk: undefined } }),
      'jwk a private key': proof(bound, { header: { jwk: privateJwk } }),
      'jwk of another key than the token’s (valid signature)': proof(bound, { key: stranger }),
      'htm POST for a GET': proof(bound, { claims: { htm: 'POST' } }),
      'htm lower case': proof(bound, { claims: { htm: 'get' } }),
      'htu of another path': proof(bound, { claims: { htu: `${ISSUER}/api/mcp/v1/quotas.get` } }),
      'htu of another host': proof(bound, { claims: { htu: 'http://ailleurs.exemple.fr/api/mcp/v1/me' } }),
      'htu absent': proof(bound, { claims: { htu: undefined } }),
      'iat too old': proof(bound, { claims: { iat: now - 310 } }),
      'iat in the future': proof(bound, { claims: { iat: now + 310 } }),
      'iat absent': proof(bound, { claims: { iat: undefined } }),
      'ath of another token': proof(bound, { claims: { ath: ath(plain) } }),
      'ath absent': proof(bound, { claims: { ath: undefined } }),
      'jti absent': proof(bound, { claims: { jti: undefined } }),
      'exp past': proof(bound, { claims: { exp: now - 10 } }),
    };
    for (const [label, made] of Object.entries(cases)) {
      let dpop: string;
      try {
        dpop = await made;
      } catch (err) {
        throw new Error(`${label} : preuve non construite`, { cause: err });
      }
      expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop })), label).to.equal('invalid_dpop_proof');
    }
  });

  it('refuses a proof made for MCP on REST and the reverse (htu and htm name the address)', async () => {
    const b = bearer();
    const mcp = { method: 'POST', path: '/api/mcp', dpop: await proof(bound, { claims: { htm: 'POST', htu: `${ISSUER}/api/mcp` } }) };
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'full', { ...mcp, path: '/api/mcp/connectors' }))).to.equal('invalid_dpop_proof');
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'full', mcp))).to.equal('admis');
  });

  it('refuses a replayed proof, in this process and in another one (another connection, another authenticator)', async () => {
    const dpop = await proof(bound);
    const first = bearer();
    expect(await outcome(first.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop }))).to.equal('admis');
    expect(await outcome(first.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop }))).to.equal('invalid_dpop_proof');
    expect(await outcome(bearer(other).authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop }))).to.equal('invalid_dpop_proof');
  });

  it('lets one of two simultaneous uses of a proof through, never both', async () => {
    const dpop = await proof(bound);
    const results = await Promise.all([bearer(db), bearer(other), bearer(db), bearer(other)].map((b) => outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop }))));
    expect(results.filter((r) => r === 'admis')).to.have.length(1);
    expect(results.filter((r) => r === 'invalid_dpop_proof')).to.have.length(3);
  });

  it('stores the accepted proofs by hash with their expiry, and a refused proof not at all', async () => {
    const before = Number((await db('oauth_dpop_proofs').count({ n: '*' }).first())?.n);
    const jti = `jti-visible-${randomUUID()}`;
    await bearer().authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: await proof(bound, { claims: { jti } }) });
    await outcome(bearer().authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: await proof(bound, { claims: { jti: 'refusee', htm: 'POST' } }) }));
    const rows = (await db('oauth_dpop_proofs').select('*')) as { id_hash: string; expires_at: unknown }[];
    expect(rows).to.have.length(before + 1);
    for (const row of rows) {
      expect(JSON.stringify(row)).not.to.include(jti);
      expect(row.id_hash).to.match(/^[0-9a-f]{64}$/);
      expect(Number(row.expires_at)).to.be.within(Date.now() / 1000 + 290, Date.now() / 1000 + 310);
    }
  });

  it('reads a bound token from the database once while nothing changes, yet checks a proof on every call', async () => {
    const b = bearer();
    finds = 0;
    for (let i = 0; i < 3; i++) await b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: await proof(bound) });
    expect(finds).to.equal(1);
    const replay = await proof(bound);
    await b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: replay });
    expect(await outcome(b.authenticate(`DPoP ${bound}`, 'rest', { ...ME, dpop: replay }))).to.equal('invalid_dpop_proof');
  });

  it('the 401 challenge offers Bearer then DPoP with its algorithms, and names the DPoP error (RFC 9449 §7.1)', () => {
    const url = 'https://api.exemple.fr';
    const metadata = `resource_metadata="${url}/.well-known/oauth-protected-resource"`;
    const scope = 'scope="mcp:read mcp:write"';
    expect(bearerChallenge(new UnauthenticatedError('x'), url)).to.equal(`Bearer realm="MCP", ${scope}, ${metadata}, DPoP realm="MCP", algs="ES256 Ed25519 EdDSA", ${metadata}`);
    expect(bearerChallenge(new DpopRefusal('x', 'invalid_dpop_proof'), url)).to.equal(
      `Bearer realm="MCP", ${scope}, ${metadata}, DPoP realm="MCP", error="invalid_dpop_proof", algs="ES256 Ed25519 EdDSA", ${metadata}`,
    );
    expect(bearerChallenge(new DpopRefusal('x', 'invalid_token'), url)).to.include('DPoP realm="MCP", error="invalid_token"');
  });
});
