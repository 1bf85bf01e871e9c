// A token's caller is read from the database once and then kept while the database is unchanged (both engines): a plan or limit change, a revoked token or a removed membership, made by this process or by another connection (the CLI), is seen on the very next call; a kept token past its expiry is refused; the quota log and usage writes keep it; on PostgreSQL too, a version row raised by the writes says when to read again.
import { expect } from 'chai';
import { BearerAuthenticator } from '../../src/auth/bearer.js';
import { setOrganisationPlan } from '../../src/auth/store/accounts.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { createQuotaStore } from '../../src/access/quota-store.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';
import { tokenFixture } from '../helpers/token-fixture.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');

describe('bearer tokens kept in memory', () => {
  let migrated: MigratedDatabase;
  let db: Database;
  let other: Database;
  let clock = T0;
  let finds = 0;
  const { auth, accountWithToken } = tokenFixture({
    label: 'cache',
    db: () => db,
    clock: () => clock,
    onFind: () => {
      finds += 1;
    },
  });

  const bearer = () => new BearerAuthenticator(auth, db, () => new Date(clock));
  const refusal = (p: Promise<unknown>) => p.then(() => 'admis', (err: { code?: string }) => err.code);

  before(async () => {
    migrated = await openMigratedDatabase();
    db = migrated.db;
    // A second connection to the same database: another process's writes.
    other = openDatabase(migrated.databaseUrl);
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
    const { token, userId, grantId } = await accountWithToken();
    const b = bearer();
    const store = createQuotaStore(db);
    for (let i = 0; i < 3; i++) {
      const caller = await b.authenticate(`Bearer ${token}`, 'rest');
      expect(caller).to.include({ accountId: userId, plan: 'free', grantId });
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
      const { token, grantId } = await accountWithToken();
      const b = bearer();
      expect(await refusal(b.authenticate(`Bearer ${token}`, 'rest'))).to.equal('admis');
      await writer()('oauth_store').where({ grant_id: grantId }).delete();
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
