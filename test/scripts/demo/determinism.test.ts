// Demo data is deterministic: the same seed and date give byte-identical files; another seed gives other files.
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeDemoData } from '../../../scripts/demo/index.js';
import { SEED, smallDemo, tempDir, TODAY } from './fixture.js';

describe('demo data: determinism', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  it('writes byte-identical files for the same seed and date, different ones for another seed', async () => {
    const first = await smallDemo();
    const again = await writeDemoData({ scale: 'small', outDir: tempDir(), today: TODAY, seed: SEED });
    const other = await writeDemoData({ scale: 'small', outDir: tempDir(), today: TODAY, seed: SEED + 1 });
    expect(again.files.map((f) => f.name)).to.deep.equal(first.files.map((f) => f.name));
    expect(again.counts).to.deep.equal(first.counts);
    for (const f of first.files) {
      const a = await readFile(f.path);
      const b = await readFile(join(again.outDir, f.name));
      const c = await readFile(join(other.outDir, f.name));
      expect(a.equals(b), `${f.name} differs between two runs`).to.equal(true);
      expect(a.equals(c), `${f.name} is the same with another seed`).to.equal(false);
      expect(a.length, f.name).to.equal(f.bytes);
    }
  });

  it('moves the dates with --today', async () => {
    const later = await writeDemoData({ scale: 'small', outDir: tempDir(), today: '2027-01-15', seed: SEED });
    const doc = JSON.parse(await readFile(join(later.outDir, 'boamp/boamp.json'), 'utf8')) as { results: { dateparution: string }[] };
    const last = doc.results.map((r) => r.dateparution).sort().at(-1)!;
    expect(last <= '2027-01-15' && last >= '2026-12-01').to.equal(true);
  });

  it('refuses a bad date, scale or seed', async () => {
    const out = tempDir();
    await expectRejection(writeDemoData({ outDir: out, today: '2026-02-30' }), /date du jour invalide/);
    await expectRejection(writeDemoData({ outDir: out, scale: 'huge' as 'small' }), /échelle inconnue/);
    await expectRejection(writeDemoData({ outDir: out, seed: -1 }), /graine/);
  });
});

async function expectRejection(p: Promise<unknown>, message: RegExp): Promise<void> {
  try {
    await p;
  } catch (err) {
    expect((err as Error).message).to.match(message);
    return;
  }
  expect.fail('expected a rejection');
}
