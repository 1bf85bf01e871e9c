// `npm run demo-data` CLI: French error and exit code 2 on bad arguments; its options reach the generator (same bytes as in-process).
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { SEED, smallDemo, tempDir, TODAY } from './fixture.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import=tsx', 'scripts/demo-data.ts', ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('demo data: command line', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  it('refuses bad arguments with a French message and exit code 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--scale', 'huge'], /--scale doit valoir small ou large/],
      [['--bogus'], /option inconnue : --bogus/],
      [['--today', '2026-02-30'], /--today doit être une date AAAA-MM-JJ valide/],
      [['--seed', 'abc'], /--seed doit être un entier/],
      [['--out'], /valeur manquante pour l'option --out/],
      [['extra'], /argument inattendu/],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).to.equal(2);
      expect(r.stderr).to.match(/^Erreur : /);
      expect(r.stderr).to.match(cases[i]![1]);
      expect(r.stderr).to.include('Usage : npm run demo-data');
    });
  });

  it('writes the files it is asked for and prints a French summary', async () => {
    const out = tempDir();
    const r = await cli(['--scale', 'small', '--out', out, '--today', TODAY, '--seed', String(SEED)]);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.include(`Données de démonstration écrites dans ${out} (échelle small, graine ${SEED}, date du jour ${TODAY})`);
    expect(r.stdout).to.match(/sirene\/StockUniteLegale_utf8\.csv\s+2\s000 enregistrements/);
    expect(r.stdout).to.match(/Total .* en [\d,]+ s\./);
    const reference = await smallDemo();
    for (const f of reference.files) {
      const mine = await readFile(join(out, f.name));
      expect(mine.equals(await readFile(f.path)), f.name).to.equal(true);
    }
  });
});
