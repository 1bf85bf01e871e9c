// E-mail sends without an SMTP server (the embedded default): the outbox shown by emails.list and the account page, the plan and eligible-access refusal, header injection and address checks, the limits (recipients, 100 an hour exact under concurrency), idempotency keys, drafts, the sending domain's option and checks, isolation between organisations; same on REST and MCP.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CookieJar, follow, formFields } from '../../../scripts/lib/native-flow.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { hourOf } from '../../../src/domains/emails/store.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';
import { call, type Via } from '../workspace/fixtures.js';

const NO_SMTP = 'non envoyé : aucun serveur SMTP configuré';

describe('e-mail sends without SMTP server (outbox)', function () {
  this.timeout(60000);
  let svc: TestService;
  let me: { token: string; mcp: Client };
  let other: { account: TestAccount; token: string; mcp: Client };

  before(async () => {
    svc = await startTestService();
    me = { token: svc.token, mcp: await mcpClient(`${svc.url}/api/mcp`, svc.token) };
    const account = await svc.createAccount({ organisation: 'Autre organisation' });
    const token = await svc.tokenFor(account);
    other = { account, token, mcp: await mcpClient(`${svc.url}/api/mcp`, token) };
  });
  after(async () => {
    await me.mcp.close();
    await other.mcp.close();
    await svc.close();
  });
  beforeEach(async () => {
    await svc.db('email_messages').delete();
    await svc.db('email_hourly_counts').delete();
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    describe(`over ${via}`, () => {
      it('keeps the message in the outbox, en attente, marked « non envoyé : aucun serveur SMTP configuré »', async () => {
        const r = await call(svc, via, 'emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Objet', texte: 'Texte.' }, me);
        expect(r.ok, r.message).to.equal(true);
        expect(r.body.courriel).to.include({ etat: 'en_attente', etat_libelle: 'en attente', remarque: NO_SMTP, tentatives: 0, prochain_essai: null, expedition: 'service', domaine_expediteur: 'service.test' });
        expect(r.body.courriel.cle).to.match(/^auto-[0-9a-f]{40}$/);
        const listed = await call(svc, via, 'emails.list', {}, me);
        expect(listed.body.items.map((m: { id: string; remarque: string }) => [m.id, m.remarque])).to.deep.equal([[r.body.courriel.id, NO_SMTP]]);
        const row = await svc.db('email_messages').where({ id: r.body.courriel.id }).first();
        expect([row.state, row.attempts]).to.deep.equal(['en_attente', 0]);
      });

      it('replays the same key without recording twice, and refuses the same key with another message (409)', async () => {
        const args = { destinataires: ['a@exemple.fr'], sujet: 'Objet', texte: 'Texte.', cle: 'cle-1' };
        const first = await call(svc, via, 'emails.send', args, me);
        const again = await call(svc, via, 'emails.send', args, me);
        expect([first.body.cree, again.body.cree, again.body.courriel.id]).to.deep.equal([true, false, first.body.courriel.id]);
        // Without a key, the same message the same day is the same send.
        const derived = await call(svc, via, 'emails.send', { destinataires: ['b@exemple.fr'], sujet: 'Objet', texte: 'Texte.' }, me);
        const derivedAgain = await call(svc, via, 'emails.send', { destinataires: ['b@exemple.fr'], sujet: 'Objet', texte: 'Texte.' }, me);
        expect(derivedAgain.body.courriel.id).to.equal(derived.body.courriel.id);
        const conflict = await call(svc, via, 'emails.send', { ...args, texte: 'Autre texte.' }, me);
        expect(conflict.ok).to.equal(false);
        if (via === 'rest') expect([conflict.status, conflict.code]).to.deep.equal([409, 'conflict']);
        expect(conflict.message).to.contain('cle-1');
        expect(Number((await svc.db('email_messages').count({ n: '*' }).first())?.n)).to.equal(2);
      });

      it('refuses header injection through the subject, bad addresses, too many recipients, naming the argument', async () => {
        const cases: [Record<string, unknown>, string][] = [
          [{ destinataires: ['a@exemple.fr'], sujet: 'Objet\r\nBcc: cible@exemple.fr', texte: 'x' }, '« sujet »'],
          [{ destinataires: ['a@exemple.fr'], sujet: 'Objet\nX-Injecte: 1', texte: 'x' }, '« sujet »'],
          [{ destinataires: ['a@exemple.fr\r\nBcc: cible@exemple.fr'], sujet: 'Objet', texte: 'x' }, '« destinataires[0] »'],
          [{ destinataires: ['a@exemple.fr'], copie: ['Nom <b@exemple.fr>'], sujet: 'Objet', texte: 'x' }, '« copie[0] »'],
          [{ destinataires: ['pas-une-adresse'], sujet: 'Objet', texte: 'x' }, '« destinataires[0] »'],
          [{ destinataires: ['a@exemple.fr'], texte: 'x' }, '« sujet »'],
          [{ destinataires: ['a@exemple.fr'], sujet: 'Objet', texte: 'nul \u0001' }, '« texte »'],
          [
            { destinataires: Array.from({ length: 15 }, (_, i) => `d${i}@exemple.fr`), copie: Array.from({ length: 6 }, (_, i) => `c${i}@exemple.fr`), sujet: 'Objet', texte: 'x' },
            '20 au plus',
          ],
        ];
        for (const [args, named] of cases) {
          const r = await call(svc, via, 'emails.send', args, me);
          expect(r.ok, JSON.stringify(args)).to.equal(false);
          if (via === 'rest') expect(r.code).to.equal('invalid_arguments');
          expect(r.message, JSON.stringify(args)).to.contain(named);
        }
        expect(Number((await svc.db('email_messages').count({ n: '*' }).first())?.n)).to.equal(0);
      });
    });
  }

  it('refuses a free organisation without eligible access (403 access_denied, MCP tool error) and opens to a granted eligible access', async () => {
    const account = await svc.createAccount({ organisation: 'Gratuite', plan: 'free' });
    const token = await svc.tokenFor(account);
    const args = { destinataires: ['a@exemple.fr'], sujet: 'Objet', texte: 'Texte.' };
    const refused = await svc.rest('emails.send', args, { token });
    expect([refused.status, refused.json.error.code]).to.deep.equal([403, 'access_denied']);
    expect(refused.json.error.message).to.contain('formule abonnée').and.contain('accès éligible');
    const mcp = await mcpClient(`${svc.url}/api/mcp`, token);
    const viaMcp: any = await mcp.callTool({ name: 'emails_envoyer', arguments: args });
    expect(viaMcp.isError).to.equal(true);
    expect(viaMcp.content[0].text).to.contain('accès éligible');
    await setOrganisationPlan(svc.db, 'Gratuite', { eligibleAccess: true });
    const granted: any = await mcp.callTool({ name: 'emails_envoyer', arguments: args });
    await mcp.close();
    expect(granted.isError, JSON.stringify(granted.content)).to.not.equal(true);
    expect(granted.structuredContent.cree).to.equal(true);
  });

  it('caps an organisation at 100 messages an hour, exactly, when 110 sends race (429 with the delay to the next hour)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 110 }, (_, i) => svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: `Objet ${i}`, texte: 'Texte.', cle: `course-${i}` })),
    );
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 429);
    expect([ok.length, refused.length]).to.deep.equal([100, 10]);
    expect(refused[0]?.json.error.code).to.equal('quota_exceeded');
    expect(refused[0]?.json.error.message).to.contain('100 messages par heure');
    const retryAfter = Number(refused[0]?.headers.get('retry-after'));
    expect(retryAfter).to.be.within(1, 3600);
    const row = await svc.db('email_hourly_counts').where({ organisation_id: svc.account.organisationId, hour: hourOf(new Date()) }).first();
    // The hour may turn during the test: then the counts of both hours add up to 100.
    const counts = await svc.db('email_hourly_counts').where({ organisation_id: svc.account.organisationId }).sum({ n: 'count' }).first();
    expect(Number(counts?.n)).to.equal(100);
    expect(row === undefined || Number(row.count) <= 100).to.equal(true);
    expect(Number((await svc.db('email_messages').count({ n: '*' }).first())?.n)).to.equal(100);
    // A replay of a recorded key is no new message: still answered.
    const replay = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Objet 0', texte: 'Texte.', cle: 'course-0' });
    expect(ok.some((a) => a.json.courriel.cle === 'course-0') ? replay.status : 200).to.equal(200);
    // Another organisation has its own hour.
    const theirs = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Objet', texte: 'Texte.' }, { token: other.token });
    expect(theirs.status).to.equal(200);
  });

  it('sends a draft of the organisation (title as subject, body as text) and answers 404 for another organisation’s draft', async () => {
    const at = new Date().toISOString();
    const draft = (organisationId: string) => ({
      id: randomUUID(),
      organisation_id: organisationId,
      kind: 'question',
      title: 'Question au maître d’ouvrage',
      body: 'Bonjour,\nune question sur le CCTP.',
      version: 1,
      created_by: svc.account.userId,
      created_at: at,
      updated_by: svc.account.userId,
      updated_at: at,
    });
    const mine = draft(svc.account.organisationId as string);
    const theirs = draft(other.account.organisationId as string);
    await svc.db('drafts').insert([mine, theirs]);
    const r = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], brouillon_id: mine.id });
    expect(r.status, JSON.stringify(r.json)).to.equal(200);
    expect([r.json.courriel.sujet, r.json.courriel.brouillon_id]).to.deep.equal([mine.title, mine.id]);
    const row = await svc.db('email_messages').where({ id: r.json.courriel.id }).first();
    expect(row.body).to.equal(mine.body);
    const overridden = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], brouillon_id: mine.id, sujet: 'Autre objet' });
    expect(overridden.json.courriel.sujet).to.equal('Autre objet');
    const foreign = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], brouillon_id: theirs.id });
    expect([foreign.status, foreign.json.error.code]).to.deep.equal([404, 'not_found']);
    const unknown = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], brouillon_id: randomUUID() });
    expect(unknown.json.error.message).to.equal(foreign.json.error.message);
  });

  it('lists newest first by pages, filters by state, and shows another organisation nothing of ours', async () => {
    for (let i = 0; i < 5; i++) await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: `Objet ${i}`, texte: 'Texte.', cle: `liste-${i}` });
    await svc.db('email_messages').where({ idempotency_key: 'liste-1' }).update({ state: 'echec', last_response: '550 Destinataire inconnu' });
    const page1 = await svc.rest('emails.list', { limit: 2 });
    expect(page1.json.total).to.equal(5);
    expect(page1.json.items.map((m: { sujet: string }) => m.sujet)).to.deep.equal(['Objet 4', 'Objet 3']);
    const page2 = await svc.rest('emails.list', { limit: 2, cursor: page1.json.next_cursor });
    expect(page2.json.items.map((m: { sujet: string }) => m.sujet)).to.deep.equal(['Objet 2', 'Objet 1']);
    const failed = await svc.rest('emails.list', { etat: ['echec'] });
    expect(failed.json.items.map((m: { sujet: string; derniere_reponse_smtp: string; remarque: null }) => [m.sujet, m.derniere_reponse_smtp, m.remarque])).to.deep.equal([
      ['Objet 1', '550 Destinataire inconnu', null],
    ]);
    const bad = await svc.rest('emails.list', { limit: 2, cursor: page1.json.next_cursor, etat: ['echec'] });
    expect(bad.json.error.code).to.equal('invalid_cursor');
    const theirs = await call(svc, 'mcp', 'emails.list', {}, other);
    expect(theirs.body.items).to.deep.equal([]);
  });

  it('shows the outbox on the account page /compte/courriels, with the mark, escaped', async () => {
    await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Devis <toiture> & zinc', texte: 'Texte.' });
    const jar = new CookieJar();
    const login = await follow(`${svc.url}/compte/connexion`, jar);
    const { action, fields } = formFields(await login.res.text());
    const form = new URLSearchParams({ ...fields, email: svc.account.email, password: svc.account.password });
    await follow(new URL(action, login.url).toString(), jar, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
    const page = await follow(`${svc.url}/compte/courriels`, jar);
    expect(page.res.status).to.equal(200);
    const html = await page.res.text();
    expect(html).to.contain('Devis &lt;toiture&gt; &amp; zinc').and.contain(NO_SMTP).and.contain('a@exemple.fr');
    const visitor = await fetch(`${svc.url}/compte/courriels`, { redirect: 'manual' });
    expect(visitor.status).to.equal(303);
  });

  it('needs the e-mail option to set or check a sending domain, answers the three records, keeps the key on a replay and replaces it for another domain', async () => {
    const none = await svc.rest('emails.domain', { action: 'consulter' });
    expect(none.json).to.deep.equal({ action: 'consulter', option_courriel: false, domaine: null });
    const refused = await svc.rest('emails.domain', { action: 'definir', domaine: 'toitures-armor.fr' });
    expect([refused.status, refused.json.error.code]).to.deep.equal([403, 'access_denied']);
    expect(refused.json.error.message).to.contain('option courriel');
    await setOrganisationPlan(svc.db, 'Organisation test', { emailOption: true });
    try {
      const noDomain = await svc.rest('emails.domain', { action: 'verifier' });
      expect(noDomain.json.error.code).to.equal('conflict');
      const bad = await svc.rest('emails.domain', { action: 'definir', domaine: 'pas un domaine' });
      expect([bad.status, bad.json.error.message]).to.satisfy(([s, m]: [number, string]) => s === 400 && m.includes('« domaine »'));
      const set = await svc.rest('emails.domain', { action: 'definir', domaine: 'Toitures-Armor.fr.' });
      const d = set.json.domaine;
      expect([d.domaine, d.expediteur, d.etat, d.utilise_pour_envoi]).to.deep.equal(['toitures-armor.fr', 'ne-pas-repondre', 'a_verifier', false]);
      expect(d.enregistrements[0]).to.deep.equal({ role: 'spf', type: 'TXT', nom: 'toitures-armor.fr', valeur: 'v=spf1 include:_spf.service.test ~all', etat: 'non_verifie' });
      expect(d.enregistrements[1].nom).to.match(/^bd\d{8}[0-9a-f]{6}\._domainkey\.toitures-armor\.fr$/);
      expect(d.enregistrements[1].valeur).to.match(/^v=DKIM1; k=rsa; p=MIIBIjAN[A-Za-z0-9+/=]+$/);
      expect(d.enregistrements[2]).to.deep.equal({ role: 'retour', type: 'CNAME', nom: 'retour.toitures-armor.fr', valeur: 'retour.service.test', etat: 'non_verifie' });
      const secrets = await svc.db('service_secrets').where('name', 'like', 'dkim:%').select('name', 'value');
      expect(secrets).to.have.length(1);
      expect(secrets[0].value).to.contain('BEGIN PRIVATE KEY');
      const replay = await svc.rest('emails.domain', { action: 'definir', domaine: 'toitures-armor.fr', expediteur: 'devis' });
      expect(replay.json.domaine.enregistrements[1]).to.deep.equal(d.enregistrements[1]);
      expect(replay.json.domaine.expediteur).to.equal('devis');
      const replaced = await svc.rest('emails.domain', { action: 'definir', domaine: 'armor-couverture.fr' });
      expect(replaced.json.domaine.enregistrements[1].valeur).to.not.equal(d.enregistrements[1].valeur);
      expect(Number((await svc.db('service_secrets').where('name', 'like', 'dkim:%').count({ n: '*' }).first())?.n)).to.equal(1);
      // Nothing published (the tests' empty zone): every record absent, the domain not verified.
      const checked = await call(svc, 'mcp', 'emails.domain', { action: 'verifier' }, me);
      expect(checked.ok, checked.message).to.equal(true);
      expect(checked.body.domaine.etat).to.equal('incomplet');
      expect(checked.body.domaine.enregistrements.map((r: { etat: string }) => r.etat)).to.deep.equal(['absent', 'absent', 'absent']);
      expect(checked.body.domaine.verifie_a).to.match(/[+-]\d{2}:\d{2}$/);
      // The other organisation sees none of it.
      expect((await svc.rest('emails.domain', { action: 'consulter' }, { token: other.token })).json.domaine).to.equal(null);
    } finally {
      await setOrganisationPlan(svc.db, 'Organisation test', { emailOption: false });
      await svc.db('email_domains').delete();
    }
  });
});
