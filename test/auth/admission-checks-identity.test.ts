// A caller taken from memory and checked by its quota admission (the change stamp read inside the admission's own transaction; PostgreSQL: the identity's version in its one statement) is exact: a token revoked or a plan changed by another connection since is seen by that very admission (401, not counted; or admitted with the new limits), and nothing is counted twice.
import { expect } from 'chai';
import { BearerAuthenticator } from '../../src/auth/bearer.js';
import { setOrganisationPlan } from '../../src/auth/store/accounts.js';
import { openDatabase, type Database } from '../../src/platform/db/database.js';
import { createQuotaStore } from '../../src/access/quota-store.js';
import { QuotaKeeper } from '../../src/access/quota-keeper.js';
import type { Caller } from '../../src/access/caller.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';
import { tokenFixture } from '../helpers/token-fixture.js';

const T0 = Date.parse('2026-11-21T10:00:00Z');

describe('the admission checks a remembered identity', () => {
  let migrated: MigratedDatabase;
  let db: Database;
  let other: Database;
  let clock = T0;
  const { auth, accountWithToken } = tokenFixture({ label: 'admission', db: () => db, clock: () => clock });

  const logged = async (userId: string) => Number((await db('call_log').where('account_id', userId).count({ n: '*' }))[0]?.n);
  const outcome = (p: Promise<unknown>) => p.then(() => 'admis', (err: { code?: string }) => err.code);

  /** As the REST transport does: authentication, then the call path's admission right after. */
  async function call(b: BearerAuthenticator, keeper: QuotaKeeper, token: string): Promise<{ given: Caller; admitted: Caller }> {
    const given = await b.authenticate(`Bearer ${token}`, 'rest', undefined, { admissionFollows: true });
    clock += 1;
    return { given, admitted: await keeper.admitCall(given) };
  }

  before(async () => {
    migrated = await openMigratedDatabase();
    db = migrated.db;
    other = openDatabase(migrated.databaseUrl);
  });
  after(async () => {
    await other.destroy();
    await migrated.close();
  });

  it('a remembered caller is admitted by one check, counted once per call', async () => {
    const { token, userId } = await accountWithToken();
    const b = new BearerAuthenticator(auth, db, () => new Date(clock));
    const keeper = new QuotaKeeper(createQuotaStore(db), () => new Date(clock));
    const first = await call(b, keeper, token);
    expect(first.given.unconfirmed).to.equal(undefined);
    const second = await call(b, keeper, token);
    expect(second.given.unconfirmed).to.not.equal(undefined);
    expect(second.admitted).to.include({ accountId: userId, plan: 'free' });
    await call(b, keeper, token);
    expect(await logged(userId)).to.equal(3);
  });

  it('a token revoked by another connection since it was remembered is refused by the admission, uncounted', async () => {
    const { token, userId, grantId } = await accountWithToken();
    const b = new BearerAuthenticator(auth, db, () => new Date(clock));
    const keeper = new QuotaKeeper(createQuotaStore(db), () => new Date(clock));
    await call(b, keeper, token);
    await call(b, keeper, token);
    const given = await b.authenticate(`Bearer ${token}`, 'rest', undefined, { admissionFollows: true });
    await other('oauth_store').where({ grant_id: grantId }).delete();
    expect(await outcome(keeper.admitCall(given))).to.equal('unauthenticated');
    expect(await logged(userId)).to.equal(2);
    expect(await outcome(call(b, keeper, token))).to.equal('unauthenticated');
    expect(await logged(userId)).to.equal(2);
  });

  it('a plan changed by another connection since it was remembered is admitted with the new limits', async () => {
    const { token, userId, organisation } = await accountWithToken();
    const b = new BearerAuthenticator(auth, db, () => new Date(clock));
    const keeper = new QuotaKeeper(createQuotaStore(db), () => new Date(clock));
    await call(b, keeper, token);
    const given = await b.authenticate(`Bearer ${token}`, 'rest', undefined, { admissionFollows: true });
    expect(given.limits.callsPerMinute).to.equal(5);
    await setOrganisationPlan(other, organisation, { plan: 'subscribed', callsPerMinute: 42 });
    const admitted = await keeper.admitCall(given);
    expect(admitted.plan).to.equal('subscribed');
    expect(admitted.limits).to.include({ callsPerMinute: 42, callsPerDay: 5000 });
    expect(admitted.unconfirmed).to.equal(undefined);
    expect(await logged(userId)).to.equal(2);
  });

  it('a remembered caller past the minute ceiling is refused as before, uncounted', async () => {
    const { token, userId } = await accountWithToken();
    const b = new BearerAuthenticator(auth, db, () => new Date(clock));
    const keeper = new QuotaKeeper(createQuotaStore(db), () => new Date(clock));
    for (let i = 0; i < 5; i++) await call(b, keeper, token);
    expect(await outcome(call(b, keeper, token))).to.equal('quota_exceeded');
    expect(await logged(userId)).to.equal(5);
  });
});
