// The account CLIs create accounts and change plans in the database of DATABASE_URL, refuse bad input with a French message and exit 2, and `npm run token` gets a working token through the real flow.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { openDatabase } from '../../../src/platform/db/database.js';
import { loadAccount } from '../../../src/auth/store/accounts.js';
import { freshDatabase, startTestService, type TestDatabaseUrl } from '../../helpers/service.js';

const exec = promisify(execFile);

async function run(script: string, args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', `scripts/${script}.ts`, ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('account CLIs', function () {
  this.timeout(30000);
  let database: TestDatabaseUrl;
  before(async () => {
    database = freshDatabase();
    await database.prepare();
  });
  after(async () => database.cleanup());

  it('creates an account in a new organisation, then one that joins it, then one without organisation', async () => {
    const first = await run('account-create', ['--email', 'Chef@Exemple.fr', '--password', 'Toiture-ardoise-Brest-1', '--organisation', 'Bâti Ouest', '--plan', 'subscribed'], database.databaseUrl);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stdout).to.include('chef@exemple.fr').and.include('Bâti Ouest').and.include('subscribed');
    const second = await run('account-create', ['--email', 'lecteur@exemple.fr', '--password', 'Toiture-ardoise-Brest-2', '--organisation', 'Bâti Ouest', '--role', 'lecteur'], database.databaseUrl);
    expect(second.code, second.stderr).to.equal(0);
    const alone = await run('account-create', ['--email', 'seul@exemple.fr', '--password', 'Toiture-ardoise-Brest-3'], database.databaseUrl);
    expect(alone.stdout).to.include('sans organisation');

    const db = openDatabase(database.databaseUrl);
    try {
      const users = await db('users').select('id', 'email', 'password_hash');
      const chef = users.find((u) => u.email === 'chef@exemple.fr');
      const lecteur = users.find((u) => u.email === 'lecteur@exemple.fr');
      expect(chef.password_hash).to.match(/^scrypt\$/).and.not.include('Toiture-ardoise-Brest-1');
      const a = await loadAccount(db, chef.id);
      const b = await loadAccount(db, lecteur.id);
      expect(a).to.include({ organisationName: 'Bâti Ouest', role: 'admin', plan: 'subscribed' });
      expect(b).to.include({ organisationId: a?.organisationId, role: 'lecteur', plan: 'subscribed' });
    } finally {
      await db.destroy();
    }
  });

  it('changes an organisation’s plan and options; refuses an unknown organisation', async () => {
    const ok = await run('account-plan', ['--organisation', 'Bâti Ouest', '--plan', 'free', '--email-option', 'yes'], database.databaseUrl);
    expect(ok.code, ok.stderr).to.equal(0);
    const db = openDatabase(database.databaseUrl);
    try {
      const org = await db('organisations').where({ name: 'Bâti Ouest' }).first();
      expect(org.plan).to.equal('free');
      expect(Boolean(org.email_option)).to.equal(true);
    } finally {
      await db.destroy();
    }
    const unknown = await run('account-plan', ['--organisation', 'Inconnue', '--plan', 'free'], database.databaseUrl);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.include('organisation inconnue');
  });

  const refusals: { name: string; script: string; args: string[]; message: RegExp }[] = [
    { name: 'a duplicate e-mail', script: 'account-create', args: ['--email', 'chef@exemple.fr', '--password', 'Zinguerie-du-port-2026'], message: /existe déjà/ },
    { name: 'a missing password', script: 'account-create', args: ['--email', 'x@exemple.fr'], message: /--password/ },
    { name: 'a short password', script: 'account-create', args: ['--email', 'x@exemple.fr', '--password', 'court'], message: /12 caractères au moins/ },
    { name: 'an unknown role', script: 'account-create', args: ['--email', 'x@exemple.fr', '--password', 'Zinguerie-du-port-2026', '--organisation', 'O', '--role', 'chef'], message: /--role/ },
    { name: 'an unknown plan', script: 'account-plan', args: ['--organisation', 'Bâti Ouest', '--plan', 'premium'], message: /--plan/ },
    { name: 'an unknown option', script: 'account-create', args: ['--email', 'x@exemple.fr', '--password', 'Zinguerie-du-port-2026', '--admin'], message: /--admin|Unknown option/ },
    { name: 'an invalid e-mail', script: 'account-create', args: ['--email', 'pas-un-courriel', '--password', 'Zinguerie-du-port-2026'], message: /invalide/ },
  ];
  for (const r of refusals) {
    it(`refuses ${r.name} with exit code 2 and a message, no stack`, async () => {
      const out = await run(r.script, r.args, database.databaseUrl);
      expect(out.code).to.equal(2);
      expect(out.stderr).to.match(r.message).and.not.match(/\bat \S+:\d+/);
    });
  }
});

describe('npm run token', function () {
  this.timeout(30000);
  it('prints a token obtained through the real flow, which the API accepts', async () => {
    const svc = await startTestService();
    try {
      const out = await run('token', ['--email', svc.account.email, '--password', svc.account.password, '--scope', 'mcp:read', '--url', svc.url], 'sqlite::memory:');
      expect(out.code, out.stderr).to.equal(0);
      const token = out.stdout.trim();
      expect(token).to.match(/^[A-Za-z0-9_-]{20,}$/);
      const me = await svc.rest('me', {}, { token });
      expect(me.json).to.deep.equal({ authenticated: true, tier: 'subscribed', scope: 'mcp:read' });
      const wrong = await run('token', ['--email', svc.account.email, '--password', 'mauvais', '--url', svc.url], 'sqlite::memory:');
      expect(wrong.code).to.equal(2);
      expect(wrong.stderr).to.include('Adresse électronique ou mot de passe incorrect');
    } finally {
      await svc.close();
    }
  });
});
