// Self-service accounts in Chromium against a real SMTP server: sign-up confirmed by e-mail, reset revoking every access, invitations and roles (a lecteur refused on writes, REST and MCP), removal and deletion ending tokens at once, erasure leaving nothing personal in any table, the export holding exactly the account's data, no account enumeration, rate limits, legal pages and metadata.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import yauzl from 'yauzl';
import { WRONG_CREDENTIALS } from '../../../src/auth/sign-in.js';
import { DELETED_AUTHOR } from '../../../src/domains/account/erasure.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import type { Database } from '../../../src/platform/db/database.js';
import { closeBrowser, expectRendered, launchBrowser } from '../../helpers/browser.js';
import { mcpClient } from '../../helpers/mcp.js';
import { freshDatabase, startTestService, usingPostgres, type TestDatabaseUrl, type TestService } from '../../helpers/service.js';
import { startSmtp, until, type Received, type TestSmtp } from '../emails/smtp.js';

const exec = promisify(execFile);
const PASSWORD = 'Charpente-ardoise-zinc-42';
const NEW_PASSWORD = 'Tuiles-mecaniques-rouges-7';
const MEMBER_PASSWORD = 'Lecteur-des-marches-2026';
const ALERT_TOOL = 'service_alerte';

/** Every row of every table, as JSON, that mentions one of `needles` (case-insensitive). */
async function rowsMentioning(db: Database, needles: string[]): Promise<string[]> {
  const tables: string[] = usingPostgres
    ? ((await db.raw(`select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`)).rows as { table_name: string }[]).map((r) => r.table_name)
    : ((await db.raw(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`)) as { name: string }[]).map((r) => r.name);
  expect(tables.length).to.be.greaterThan(20);
  const found: string[] = [];
  for (const table of tables) {
    for (const row of (await db(table).select()) as Record<string, unknown>[]) {
      const text = JSON.stringify(row).toLowerCase();
      if (needles.some((n) => text.includes(n.toLowerCase()))) found.push(`${table}: ${text.slice(0, 300)}`);
    }
  }
  return found;
}

/** The entries of a zip held in memory, by name, as text. */
function zipEntries(bytes: Buffer): Promise<Map<string, string>> {
  return new Promise((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, string>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks).toString('utf8'));
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    }),
  );
}

/** A small cookie jar for the form posts made without a browser. */
class Jar {
  cookies = new Map<string, string>();
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  take(res: Response): void {
    for (const c of res.headers.getSetCookie()) {
      const [pair = ''] = c.split(';');
      const i = pair.indexOf('=');
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
  }
}

describe('Self-service accounts and teams (Chromium, SMTP)', function () {
  this.timeout(60000);

  let smtp: TestSmtp;
  let database: TestDatabaseUrl;
  let svc: TestService;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const admin = { email: `fondatrice-${Date.now()}@charpentes.test`, password: PASSWORD, userId: '', organisationId: null as string | null };
  const member = { email: `lecteur-${Date.now()}@charpentes.test`, password: MEMBER_PASSWORD, userId: '', organisationId: null as string | null };
  const ORGANISATION = `Charpentes du Trégor ${Date.now()}`;

  before(async () => {
    smtp = await startSmtp();
    database = freshDatabase();
    await database.prepare();
    svc = await startTestService({ database, config: { smtpUrl: smtp.url, mailTiming: { tickMs: 50, retryBaseMs: 200, leaseMs: 10_000 } } });
    browser = await launchBrowser();
  });
  after(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await closeBrowser(browser);
    await svc?.close();
    await database?.cleanup();
    await smtp?.close();
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ locale: 'fr-FR' });
    contexts.push(context);
    return context.newPage();
  }

  /** The message to `to` whose subject contains `subject` (waits for the delivery worker). */
  const mailTo = (to: string, subject: string): Promise<Received> =>
    until(async () => smtp.received.find((m) => m.envelope.to.includes(to) && String(m.parsed.subject).includes(subject)), 15_000);

  function linkIn(message: Received): string {
    const url = /https?:\/\/\S+\/compte\/\S+/.exec(String(message.parsed.text))?.[0];
    expect(url, String(message.parsed.text)).to.be.a('string');
    return url as string;
  }

  async function signInPage(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${svc.url}/compte/connexion`);
    await page.locator('input[name="email"]').fill(email);
    await page.locator('input[name="password"]').fill(password);
    await page.getByRole('button', { name: 'Se connecter' }).click();
    await page.waitForLoadState('load');
  }

  /** A public form posted without a browser: its page read first for the CSRF cookie and field. */
  async function publicPost(path: string, fields: Record<string, string>, jar = new Jar()): Promise<{ status: number; text: string }> {
    const form = await fetch(`${svc.url}${path}`, { headers: { cookie: jar.header() } });
    jar.take(form);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
    });
    jar.take(res);
    return { status: res.status, text: await res.text() };
  }

  const mainText = (html: string) => (/<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? html).replace(/name="csrf" value="[^"]+"/g, '');

  it('sign-up: weak passwords refused, an e-mail in French (text and HTML) with a single-use link; no sign-in before confirmation; then sign-in and an MCP client authorised', async () => {
    const page = await newPage();
    await page.goto(`${svc.url}/compte/connexion`);
    await page.getByRole('link', { name: 'Créer un compte' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Créer un compte');
    await page.locator('input[name="email"]').fill(admin.email);
    await page.locator('input[name="organisation"]').fill(ORGANISATION);
    for (const [weak, expected] of [
      ['court', /trop court/],
      ['Azertyuiop2024!', /trop courant/],
      ['motdepassemotdepasse', /trop courant/],
    ] as const) {
      await page.locator('input[name="password"]').fill(weak);
      await page.getByRole('button', { name: 'Créer le compte' }).click();
      expect(await page.getByRole('alert').textContent()).to.match(expected);
      expect(await page.locator('input[name="email"]').inputValue()).to.equal(admin.email);
    }
    await page.locator('input[name="password"]').fill(PASSWORD);
    await expectRendered(page, 'accounts-sign-up', [page.locator('input[name="organisation"]'), page.getByRole('button', { name: 'Créer le compte' })]);
    await page.getByRole('button', { name: 'Créer le compte' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Vérifiez votre messagerie');

    // Pending: no account yet, so no sign-in, the same answer as a wrong password.
    await signInPage(page, admin.email, PASSWORD);
    expect(((await page.getByRole('alert').textContent()) ?? '').trim()).to.equal(WRONG_CREDENTIALS);
    expect(await svc.db('users').where('email', admin.email).first()).to.equal(undefined);

    const mail = await mailTo(admin.email, 'Confirmez votre adresse');
    expect(String(mail.parsed.text)).to.contain('24 heures').and.contain(ORGANISATION);
    expect(String(mail.parsed.html)).to.contain('Confirmer mon adresse');
    const url = linkIn(mail);
    // The link is stored hashed, and the outbox forgets the text once delivered: its token is nowhere in the database.
    await until(async () => (await svc.db('email_messages').where({ purpose: 'compte', state: 'envoye' }).whereRaw('recipients_to like ?', [`%${admin.email}%`]).first('id')) ?? null);
    expect(await rowsMentioning(svc.db, [url.split('/').at(-1) as string])).to.deep.equal([]);
    await page.goto(url);
    await page.getByRole('button', { name: 'Confirmer et créer le compte' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Compte créé');
    // Single use.
    await page.goto(url);
    expect(await page.locator('h1').textContent()).to.equal('Lien invalide ou expiré');

    await signInPage(page, admin.email, PASSWORD);
    expect(new URL(page.url()).pathname).to.equal('/compte/acces-ia');
    const user = await svc.db('users').where('email', admin.email).first('id');
    admin.userId = user.id as string;
    const account = await svc.db('memberships').where('user_id', admin.userId).first('organisation_id', 'role');
    expect(account.role).to.equal('admin');
    admin.organisationId = account.organisation_id as string;
    expect((await svc.db('organisations').where('id', admin.organisationId).first('plan')).plan).to.equal('free');

    // An MCP client through the real OAuth flow (login and consent forms).
    const token = await svc.tokenFor(admin);
    const me = await svc.rest('me', null, { token });
    expect(me.status).to.equal(200);
    expect(me.json.tier).to.equal('free');
  });

  it('forgotten password: the same answer for an unknown address; the link sets a new password and ends every token and web session', async () => {
    const token = await svc.tokenFor(admin);
    const signedIn = await newPage();
    await signInPage(signedIn, admin.email, PASSWORD);

    const unknown = await publicPost('/compte/mot-de-passe-oublie', { email: `personne-${Date.now()}@charpentes.test` });
    const known = await publicPost('/compte/mot-de-passe-oublie', { email: admin.email });
    expect([unknown.status, known.status]).to.deep.equal([200, 200]);
    expect(mainText(unknown.text)).to.equal(mainText(known.text));

    const page = await newPage();
    await page.goto(`${svc.url}/compte/connexion`);
    await page.getByRole('link', { name: 'Mot de passe oublié ?' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Mot de passe oublié');
    const mail = await mailTo(admin.email, 'nouveau mot de passe');
    expect(String(mail.parsed.text)).to.contain('une heure');
    await page.goto(linkIn(mail));
    await page.locator('input[name="password"]').fill('trop-court');
    await page.locator('input[name="confirmation"]').fill('trop-court');
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    expect(await page.getByRole('alert').textContent()).to.match(/trop court/);
    await page.locator('input[name="password"]').fill(NEW_PASSWORD);
    await page.locator('input[name="confirmation"]').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Enregistrer le mot de passe' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Mot de passe modifié');
    admin.password = NEW_PASSWORD;

    expect((await svc.rest('me', null, { token })).status, 'the token of before answers 401').to.equal(401);
    await signedIn.goto(`${svc.url}/compte`);
    expect(new URL(signedIn.url()).pathname, 'the web session of before is closed').to.equal('/compte/connexion');
    await signInPage(signedIn, admin.email, PASSWORD);
    expect(((await signedIn.getByRole('alert').textContent()) ?? '').trim()).to.equal(WRONG_CREDENTIALS);
    await signInPage(signedIn, admin.email, NEW_PASSWORD);
    expect(new URL(signedIn.url()).pathname).to.equal('/compte/acces-ia');
    // No mail was sent to the unknown address.
    expect(smtp.received.filter((m) => m.envelope.to.some((t) => t.startsWith('personne-')))).to.have.length(0);
  });

  it('invitation as lecteur: accepted with a new password; the member reads the workspace and is refused writes (role_denied, REST and MCP); the last administrator can be neither demoted nor removed; removal ends the member’s token at once', async () => {
    await setOrganisationPlan(svc.db, ORGANISATION, { plan: 'subscribed' });
    const adminToken = await svc.tokenFor(admin);
    const alert = await svc.rest('alertes.create', { name: 'Charpente Trégor', query: 'charpente, couverture' }, { token: adminToken });
    expect(alert.status, JSON.stringify(alert.json)).to.equal(200);

    const page = await newPage();
    await signInPage(page, admin.email, admin.password);
    await page.goto(`${svc.url}/compte/organisation`);
    await page.locator('#invite-email').fill(member.email);
    await page.locator('#invite-role').selectOption('lecteur');
    await page.getByRole('button', { name: 'Envoyer l’invitation' }).click();
    expect(await page.getByRole('status').textContent()).to.contain(`Invitation envoyée à ${member.email}`);
    expect(await page.locator('main').textContent()).to.contain('Sièges : 1 membre × 12 € HT = 12 € HT par mois');

    const mail = await mailTo(member.email, 'Invitation à rejoindre');
    expect(String(mail.parsed.text)).to.contain('7 jours').and.contain('lecteur');
    const invitee = await newPage();
    await invitee.goto(linkIn(mail));
    expect(await invitee.locator('main').textContent()).to.contain(ORGANISATION);
    await invitee.locator('input[name="password"]').fill(MEMBER_PASSWORD);
    await expectRendered(invitee, 'accounts-invitation', [invitee.getByRole('button', { name: 'Rejoindre l’organisation' })]);
    await invitee.getByRole('button', { name: 'Rejoindre l’organisation' }).click();
    expect(new URL(invitee.url()).pathname).to.equal('/compte');
    expect(await invitee.getByRole('status').textContent()).to.contain('Bienvenue');
    member.userId = (await svc.db('users').where('email', member.email).first('id')).id as string;

    const memberToken = await svc.tokenFor(member);
    const list = await svc.rest('alertes.list', {}, { token: memberToken });
    expect(list.status, JSON.stringify(list.json)).to.equal(200);
    expect(JSON.stringify(list.json)).to.contain('Charpente Trégor');
    const write = await svc.rest('alertes.create', { name: 'Du lecteur', query: 'couverture' }, { token: memberToken });
    expect([write.status, write.json.error?.code]).to.deep.equal([403, 'role_denied']);
    const mcp = await mcpClient(`${svc.url}/api/mcp`, memberToken);
    try {
      const result = await mcp.callTool({ name: ALERT_TOOL, arguments: { action: 'add', name: 'Du lecteur', query: 'couverture' } });
      expect(result.isError).to.equal(true);
      expect((result.content as { text: string }[])[0]?.text).to.equal(write.json.error.message);
    } finally {
      await mcp.close();
    }
    // A lecteur does not manage the organisation.
    await invitee.goto(`${svc.url}/compte/organisation`);
    expect(await invitee.locator('h1').textContent()).to.equal('Réservé aux administrateurs');

    // The last administrator cannot demote herself.
    await page.goto(`${svc.url}/compte/organisation`);
    await page.getByLabel(`Rôle de ${admin.email}`).selectOption('membre');
    await page.locator('tr', { hasText: admin.email }).getByRole('button', { name: 'Changer' }).click();
    expect(await page.getByRole('alert').textContent()).to.contain('au moins un administrateur');
    expect((await svc.db('memberships').where('user_id', admin.userId).first('role')).role).to.equal('admin');
    await expectRendered(page, 'accounts-organisation', [page.locator('table').first()]);

    // Removal: the member's token answers 401 on the next call.
    expect((await svc.rest('me', null, { token: memberToken })).status).to.equal(200);
    await page.locator('tr', { hasText: member.email }).getByRole('button', { name: 'Retirer' }).click();
    expect(await page.getByRole('status').textContent()).to.contain('Membre retiré');
    expect((await svc.rest('me', null, { token: memberToken })).status).to.equal(401);
    await invitee.goto(`${svc.url}/compte`);
    expect(new URL(invitee.url()).pathname).to.equal('/compte/connexion');

    // The activity log shows who did what, never a password or a token.
    await page.goto(`${svc.url}/compte/journal`);
    const log = (await page.locator('main').textContent()) ?? '';
    for (const label of ['Invitation envoyée', 'Invitation acceptée', 'Membre retiré', 'Mot de passe réinitialisé', 'Connexion', 'Accès IA accordé']) expect(log).to.contain(label);
    for (const secret of [PASSWORD, NEW_PASSWORD, MEMBER_PASSWORD, memberToken, adminToken]) expect(log).to.not.contain(secret);
    expect(log).to.contain('IPv4 127.0.0.0/24');
  });

  it('export: a signed link to a zip of JSON files with exactly the account’s organisation’s data', async () => {
    // Another organisation's draft must not appear.
    const foreign = await svc.rest('alertes.create', { name: 'Secret d’une autre organisation', query: 'couverture' });
    expect(foreign.status, JSON.stringify(foreign.json)).to.equal(200);
    const page = await newPage();
    await signInPage(page, admin.email, admin.password);
    await page.goto(`${svc.url}/compte`);
    await page.getByRole('button', { name: 'Préparer l’export' }).click();
    const href = (await page.locator('#lien-export').getAttribute('href')) as string;
    expect(href).to.match(/\/compte\/export\/[A-Za-z0-9_.-]+$/);
    // The link works without the session (a download manager), and not once altered.
    const res = await fetch(href);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/zip');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    const entries = await zipEntries(Buffer.from(await res.arrayBuffer()));
    expect([...entries.keys()].sort()).to.deep.equal(
      ['abonnements-evenements.json', 'acces-ia.json', 'alertes.json', 'brouillons.json', 'compte.json', 'courriels.json', 'dossiers.json', 'journal.json', 'organisation.json', 'suivis.json'].sort(),
    );
    const account = JSON.parse(entries.get('compte.json') as string);
    expect(account.email).to.equal(admin.email);
    expect(account).to.not.have.property('password_hash');
    expect(JSON.parse(entries.get('organisation.json') as string).name).to.equal(ORGANISATION);
    const alerts = JSON.parse(entries.get('alertes.json') as string) as { name: string; organisation_id: string }[];
    expect(alerts.map((a) => [a.name, a.organisation_id])).to.deep.equal([['Charpente Trégor', admin.organisationId]]);
    const all = [...entries.values()].join('\n');
    expect(all).to.not.contain('Secret d’une autre organisation');
    expect(all).to.not.contain(svc.account.organisationId as string);
    expect(all).to.not.contain(member.email);
    const forged = await fetch(`${href.slice(0, -3)}abc`);
    expect(forged.status).to.equal(403);
  });

  it('deletion: refused without confirmation; then nothing personal left in any table, tokens dead, authorship « compte supprimé », the organisation due for deletion in 30 days', async () => {
    const token = await svc.tokenFor(admin);
    const page = await newPage();
    await signInPage(page, admin.email, admin.password);
    await page.goto(`${svc.url}/compte`);
    const form = page.locator('form[action="/compte/supprimer"]');
    await form.locator('input[name="password"]').fill('pas-le-bon-mot-de-passe');
    await form.locator('input[name="confirmation"]').check();
    await form.getByRole('button', { name: 'Supprimer mon compte' }).click();
    expect(await page.getByRole('alert').textContent()).to.contain('Mot de passe actuel incorrect');
    const again = page.locator('form[action="/compte/supprimer"]');
    await again.locator('input[name="password"]').fill(admin.password);
    await again.locator('input[name="confirmation"]').check();
    await again.getByRole('button', { name: 'Supprimer mon compte' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Compte supprimé');

    expect((await svc.rest('me', null, { token })).status).to.equal(401);
    expect(await rowsMentioning(svc.db, [admin.email, admin.userId])).to.deep.equal([]);
    const alert = await svc.db('alerts').where('organisation_id', admin.organisationId).first('created_by', 'name');
    expect(alert).to.deep.equal({ created_by: DELETED_AUTHOR, name: 'Charpente Trégor' });
    const org = await svc.db('organisations').where('id', admin.organisationId).first('deletion_due_at');
    const due = new Date(org.deletion_due_at as string).getTime() - Date.now();
    expect(due).to.be.within(29.9 * 86_400_000, 30 * 86_400_000);
    await signInPage(page, admin.email, admin.password);
    expect(((await page.getByRole('alert').textContent()) ?? '').trim()).to.equal(WRONG_CREDENTIALS);
  });

  it('npm run account:delete -- --email E --yes: the same erasure; without --yes nothing is deleted', async () => {
    const account = await svc.createAccount({ organisation: null });
    const run = async (args: string[]) => {
      try {
        const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', 'scripts/account-delete.ts', ...args], { env: { ...process.env, DATABASE_URL: database.databaseUrl } });
        return { code: 0, stdout, stderr };
      } catch (err) {
        return err as { code: number; stdout: string; stderr: string };
      }
    };
    const refused = await run(['--email', account.email]);
    expect(refused.code).to.equal(2);
    expect(refused.stderr).to.contain('--yes');
    expect(await svc.db('users').where('id', account.userId).first('id')).to.not.equal(undefined);
    const done = await run(['--email', account.email, '--yes']);
    expect(done.code, done.stderr).to.equal(0);
    expect(done.stdout).to.contain(`Compte supprimé : ${account.email}`);
    expect(await rowsMentioning(svc.db, [account.email, account.userId])).to.deep.equal([]);
    expect((await run(['--email', account.email, '--yes'])).code).to.equal(2);
  });

  it('no enumeration: sign-up answers the same for an existing address (whose owner is told by e-mail); rate limits per e-mail', async () => {
    const existing = svc.account.email;
    const fresh = `nouvelle-${Date.now()}@charpentes.test`;
    const a = await publicPost('/compte/inscription', { email: existing, organisation: `Orga A ${Date.now()}`, password: PASSWORD });
    const b = await publicPost('/compte/inscription', { email: fresh, organisation: `Orga B ${Date.now()}`, password: PASSWORD });
    expect([a.status, b.status]).to.deep.equal([200, 200]);
    expect(mainText(a.text)).to.equal(mainText(b.text));
    const told = await mailTo(existing, 'Tentative de création de compte');
    expect(String(told.parsed.text)).to.contain('Mot de passe oublié');
    // The same e-mail: 5 requests within the window, the next waits (the sign-in throttle's rule).
    const limited = `limite-${Date.now()}@charpentes.test`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await publicPost('/compte/inscription', { email: limited, organisation: `Orga L${i} ${Date.now()}`, password: PASSWORD })).status);
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 429]);
    for (let i = 0; i < 5; i++) await publicPost('/compte/mot-de-passe-oublie', { email: limited });
    const sixth = await publicPost('/compte/mot-de-passe-oublie', { email: limited });
    expect(sixth.status).to.equal(429);
    expect(sixth.text).to.contain('Trop de demandes');
    // A form posted without its CSRF cookie is refused.
    const csrfless = await fetch(`${svc.url}/compte/inscription`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'csrf=x&email=a%40b.fr' });
    expect(csrfless.status).to.equal(403);
  });

  it('Mon compte: a change of address confirmed on the new address only; a password change closes the other sessions; the last member leaving schedules the organisation’s deletion', async () => {
    const account = await svc.createAccount({ organisation: `Menuiserie ${Date.now()}` });
    const other = await newPage();
    await signInPage(other, account.email, account.password);
    const page = await newPage();
    await signInPage(page, account.email, account.password);
    await page.goto(`${svc.url}/compte`);
    await expectRendered(page, 'accounts-my-account', [page.getByRole('button', { name: 'Supprimer mon compte' })]);

    const newEmail = `nouvelle-adresse-${Date.now()}@menuiserie.test`;
    const change = page.locator('form[action="/compte/adresse"]');
    await change.locator('input[name="email"]').fill(newEmail);
    await change.locator('input[name="password"]').fill(account.password);
    await change.getByRole('button').click();
    expect(await page.getByRole('status').textContent()).to.contain('lien de confirmation');
    expect((await svc.db('users').where('id', account.userId).first('email')).email, 'unchanged until confirmed').to.equal(account.email);
    const mail = await mailTo(newEmail, 'Confirmez votre nouvelle adresse');
    await page.goto(linkIn(mail));
    await page.getByRole('button', { name: 'Confirmer la nouvelle adresse' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Adresse modifiée');
    expect((await svc.db('users').where('id', account.userId).first('email')).email).to.equal(newEmail);

    await page.goto(`${svc.url}/compte`);
    const password = page.locator('form[action="/compte/mot-de-passe"]');
    await password.locator('input[name="actuel"]').fill(account.password);
    await password.locator('input[name="nouveau"]').fill('123456789012');
    await password.getByRole('button').click();
    expect(await page.getByRole('alert').textContent()).to.match(/trop courant/);
    const again = page.locator('form[action="/compte/mot-de-passe"]');
    await again.locator('input[name="actuel"]').fill(account.password);
    await again.locator('input[name="nouveau"]').fill(NEW_PASSWORD);
    await again.getByRole('button').click();
    expect(await page.getByRole('status').textContent()).to.contain('Mot de passe modifié');
    await other.goto(`${svc.url}/compte`);
    expect(new URL(other.url()).pathname, 'the other session is closed').to.equal('/compte/connexion');
    await page.goto(`${svc.url}/compte`);
    expect(new URL(page.url()).pathname, 'this session stays').to.equal('/compte');

    const leave = page.locator('form[action="/compte/quitter"]');
    await leave.locator('input[name="password"]').fill(NEW_PASSWORD);
    await leave.getByRole('button').click();
    expect(await page.getByRole('status').textContent()).to.contain('supprimée avec son espace de travail dans 30 jours');
    expect(await svc.db('memberships').where('user_id', account.userId).first()).to.equal(undefined);
    expect((await svc.db('organisations').where('id', account.organisationId).first('deletion_due_at')).deletion_due_at).to.be.a('string');
  });

  it('legal pages from configuration, linked from every page’s footer and published in the OAuth and resource metadata', async () => {
    const page = await newPage();
    await page.goto(`${svc.url}/compte/connexion`);
    await page.locator('footer').getByRole('link', { name: 'Confidentialité' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Politique de confidentialité');
    expect(await page.locator('main').textContent()).to.contain('Exploitant de test SAS');
    for (const [path, title] of [
      ['/conditions-utilisation', 'Conditions d’utilisation'],
      ['/mentions-legales', 'Mentions légales'],
      ['/support', 'Assistance'],
    ]) {
      await page.goto(`${svc.url}${path}`);
      expect(await page.locator('h1').textContent()).to.equal(title);
    }
    expect(await page.locator('main').textContent()).to.contain('support@service.test');
    const as = (await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, string>;
    expect(as.op_policy_uri).to.equal(`${svc.url}/confidentialite`);
    expect(as.op_tos_uri).to.equal(`${svc.url}/conditions-utilisation`);
    const resource = (await (await fetch(`${svc.url}/.well-known/oauth-protected-resource`)).json()) as Record<string, string>;
    expect(resource.resource_policy_uri).to.equal(`${svc.url}/confidentialite`);
    expect(resource.resource_tos_uri).to.equal(`${svc.url}/conditions-utilisation`);
  });
});
