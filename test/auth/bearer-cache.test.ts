// A token's caller is read from the database once and then kept while the database is unchanged (SQLite): a plan or limit change, a revoked token or a removed membership, made by this process or by another connection (the CLI), is seen on the very next call; a kept token past its expiry is refused; the quota log and usage writes keep it; PostgreSQL reads on every call.
import { expect } from 'chai';
import { BearerAuthenticator } from '../../src/auth/bearer.js';
import type { AuthServer } from '../../src/auth/provider.js';
import { createAccount, setOrganisationPlan } from '../../src/auth/store/accounts.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { oauthAdapterFactory } from '../../src/auth/store/oauth-store.js';
import { createQuotaStore } from '../../src/access/quota-store.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const RESOURCE = 'http://127.0.0.1:1/api/mcp';
const T0 = Date.parse('2026-11-21T10:00:00Z');

describe('bearer tokens kept in memory', () => {
  let migrated: MigratedDatabase;
  let db: Database;
  let other: Database;
  let clock = T0;
  let finds = 0;
  let n = 0;
  let adapter: InstanceType<ReturnType<typeof oauthAdapterFactory>>;

  /** oidc-provider's AccessToken.find, reduced to what the authenticator reads, over the real storage. */
  const auth = {
    issuer: 'http://127.0.0.1:1',
    resource: RESOURCE,
    provider: {
      AccessToken: {
        find: async (value: string) => {
          finds += 1;
          const payload = await adapter.find(value);
          if (!payload) return undefined;
          return { ...payload, isExpired: (payload.exp as number) <= clock / 1000 };
        },
      },
    },
  } as unknown as AuthServer;

  /** A fresh account alone in its organisation, and a token of it valid one hour. */
  async function accountWithToken(): Promise<{ userId: string; organisation: string; token: string }> {
    n += 1;
    const organisation = `Org cache ${n}`;
    const account = await createAccount(db, { email: `cache${n}@exemple.fr`, passwordHash: 'x', organisation, plan: 'free' }, new Date(clock));
    const token = `jeton-${n}-${'x'.repeat(30)}`;
    const iat = Math.floor(clock / 1000);
    await adapter.upsert(token, { kind: 'AccessToken', jti: token, accountId: account.userId, aud: RESOURCE, scope: 'mcp:read', clientId: 'client', grantId: `grant-${n}`, iat, exp: iat + 3600 }, 3600);
    return { userId: account.userId, organisation, token };
  }

  const bearer = () => new BearerAuthenticator(auth, db, () => new Date(clock));
  const refusal = (p: Promise<unknown>) => p.then(() => 'admis', (err: { code?: string }) => err.code);

  before(async () => {
    migrated = await openMigratedDatabase();
    db = migrated.db;
    // A second connection to the same database: another process's writes.
    other = openDatabase(migrated.databaseUrl);
    adapter = new (oauthAdapterFactory(db))('AccessToken');
  });
  after(async () => {
    await other.destroy();
    await migrated.close();
  });
  beforeEach(() => {
    clock = T0;
    finds = 0;
  });

  it('reads a token once while nothing changes, quota admissions and usage writes included (both engines: a change stamp says when to read again)', async () => {
    const { token, userId } = await accountWithToken();
    const b = bearer();
    const store = createQuotaStore(db);
    for (let i = 0; i < 3; i++) {
      const caller = await b.authenticate(`Bearer ${token}`, 'rest');
      expect(caller).to.include({ accountId: userId, plan: 'free', grantId: `grant-${n}` });
      expect(caller.scopes).to.deep.equal(['mcp:read']);
      await store.admitCall(userId, caller.limits, clock + i);
    }
    expect(finds).to.equal(1);
  });

  for (const by of ['this process', 'another connection'] as const) {
    const writer = () => (by === 'this process' ? db : other);

    it(`a plan and limit change made by ${by} is seen on the next call`, async () => {
      const { token, organisation } = await accountWithToken();
      const b = bearer();
      expect((await b.authenticate(`Bearer ${token}`, 'rest')).limits.callsPerMinute).to.equal(5);
      await setOrganisationPlan(writer(), organisation, { plan: 'subscribed', callsPerMinute: 42 });
      const after = await b.authenticate(`Bearer ${token}`, 'rest');
      expect(after.plan).to.equal('subscribed');
      expect(after.limits).to.include({ callsPerMinute: 42, callsPerDay: 5000 });
    });

    it(`a token revoked by ${by} is refused on the next call`, async () => {
      const { token } = await accountWithToken();
      const b = bearer();
      expect(await refusal(b.authenticate(`Bearer ${token}`, 'rest'))).to.equal('admis');
      await writer()('oauth_store').where({ grant_id: `grant-${n}` }).delete();
      expect(await refusal(b.authenticate(`Bearer ${token}`, 'rest'))).to.equal('unauthenticated');
    });

    it(`a membership removed by ${by} is seen on the next call (no organisation, free plan)`, async () => {
      const { token, userId } = await accountWithToken();
      const b = bearer();
      expect((await b.authenticate(`Bearer ${token}`, 'rest')).organisationId).to.be.a('string');
      await writer()('memberships').where({ user_id: userId }).delete();
      const after = await b.authenticate(`Bearer ${token}`, 'rest');
      expect(after).to.include({ organisationId: null, role: null, plan: 'free' });
    });
  }

  it('a kept token past its expiry is refused', async () => {
    const { token } = await accountWithToken();
    const b = bearer();
    expect(await refusal(b.authenticate(`Bearer ${token}`, 'rest'))).to.equal('admis');
    clock = T0 + 3600 * 1000;
    expect(await refusal(b.authenticate(`Bearer ${token}`, 'rest'))).to.equal('unauthenticated');
  });
});
