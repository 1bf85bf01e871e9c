// E-mail delivery through a real SMTP server: what arrives (From, Reply-To, content), retries after a refusal, a permanent refusal, DKIM signature once the organisation's domain is verified, and nothing sent twice after a worker's crash or a replayed key.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { claimEmail } from '../../../src/domains/emails/store.js';
import type { DnsResolver } from '../../../src/domains/emails/dns-check.js';
import { mcpClient } from '../../helpers/mcp.js';
import { freshDatabase, startTestService, type TestDatabaseUrl, type TestService } from '../../helpers/service.js';
import { startSmtp, until, type TestSmtp } from './smtp.js';

const TIMING = { tickMs: 40, retryBaseMs: 150, leaseMs: 600 };

/** A DNS zone the test writes: what the organisation "published". */
function zone(): { resolver: DnsResolver; txt: Map<string, string[][]>; cname: Map<string, string[]> } {
  const txt = new Map<string, string[][]>();
  const cname = new Map<string, string[]>();
  const absent = () => Object.assign(new Error('absent'), { code: 'ENOTFOUND' });
  return {
    txt,
    cname,
    resolver: {
      resolveTxt: async (name) => txt.get(name) ?? Promise.reject(absent()),
      resolveCname: async (name) => cname.get(name) ?? Promise.reject(absent()),
    },
  };
}

async function stateOf(svc: TestService, id: string): Promise<Record<string, unknown>> {
  return (await svc.db('email_messages').where({ id }).first()) as Record<string, unknown>;
}

describe('e-mail delivery over SMTP', function () {
  this.timeout(30000);
  let smtp: TestSmtp;
  let svc: TestService;
  let dns: ReturnType<typeof zone>;

  before(async () => {
    smtp = await startSmtp();
    dns = zone();
    svc = await startTestService({ config: { smtpUrl: smtp.url, mailTiming: TIMING, emailDnsResolver: dns.resolver } });
  });
  after(async () => {
    await svc.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.received.length = 0;
    smtp.attempts = 0;
    smtp.refuse = () => null;
  });

  it('delivers the caller’s message From the service with the organisation’s name and Reply-To the caller, then says envoyé with the SMTP answer', async () => {
    const { json, status } = await svc.rest('emails.send', {
      destinataires: ['acheteur@mairie-exemple.fr', 'Acheteur@Mairie-Exemple.FR'],
      copie: ['collegue@exemple.fr'],
      sujet: 'Question sur le lot 2 — dépose',
      texte: 'Bonjour,\n\nLe lot 2 comprend-il la dépose ?\n\nCordialement.',
      cle: 'question-lot-2',
    });
    expect(status, JSON.stringify(json)).to.equal(200);
    expect(json.cree).to.equal(true);
    // Case of the domain folded, the duplicate dropped.
    expect(json.courriel.destinataires).to.deep.equal(['acheteur@mairie-exemple.fr']);
    const got = await until(async () => smtp.received[0]);
    expect(got.parsed.from?.value).to.deep.equal([{ name: 'Organisation test', address: 'ne-pas-repondre@service.test' }]);
    expect(got.parsed.replyTo?.value[0]?.address).to.equal(svc.account.email);
    expect(got.parsed.subject).to.equal('Question sur le lot 2 — dépose');
    expect(got.parsed.text).to.equal('Bonjour,\n\nLe lot 2 comprend-il la dépose ?\n\nCordialement.\n');
    expect(got.parsed.html).to.equal(false);
    expect(got.parsed.messageId).to.equal(`<${json.courriel.id}@service.test>`);
    expect(got.envelope).to.deep.equal({ from: 'ne-pas-repondre@service.test', to: ['acheteur@mairie-exemple.fr', 'collegue@exemple.fr'] });
    expect(got.parsed.headers.has('dkim-signature')).to.equal(false);
    const row = await until(async () => {
      const r = await stateOf(svc, json.courriel.id);
      return r.state === 'envoye' ? r : null;
    });
    expect(row.attempts).to.equal(1);
    const listed = (await svc.rest('emails.list', { etat: ['envoye'] })).json.items.find((m: { id: string }) => m.id === json.courriel.id);
    expect(listed.derniere_reponse_smtp).to.equal('250 Message accepté pour remise');
    expect(listed.envoye_le).to.match(/[+-]\d{2}:\d{2}$/);
    expect(listed.remarque).to.equal(null);
  });

  it('retries after a temporary refusal, with the server’s answer kept, and delivers once', async () => {
    smtp.refuse = (attempt) => (attempt === 1 ? { code: 451, message: 'Boîte occupée, réessayez' } : null);
    const { json } = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Relance', texte: 'Texte.', cle: 'relance-1' });
    const afterRefusal = await until(async () => {
      const r = await stateOf(svc, json.courriel.id);
      return r.attempts === 1 && r.lease_until === null ? r : null;
    });
    expect(afterRefusal.state === 'en_attente' || afterRefusal.state === 'envoye').to.equal(true);
    const sent = await until(async () => {
      const r = await stateOf(svc, json.courriel.id);
      return r.state === 'envoye' ? r : null;
    });
    expect(sent.attempts).to.equal(2);
    expect(smtp.attempts).to.equal(2);
    expect(smtp.received).to.have.length(1);
  });

  it('ends in échec on a permanent refusal (5xx), with the answer, without retrying', async () => {
    smtp.refuse = () => ({ code: 550, message: 'Destinataire inconnu' });
    const { json } = await svc.rest('emails.send', { destinataires: ['inconnu@exemple.fr'], sujet: 'Refus', texte: 'Texte.', cle: 'refus-1' });
    const failed = await until(async () => {
      const r = await stateOf(svc, json.courriel.id);
      return r.state === 'echec' ? r : null;
    });
    expect(failed.attempts).to.equal(1);
    const listed = (await svc.rest('emails.list', { etat: ['echec'] })).json.items.find((m: { id: string }) => m.id === json.courriel.id);
    expect(listed.etat_libelle).to.equal('échec');
    expect(listed.derniere_reponse_smtp).to.equal('550 Destinataire inconnu');
    await new Promise((r) => setTimeout(r, 400));
    expect(smtp.attempts).to.equal(1);
  });

  it('signs with DKIM from the organisation’s domain once it is verified and the e-mail option is on', async () => {
    await setOrganisationPlan(svc.db, 'Organisation test', { emailOption: true });
    try {
      const set = await svc.rest('emails.domain', { action: 'definir', domaine: 'toitures-armor.fr', expediteur: 'devis' });
      expect(set.status, JSON.stringify(set.json)).to.equal(200);
      const records = set.json.domaine.enregistrements as { role: string; type: string; nom: string; valeur: string }[];
      expect(records.map((r) => [r.role, r.type])).to.deep.equal([['spf', 'TXT'], ['dkim', 'TXT'], ['retour', 'CNAME']]);
      // Not verified yet: still from the service, unsigned.
      const before = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Avant', texte: 'Texte.', cle: 'avant-dkim' });
      expect(before.json.courriel.expedition).to.equal('service');
      await until(async () => smtp.received.length === 1);
      // Published as given (the DKIM value split in 255-character strings, as DNS servers do).
      const [spf, dkim, retour] = records as [(typeof records)[0], (typeof records)[0], (typeof records)[0]];
      dns.txt.set(spf.nom, [[spf.valeur], ['google-site-verification=abc']]);
      dns.txt.set(dkim.nom, [dkim.valeur.match(/.{1,255}/g) as string[]]);
      dns.cname.set(retour.nom, [`${retour.valeur}.`]);
      const verified = await svc.rest('emails.domain', { action: 'verifier' });
      expect(verified.json.domaine.etat).to.equal('verifie');
      expect(verified.json.domaine.utilise_pour_envoi).to.equal(true);
      const { json } = await svc.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Signé', texte: 'Texte signé.', cle: 'apres-dkim' });
      expect(json.courriel.expedition).to.equal('domaine_organisation');
      expect(json.courriel.signe_dkim).to.equal(true);
      const got = await until(async () => smtp.received[1]);
      expect(got.parsed.from?.value[0]?.address).to.equal('devis@toitures-armor.fr');
      expect(got.parsed.replyTo?.value[0]?.address).to.equal(svc.account.email);
      expect(got.envelope.from).to.equal('rebonds@retour.toitures-armor.fr');
      // The header as sent (folded lines joined).
      const signature = /^DKIM-Signature:(.*(?:\r?\n[ \t].*)*)/im.exec(got.raw)?.[1]?.replace(/\r?\n[ \t]+/g, ' ') ?? '';
      expect(signature).to.contain('a=rsa-sha256');
      expect(signature).to.contain('d=toitures-armor.fr');
      expect(signature).to.contain(`s=${dkim.nom.split('.')[0]}`);
      // The private key never leaves: not in any answer.
      expect(JSON.stringify(verified.json)).to.not.contain('PRIVATE KEY');
    } finally {
      await setOrganisationPlan(svc.db, 'Organisation test', { emailOption: false });
    }
  });

  it('sends nothing twice when the same key comes again, on REST and MCP', async () => {
    const args = { destinataires: ['a@exemple.fr'], sujet: 'Une fois', texte: 'Une seule fois.', cle: 'une-fois' };
    const first = await svc.rest('emails.send', args);
    const mcp: Client = await mcpClient(`${svc.url}/api/mcp`, svc.token);
    const again: any = await mcp.callTool({ name: 'emails_envoyer', arguments: args });
    await mcp.close();
    expect(again.structuredContent.cree).to.equal(false);
    expect(again.structuredContent.courriel.id).to.equal(first.json.courriel.id);
    await until(async () => (await stateOf(svc, first.json.courriel.id)).state === 'envoye');
    await new Promise((r) => setTimeout(r, 300));
    expect(smtp.received.filter((m) => m.parsed.subject === 'Une fois')).to.have.length(1);
  });
});

describe('e-mail delivery after a crash', function () {
  this.timeout(30000);
  let smtp: TestSmtp;
  let database: TestDatabaseUrl;

  before(async () => {
    smtp = await startSmtp();
    database = freshDatabase();
    await database.prepare();
  });
  after(async () => {
    await smtp.close();
    await database.cleanup();
  });

  it('delivers, once, a message recorded before the service stopped and one whose worker died while holding it', async () => {
    // First life: no SMTP server configured, so nothing is delivered: the message is recorded only.
    const first = await startTestService({ database, config: { mailTiming: TIMING } });
    const recorded = (await first.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Enregistré', texte: 'Texte.', cle: 'avant-arret' })).json.courriel;
    expect(recorded.remarque).to.equal('non envoyé : aucun serveur SMTP configuré');
    // A second message claimed by a worker that dies before the SMTP call (its lease held, its attempt counted).
    const held = (await first.rest('emails.send', { destinataires: ['b@exemple.fr'], sujet: 'Tenu', texte: 'Texte.', cle: 'tenu' })).json.courriel;
    const claimed = await claimEmail(first.db, held.id, new Date(), TIMING.leaseMs);
    expect(claimed?.attempts).to.equal(1);
    await first.stop();

    // Second life, with an SMTP server: the recorded message goes at once, the held one once its lease has passed.
    const second = await startTestService({ database, config: { smtpUrl: smtp.url, mailTiming: TIMING } });
    try {
      await until(async () => smtp.received.length === 2);
      const subjects = smtp.received.map((m) => m.parsed.subject).sort();
      expect(subjects).to.deep.equal(['Enregistré', 'Tenu']);
      // The server's accept comes before the worker records it: wait for both records.
      await until(async () => (await stateOf(second, held.id)).state === 'envoye' && (await stateOf(second, recorded.id)).state === 'envoye');
      const heldRow = await stateOf(second, held.id);
      expect([heldRow.state, heldRow.attempts]).to.deep.equal(['envoye', 2]);
      // The caller retries the first call (same key): nothing more is sent.
      const replay = await second.rest('emails.send', { destinataires: ['a@exemple.fr'], sujet: 'Enregistré', texte: 'Texte.', cle: 'avant-arret' });
      expect([replay.json.cree, replay.json.courriel.id, replay.json.courriel.etat]).to.deep.equal([false, recorded.id, 'envoye']);
      await new Promise((r) => setTimeout(r, 300));
      expect(smtp.received).to.have.length(2);
      expect(new Set(smtp.received.map((m) => m.parsed.messageId)).size).to.equal(2);
    } finally {
      await second.stop();
    }
  });

  it('never gives a message to two workers at once (a claim is one conditional update)', async () => {
    const svc = await startTestService({ database, config: { mailTiming: TIMING } });
    try {
      const { json } = await svc.rest('emails.send', { destinataires: ['c@exemple.fr'], sujet: 'Course', texte: 'Texte.', cle: `course-${randomUUID()}` });
      const now = new Date();
      const claims = await Promise.all(Array.from({ length: 8 }, () => claimEmail(svc.db, json.courriel.id, now, TIMING.leaseMs)));
      expect(claims.filter(Boolean)).to.have.length(1);
    } finally {
      await svc.stop();
    }
  });
});
