// `npm run import` exits 0 only when every file was read to its end and gave records: an unknown source or no file exits 2, a file in another layout, a truncated one or a missing one exits 1 with a French message and no stack trace, keeping what was read.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { openDatabase } from '../../../src/platform/db/database.js';
import { freshDatabase, type TestDatabaseUrl } from '../../helpers/service.js';

const exec = promisify(execFile);
const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/', import.meta.url));

async function runImport(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, ['--import=tsx', 'scripts/import.ts', ...args], { env: { ...process.env, DATABASE_URL: databaseUrl } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const noStack = (text: string) => expect(text).to.not.match(/\n\s+at |node:internal|\.ts:\d+/);

describe('import CLI exit codes', function () {
  this.timeout(60000);
  let database: TestDatabaseUrl;
  let dir: string;
  before(async () => {
    database = freshDatabase();
    await database.prepare();
    dir = mkdtempSync(join(tmpdir(), 'import-cli-'));
  });
  after(async () => {
    await database.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });
  const count = async (table: string) => {
    const db = openDatabase(database.databaseUrl);
    try {
      const [{ n }] = (await db(table).count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
      return Number(n);
    } finally {
      await db.destroy();
    }
  };

  it('exits 2 on an unknown source or without a file, naming the sources', async () => {
    const unknown = await runImport(['registre-inconnu', 'x.json'], database.databaseUrl);
    expect(unknown.code).to.equal(2);
    expect(unknown.stderr).to.match(/^Erreur : source inconnue : registre-inconnu\. Sources : .*decp/);
    const none = await runImport(['decp'], database.databaseUrl);
    expect(none.code).to.equal(2);
    expect(none.stderr).to.include('aucun fichier à importer');
  });

  it('exits 0 on a real file that imports', async () => {
    const ok = await runImport(['boamp', join(SAMPLES, 'boamp/boamp-explore-v2.1-records-limit5-jpbenga.json')], database.databaseUrl);
    expect(ok.code, ok.stderr).to.equal(0);
    expect(ok.stdout).to.match(/4 lus, 4 ajoutés, 0 mis à jour, 0 écartés/);
    expect(await count('notices')).to.equal(4);
  });

  it('exits 1 on a file of another source’s layout, saying which layouts are understood', async () => {
    const wrong = await runImport(['decp', join(SAMPLES, 'boamp/boamp-explore-v2.1-records-limit5-jpbenga.json')], database.databaseUrl);
    expect(wrong.code).to.equal(1);
    expect(wrong.stderr).to.match(/rien d'importé.*formats compris/);
    noStack(wrong.stderr);
  });

  it('exits 1 on a truncated file, keeping the records read before and saying where reading stopped', async () => {
    const text = readFileSync(join(SAMPLES, 'decp/decp-2024-megalis-59920013600241-2024-07-09-01.json'), 'utf8');
    // Cut inside the third contract (each has one `_type`): the first two are whole.
    const third = text.indexOf('"_type"', text.indexOf('"_type"', text.indexOf('"_type"') + 1) + 1);
    expect(third).to.be.greaterThan(0);
    const cut = third + 100;
    const truncated = join(dir, 'tronque.json');
    writeFileSync(truncated, text.slice(0, cut));
    const before = await count('awards');
    const result = await runImport(['decp', truncated], database.databaseUrl);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.match(/^Erreur : .*lecture arrêtée à l'enregistrement 3, après l'octet \d+ : fichier tronqué.*les 2 enregistrements lus avant sont gardés/m);
    noStack(result.stderr + result.stdout);
    expect(await count('awards')).to.equal(before + 2);
  });

  it('exits 1 on a missing file and goes on with the next one', async () => {
    const result = await runImport(['boamp', join(dir, 'absent.json'), join(SAMPLES, 'boamp/boamp-explore-v2.1-records-limit5-jpbenga.json')], database.databaseUrl);
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include('absent.json');
    expect(result.stdout).to.match(/4 lus, 0 ajoutés, 4 mis à jour/);
    noStack(result.stderr);
  });
});
