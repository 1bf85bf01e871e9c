// The plan tools: abonnement.get tells the plan, options, price, members and what each opens (from the contract), abonnement.subscribe starts one replayable request that only an administrator's confirmation on the account page turns into the subscribed plan; neither is served on the assistant or the connectors.
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { Contract } from '../../../src/contract/runtime.js';
import type { Role } from '../../../src/access/caller.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const contract = Contract.load();
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const HIGH = { callsPerMinute: 100_000, callsPerDay: 1_000_000 };

/** The answer without the call counters' moving values. */
const steady = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('plan tools (issue 16)', function () {
  this.timeout(60_000);
  let svc: TestService;
  const clients: Client[] = [];
  const people: Record<string, { account: TestAccount; token: string }> = {};

  async function member(key: string, organisation: string | null, role: Role, scope = 'mcp:read mcp:write'): Promise<{ account: TestAccount; token: string }> {
    const account = await svc.createAccount({ organisation, role, plan: 'free' });
    if (organisation) await setOrganisationPlan(svc.db, organisation, HIGH);
    people[key] = { account, token: await svc.tokenFor(account, scope) };
    return people[key];
  }

  async function client(token: string, path = '/api/mcp'): Promise<Client> {
    const c = await mcpClient(`${svc.url}${path}`, token);
    clients.push(c);
    return c;
  }

  /** Opens a page signed out, signs in on the form it leads to, and lands back on the page. */
  async function openSignedIn(url: string, who: TestAccount): Promise<{ jar: CookieJar; status: number; html: string; url: string }> {
    const jar = new CookieJar();
    const first = await follow(url, jar);
    expect(first.url).to.contain('/compte/connexion?suite=');
    const { fields } = formFields(await first.res.text());
    const back = await follow(`${svc.url}/compte/connexion`, jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ ...fields, email: who.email, password: who.password }).toString() });
    return { jar, status: back.res.status, html: await back.res.text(), url: back.url };
  }

  before(async () => {
    svc = await startTestService();
    await member('admin', 'Plan A', 'admin');
    await member('membre', 'Plan A', 'membre');
    await member('lecteur', 'Plan A', 'lecteur');
    await member('lecture', 'Plan A', 'membre', 'mcp:read');
    await member('ailleurs', 'Plan B', 'admin');
    await member('seul', null, 'membre');
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await svc?.close();
  });

  it('abonnement.get: plan, options, members, price and the paid-only operations of the contract, the same on REST and MCP', async () => {
    const { status, json } = await svc.rest('abonnement.get', {}, { token: people.membre?.token });
    expect(status, JSON.stringify(json)).to.equal(200);
    expect(contract.outputProblem('abonnement.get', json)).to.equal(null);
    expect(json.formule).to.equal('free');
    expect(json.organisation).to.deep.equal({ nom: 'Plan A', membres: 4, montant_mensuel_ht_eur: 48 });
    expect(json.options).to.deep.equal({ option_email: false, acces_eligible: false });
    expect(json.prix).to.include({ montant_ht_eur: 12, engagement: false });
    expect(json.formules).to.deep.equal([
      { code: 'free', prix_ht_eur: 0, appels_minute: 5, appels_jour: 100, dossiers_jour: 5 },
      { code: 'subscribed', prix_ht_eur: 12, appels_minute: 30, appels_jour: 5000, dossiers_jour: 500 },
    ]);
    const paid = [...contract.operations.values()].filter((o) => o.paidOnly).map((o) => o.name).sort();
    expect(paid).to.include.members(['alertes.create', 'marque.rapport']);
    expect(json.operations_reservees.map((o: any) => o.operation)).to.deep.equal(paid);
    const brand = json.operations_reservees.find((o: any) => o.operation === 'marque.rapport');
    expect(brand).to.deep.equal({ operation: 'marque.rapport', outil: 'marque_rapport', ouverte_par: 'formule_abonnee_ou_acces_eligible', ouverte: false });
    expect(json.demande_en_cours).to.equal(null);

    const viaMcp = await (await client(people.membre?.token as string)).callTool({ name: 'abonnement_statut', arguments: {} });
    expect(viaMcp.isError, JSON.stringify(viaMcp.content)).to.not.equal(true);
    expect(steady(viaMcp.structuredContent)).to.deep.equal(json);
  });

  it('abonnement.get: a granted eligible access opens the operations marked for it, and an account without organisation is free', async () => {
    await setOrganisationPlan(svc.db, 'Plan B', { eligibleAccess: true });
    const { json } = await svc.rest('abonnement.get', {}, { token: people.ailleurs?.token });
    expect(json.options.acces_eligible).to.equal(true);
    for (const o of json.operations_reservees) expect(o.ouverte, o.operation).to.equal(o.ouverte_par === 'formule_abonnee_ou_acces_eligible');
    const alone = await svc.rest('abonnement.get', {}, { token: people.seul?.token });
    expect(alone.json.formule).to.equal('free');
    expect(alone.json.organisation).to.equal(null);
  });

  it('both consume a call, like every call', async () => {
    const token = people.admin?.token;
    const before = (await svc.rest('quotas.get', {}, { token })).json.appels_jour.utilises;
    await svc.rest('abonnement.get', {}, { token });
    await svc.rest('abonnement.subscribe', {}, { token: people.lecteur?.token });
    const after = (await svc.rest('quotas.get', {}, { token })).json.appels_jour.utilises;
    expect(after - before).to.equal(2);
  });

  it('neither tool is served on the assistant nor the connectors', async () => {
    for (const path of ['/api/mcp/assistant', '/api/mcp/connectors']) {
      const c = await client(people.admin?.token as string, path);
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names, path).to.not.include.members(['abonnement_statut']);
      expect(names, path).to.not.include('abonnement_souscrire');
      const err = await c.callTool({ name: 'abonnement_souscrire', arguments: {} }).then(
        () => null,
        (e: { code?: number }) => e,
      );
      expect(err?.code, path).to.equal(-32601);
    }
    const full = (await (await client(people.admin?.token as string)).listTools()).tools.map((t) => t.name);
    expect(full).to.include.members(['abonnement_statut', 'abonnement_souscrire']);
  });

  it('abonnement.subscribe refuses a reader, an account without organisation and a read-only token, in French', async () => {
    const reader = await svc.rest('abonnement.subscribe', {}, { token: people.lecteur?.token });
    expect([reader.status, reader.json.error.code]).to.deep.equal([403, 'role_denied']);
    expect(reader.json.error.message).to.match(/rôle « lecteur »/);
    const alone = await svc.rest('abonnement.subscribe', {}, { token: people.seul?.token });
    expect([alone.status, alone.json.error.code]).to.deep.equal([403, 'organization_required']);
    const readOnly = await svc.rest('abonnement.subscribe', {}, { token: people.lecture?.token });
    expect([readOnly.status, readOnly.json.error.code]).to.deep.equal([403, 'insufficient_scope']);
    expect(await svc.db('subscription_requests')).to.have.length(0);
  });

  let requestUrl = '';
  it('abonnement.subscribe starts one request, given back on every replay and on MCP, without changing the plan', async () => {
    const first = await svc.rest('abonnement.subscribe', {}, { token: people.membre?.token });
    expect(first.status, JSON.stringify(first.json)).to.equal(200);
    expect(contract.outputProblem('abonnement.subscribe', first.json)).to.equal(null);
    expect(first.json).to.include({ action: 'souscription', formule: 'free', deja_abonnee: false, created: true });
    expect(first.json.url).to.equal(`${svc.url}/compte/abonnement/${first.json.demande.id}`);
    expect(first.json.message).to.match(/administrateur/);
    requestUrl = first.json.url;
    const again = await svc.rest('abonnement.subscribe', {}, { token: people.admin?.token });
    expect(again.json).to.include({ created: false, url: requestUrl });
    const viaMcp = await (await client(people.membre?.token as string)).callTool({ name: 'abonnement_souscrire', arguments: {} });
    expect((viaMcp.structuredContent as any).url).to.equal(requestUrl);
    expect(await svc.db('subscription_requests')).to.have.length(1);
    const status = await svc.rest('abonnement.get', {}, { token: people.membre?.token });
    expect(status.json.formule).to.equal('free');
    expect(status.json.demande_en_cours.url).to.equal(requestUrl);
  });

  it('the request page: a member sees who may confirm, a forged or non-admin confirmation is refused in French, another organisation gets 404', async () => {
    const asMember = await openSignedIn(requestUrl, people.membre?.account as TestAccount);
    expect(asMember.url).to.equal(requestUrl);
    expect(asMember.status).to.equal(200);
    expect(asMember.html).to.contain('48 € HT par mois');
    expect(asMember.html).to.contain('Seul un administrateur');
    expect(asMember.html).to.not.contain('Confirmer l’abonnement');
    // The session's CSRF token (from the accesses page) on a POST the page does not offer a member.
    const accesses = await follow(`${svc.url}/compte/acces-ia`, asMember.jar);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await accesses.res.text())?.[1] as string;
    const refused = await follow(`${requestUrl}/confirmer`, asMember.jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf }).toString() });
    expect(refused.res.status).to.equal(403);
    expect(await refused.res.text()).to.contain('Seul un administrateur de l’organisation peut confirmer');

    const asAdmin = await openSignedIn(requestUrl, people.admin?.account as TestAccount);
    const forged = await follow(`${requestUrl}/confirmer`, asAdmin.jar, { method: 'POST', headers: FORM, body: 'csrf=faux' });
    expect(forged.res.status).to.equal(403);

    const elsewhere = await openSignedIn(requestUrl, people.ailleurs?.account as TestAccount);
    expect(elsewhere.status).to.equal(404);
    expect(elsewhere.html).to.contain('Demande introuvable');
    expect((await svc.db('organisations').where('name', 'Plan A').first('plan')).plan).to.equal('free');
  });

  it('an administrator confirms on the page: the plan is subscribed, alerts open, a new call says so', async () => {
    const page = await openSignedIn(requestUrl, people.admin?.account as TestAccount);
    expect(page.html).to.contain('Confirmer l’abonnement');
    const { action, fields } = formFields(page.html);
    const done = await follow(new URL(action, requestUrl).toString(), page.jar, { method: 'POST', headers: FORM, body: new URLSearchParams(fields).toString() });
    expect(done.url).to.equal(`${svc.url}/compte/abonnement?confirme=1`);
    expect(await done.res.text()).to.contain('Abonnement confirmé');
    const row = await svc.db('subscription_requests').first();
    expect(row.confirmed_by).to.equal(people.admin?.account.userId);

    const status = await svc.rest('abonnement.get', {}, { token: people.membre?.token });
    expect(status.json.formule).to.equal('subscribed');
    expect(status.json.demande_en_cours).to.equal(null);
    expect(status.json.operations_reservees.every((o: any) => o.ouverte)).to.equal(true);
    const alert = await svc.rest('alertes.create', { name: 'Après abonnement', query: 'couverture' }, { token: people.membre?.token });
    expect(alert.status, JSON.stringify(alert.json)).to.equal(200);
    expect(alert.json.alerte.is_active).to.equal(true);
    const replay = await svc.rest('abonnement.subscribe', {}, { token: people.membre?.token });
    expect(replay.json).to.include({ deja_abonnee: true, formule: 'subscribed', created: false, demande: null, url: `${svc.url}/compte/abonnement` });
  });

  it('an expired request cannot be confirmed (409 page) and a new call starts another', async () => {
    await setOrganisationPlan(svc.db, 'Plan B', { plan: 'free' });
    const first = await svc.rest('abonnement.subscribe', {}, { token: people.ailleurs?.token });
    await svc.db('subscription_requests').where('id', first.json.demande.id).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
    const page = await openSignedIn(first.json.url, people.ailleurs?.account as TestAccount);
    expect(page.html).to.contain('a expiré');
    const accesses = await follow(`${svc.url}/compte/acces-ia`, page.jar);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await accesses.res.text())?.[1] as string;
    const late = await follow(`${first.json.url}/confirmer`, page.jar, { method: 'POST', headers: FORM, body: new URLSearchParams({ csrf }).toString() });
    expect(late.res.status).to.equal(409);
    expect((await svc.db('organisations').where('name', 'Plan B').first('plan')).plan).to.equal('free');
    const next = await svc.rest('abonnement.subscribe', {}, { token: people.ailleurs?.token });
    expect(next.json.created).to.equal(true);
    expect(next.json.demande.id).to.not.equal(first.json.demande.id);
  });
});
