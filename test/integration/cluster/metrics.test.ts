// /metrics is off without METRICS_TOKEN (404), asks for the token otherwise, counts calls and quota refusals under fixed labels only (an unknown operation or path never becomes a label), and SERVICE_ROLES refuses an unknown role.
import { expect } from 'chai';
import { serviceRoles } from '../../../src/config.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { accountInOwnOrganisation, restAt, toolCall } from '../quota/quota-helpers.js';

const TOKEN = 'jeton-metriques-unitaire';

describe('metrics of one process', function () {
  this.timeout(60_000);
  let off: TestService;
  let on: TestService;
  before(async () => {
    [off, on] = await Promise.all([startTestService(), startTestService({ config: { metricsToken: TOKEN } })]);
  });
  after(async () => Promise.all([off?.close(), on?.close()]));

  const scrape = async (svc: TestService, token: string | null = TOKEN) => fetch(`${svc.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('answers 404 without METRICS_TOKEN, even with a bearer', async () => {
    expect((await scrape(off)).status).to.equal(404);
    expect((await scrape(off, TOKEN)).status).to.equal(404);
  });

  it('answers 401 with the challenge without the right token', async () => {
    for (const token of [null, 'mauvais', `${TOKEN}x`]) {
      const res = await scrape(on, token);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal('Bearer realm="metrics"');
      expect(((await res.json()) as { error: { code: string } }).error.code).to.equal('unauthenticated');
    }
  });

  it('counts calls and quota refusals under fixed labels, never a value sent by a caller', async () => {
    const free = await accountInOwnOrganisation(on);
    for (let i = 0; i < 7; i++) await restAt(on.url, 'referentiels.regions', free.token);
    await toolCall(`${on.url}/api/mcp/connectors`, on.token, 'marches_rechercher', { q: 'toiture' });
    await restAt(on.url, 'operation-inventee-xyz', on.token);
    await fetch(`${on.url}/api/mcp/chemin-invente-xyz`, { method: 'POST', headers: { origin: 'https://ailleurs-xyz.example' } });
    const text = await (await scrape(on)).text();
    expect(text).to.match(/^batidata_calls_total\{address="rest",operation="referentiels\.regions",status="200"\} 5$/m);
    expect(text).to.match(/^batidata_calls_total\{address="rest",operation="referentiels\.regions",status="429"\} 2$/m);
    expect(text).to.match(/^batidata_quota_refusals_total\{ceiling="minute"\} 2$/m);
    expect(text).to.match(/^batidata_calls_total\{address="\/api\/mcp\/connectors",operation="marches_rechercher",status="200"\} 1$/m);
    expect(text).to.match(/^batidata_calls_total\{address="rest",operation="aucune",status="404"\} 1$/m);
    expect(text).to.match(/^batidata_calls_total\{address="autre",operation="aucune",status="403"\} 1$/m);
    for (const sent of ['xyz', 'toiture', free.token, free.account.email, free.account.userId, on.token]) expect(text, sent).to.not.include(sent);
    expect(text).to.match(/^batidata_state_read_ok 1$/m);
    expect(text).to.match(/^batidata_email_queue_messages 0$/m);
    // Node's own, named as the operations guide's alerts use them.
    expect(text).to.match(/^batidata_nodejs_eventloop_lag_p99_seconds \d/m);
  });

  it('SERVICE_ROLES: every role by default, an unknown role refused with its name', () => {
    expect(serviceRoles(undefined)).to.deep.equal(['api', 'robot', 'sync', 'email', 'sweep']);
    expect(serviceRoles(' Robot , api ')).to.deep.equal(['api', 'robot']);
    expect(() => serviceRoles('api,cuisine')).to.throw(/SERVICE_ROLES : rôle inconnu cuisine/);
    expect(() => serviceRoles(' , ')).to.throw(/aucun rôle/);
  });
});
