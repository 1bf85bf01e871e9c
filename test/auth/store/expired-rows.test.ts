// The sweep deletes only what nothing may read any more (OAuth models past their expiry, web sessions past theirs, sign-in failures past the throttle's window), in batches, on both engines; a token, a session and a registered client still valid keep working after it.
import { expect } from 'chai';
import { PURGE_BATCH, purgeExpiredAuthRows } from '../../../src/auth/store/expired-rows.js';
import { createAccount } from '../../../src/auth/store/accounts.js';
import { LOGIN_FAILURE_WINDOW_SECONDS } from '../../../src/auth/store/login-throttle.js';
import { openMigratedDatabase, startTestService, type MigratedDatabase } from '../../helpers/service.js';

const NOW = Date.parse('2026-11-24T10:00:00Z');
const NOW_S = NOW / 1000;

describe('expired sign-in and OAuth rows', function () {
  this.timeout(60000);

  describe('the sweep', () => {
    let migrated: MigratedDatabase;
    beforeEach(async () => {
      migrated = await openMigratedDatabase();
    });
    afterEach(async () => migrated.close());

    const oauthRow = (model: string, id: string, expiresAt: number | null) => ({ model, id_hash: id, payload: '{}', expires_at: expiresAt });

    it('deletes expired rows of the three tables, a batch at a time, and keeps the others', async () => {
      const { db } = migrated;
      const expiredTokens = Array.from({ length: PURGE_BATCH * 2 + 37 }, (_, i) => oauthRow('AccessToken', `old-${i}`, NOW_S - 1 - (i % 50)));
      for (let i = 0; i < expiredTokens.length; i += 200) await db('oauth_store').insert(expiredTokens.slice(i, i + 200));
      await db('oauth_store').insert([
        oauthRow('AccessToken', 'at-the-second', NOW_S),
        oauthRow('AccessToken', 'valid', NOW_S + 60),
        oauthRow('RefreshToken', 'valid-refresh', NOW_S + 30 * 86400),
        oauthRow('Client', 'registered-client', null),
        oauthRow('Grant', 'old-grant', NOW_S - 86400),
      ]);
      const { userId } = await createAccount(db, { email: 'balai@exemple.fr', passwordHash: 'x' }, new Date(NOW));
      await db('web_sessions').insert([
        { id_hash: 'old-session', user_id: userId, expires_at: NOW_S - 10 },
        { id_hash: 'live-session', user_id: userId, expires_at: NOW_S + 3600 },
      ]);
      await db('login_failures').insert([
        { key: 'email:old', count: 3, last_at: NOW_S - LOGIN_FAILURE_WINDOW_SECONDS - 1 },
        { key: 'email:recent', count: 3, last_at: NOW_S - LOGIN_FAILURE_WINDOW_SECONDS },
      ]);

      const purged = await purgeExpiredAuthRows(db, new Date(NOW));
      expect(purged).to.deep.equal({ oauth: expiredTokens.length + 2, webSessions: 1, loginFailures: 1, accountLinks: 0, invitations: 0, accountEmails: 0, activityAddresses: 0 });
      expect(((await db('oauth_store').pluck('id_hash')) as string[]).sort()).to.deep.equal(['registered-client', 'valid', 'valid-refresh']);
      expect(await db('web_sessions').pluck('id_hash')).to.deep.equal(['live-session']);
      expect(await db('login_failures').pluck('key')).to.deep.equal(['email:recent']);
      // Nothing left to do: a second sweep deletes nothing.
      expect(await purgeExpiredAuthRows(db, new Date(NOW))).to.deep.equal({ oauth: 0, webSessions: 0, loginFailures: 0, accountLinks: 0, invitations: 0, accountEmails: 0, activityAddresses: 0 });
    });
  });

  describe('on a running service', () => {
    it('leaves the signed-in account, its token and its registered client working', async () => {
      const svc = await startTestService();
      try {
        const before = (await svc.db('oauth_store').count<{ n: number | string }[]>('* as n'))[0]?.n;
        const purged = await purgeExpiredAuthRows(svc.db, new Date());
        // Only the finished interactions of the sign-in can have expired; the token and client remain.
        expect(purged.webSessions).to.equal(0);
        expect(Number(before) - purged.oauth).to.be.greaterThan(0);
        expect((await svc.rest('referentiels.sources', {})).status).to.equal(200);
        // An hour and a minute later the access token has expired: the sweep removes it, and it is refused as before.
        await purgeExpiredAuthRows(svc.db, new Date(Date.now() + 3660_000));
        expect(await svc.db('oauth_store').where({ model: 'AccessToken' }).count<{ n: number | string }[]>('* as n').then((r) => Number(r[0]?.n))).to.equal(0);
        expect(await svc.db('oauth_store').where({ model: 'Client' }).count<{ n: number | string }[]>('* as n').then((r) => Number(r[0]?.n))).to.be.greaterThan(0);
      } finally {
        await svc.close();
      }
    });
  });
});
