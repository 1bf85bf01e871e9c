// Every command-line tool answers --help in French and refuses an unknown option in French (exit 2, no stack); the tools that reach the service take its address as the service computes it (PUBLIC_URL, HOST/PORT) or, without them, from the address the service recorded in the database, and say which address they used.
import { execFile } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { freshDatabase, startTestService, type TestDatabaseUrl } from '../../helpers/service.js';

const exec = promisify(execFile);

/** The scripts behind the npm scripts of package.json, with the command that runs them. */
const COMMANDS: { script: string; command: string }[] = [
  { script: 'start', command: 'npm start' },
  { script: 'token', command: 'npm run token' },
  { script: 'account-create', command: 'npm run account:create' },
  { script: 'account-plan', command: 'npm run account:plan' },
  { script: 'account-delete', command: 'npm run account:delete' },
  { script: 'import', command: 'npm run import' },
  { script: 'robot', command: 'npm run robot' },
  { script: 'demo-data', command: 'npm run demo-data' },
  { script: 'sync', command: 'npm run sync' },
  { script: 'fuzz', command: 'npm run fuzz' },
  { script: 'bench', command: 'npm run bench' },
  { script: 'generate', command: 'npm run generate' },
];

/** The environment of a terminal where the service's variables were not given. */
function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'silent' };
  for (const name of ['PORT', 'HOST', 'PUBLIC_URL', 'DATABASE_URL']) delete env[name];
  return { ...env, ...extra };
}

async function run(script: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', `scripts/${script}.ts`, ...args], { env: bareEnv(env), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Two at a time: the machine's two cores are shared. */
async function inPairs<T, R>(items: readonly T[], task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(...(await Promise.all(items.slice(i, i + 2).map(task))));
  return out;
}

/** A loopback port nothing listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const english = /\b(Usage:|Unknown option|Options:|argument missing|does not take|Unexpected argument|TypeError|Error:)/;
const stack = /\n\s+at |node:internal|\.ts:\d+/;

describe('command-line tools: help and options', function () {
  this.timeout(300_000);
  let database: TestDatabaseUrl;
  before(async () => {
    database = freshDatabase();
    await database.prepare();
  });
  after(async () => database.cleanup());

  it('answer --help in French with how they are typed, exit 0 and touch nothing', async () => {
    const answers = await inPairs(COMMANDS, async (c) => ({ ...c, out: await run(c.script, ['--help'], { DATABASE_URL: database.databaseUrl }) }));
    for (const { command, out } of answers) {
      expect(out.code, `${command} : ${out.stderr}`).to.equal(0);
      expect(out.stdout, command).to.include(command);
      expect(out.stdout, command).to.match(/[éèàçù]/);
      expect(out.stdout + out.stderr, command).to.not.match(english);
    }
  });

  it('refuse an unknown option in French with the usage and the way to the help, exit 2, no stack', async () => {
    const answers = await inPairs(COMMANDS, async (c) => ({ ...c, out: await run(c.script, ['--inconnue'], { DATABASE_URL: database.databaseUrl }) }));
    for (const { command, out } of answers) {
      expect(out.code, `${command} : ${out.stderr}`).to.equal(2);
      expect(out.stderr, command).to.match(/^Erreur : option inconnue : --inconnue\n/);
      expect(out.stderr, command).to.include(`Aide : ${command} -- --help`);
      expect(out.stderr, command).to.not.match(english).and.not.match(stack);
    }
  });

  it('refuse a missing value and an argument where none is expected, in French', async () => {
    const missing = await run('token', ['--email']);
    expect(missing.code).to.equal(2);
    expect(missing.stderr).to.match(/^Erreur : valeur manquante pour l'option --email\n/);
    const positional = await run('account-delete', ['quelqu-un@exemple.fr']);
    expect(positional.code).to.equal(2);
    expect(positional.stderr).to.match(/^Erreur : argument inattendu : quelqu-un@exemple.fr\n/);
    const flag = await run('account-delete', ['--yes=oui', '--email', 'x@exemple.fr']);
    expect(flag.code).to.equal(2);
    expect(flag.stderr).to.match(/^Erreur : l'option --yes ne prend pas de valeur\n/);
  });
});

describe('npm run token: the service’s address', function () {
  this.timeout(120_000);

  it('aims at PORT as the service computes it and, when nothing listens there, says so with the address and what to do', async () => {
    const database = freshDatabase();
    await database.prepare();
    try {
      const port = String(await closedPort());
      const out = await run('token', ['--email', 'x@exemple.fr', '--password', 'motdepasse'], { PORT: port, DATABASE_URL: database.databaseUrl });
      expect(out.code).to.equal(2);
      expect(out.stderr).to.include(`Service visé : http://127.0.0.1:${port} (PORT=${port}).`);
      expect(out.stderr).to.include(`aucun service n’écoute à cette adresse : http://127.0.0.1:${port} (PORT=${port})`);
      expect(out.stderr).to.include('--url').and.not.match(stack);
      const publicUrl = await run('token', ['--email', 'x@exemple.fr', '--password', 'motdepasse'], { PUBLIC_URL: `http://127.0.0.1:${port}/`, PORT: '4000', DATABASE_URL: database.databaseUrl });
      expect(publicUrl.stderr).to.include(`Service visé : http://127.0.0.1:${port} (PUBLIC_URL).`);
      const badUrl = await run('token', ['--email', 'x@exemple.fr', '--password', 'motdepasse', '--url', 'ftp://exemple.fr']);
      expect(badUrl.code).to.equal(2);
      expect(badUrl.stderr).to.match(/^Erreur : --url attend une adresse http ou https/);
    } finally {
      await database.cleanup();
    }
  });

  it('without PORT, PUBLIC_URL or --url, finds a service started on another port through the address it recorded in the database', async () => {
    const database = freshDatabase();
    await database.prepare();
    const svc = await startTestService({ database });
    try {
      expect(new URL(svc.url).port).to.not.equal('3000');
      const out = await run('token', ['--email', svc.account.email, '--password', svc.account.password, '--scope', 'mcp:read'], { DATABASE_URL: database.databaseUrl });
      expect(out.code, out.stderr).to.equal(0);
      expect(out.stderr).to.include(`Service visé : ${svc.url} (adresse enregistrée par le service à son dernier démarrage`);
      const me = await svc.rest('me', {}, { token: out.stdout.trim() });
      expect(me.status).to.equal(200);
    } finally {
      await svc.close();
      await database.cleanup();
    }
  });
});
