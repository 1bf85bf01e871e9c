// Rule: a zip read through openInput lets go of its file once its entry is read or given up (a long-lived process, the synchronisation, must not hold a deleted multi-megabyte download open).
import { createWriteStream, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import yazl from 'yazl';
import { openInput } from '../../src/import/input.js';

/** The descriptors of this process open on `path` (Linux's /proc). */
function openOn(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n += 1;
    } catch {
      // closed meanwhile
    }
  }
  return n;
}

const settle = () => new Promise((r) => setTimeout(r, 50));

describe('import input: zip files', () => {
  let dir: string;
  let zipPath: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'input-zip-'));
    zipPath = join(dir, 'StockUniteLegale_utf8.zip');
    const lines = ['siren,denominationUniteLegale', ...Array.from({ length: 200_000 }, (_, i) => `${String(100_000_000 + i)},SOCIETE ${(i * 7919) % 100_003}`)];
    await new Promise<void>((resolve, reject) => {
      const zip = new yazl.ZipFile();
      zip.addBuffer(Buffer.from('lisez-moi'), 'LISEZMOI.txt.md');
      zip.addBuffer(Buffer.from(lines.join('\n')), 'StockUniteLegale_utf8.csv');
      zip.end();
      zip.outputStream.pipe(createWriteStream(zipPath)).on('close', () => resolve()).on('error', reject);
    });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('closes the file when its entry is read to the end', async () => {
    const input = await openInput(zipPath);
    expect(input.name).to.equal('StockUniteLegale_utf8.csv');
    let bytes = 0;
    for await (const chunk of input.stream as AsyncIterable<Buffer>) bytes += chunk.length;
    expect(bytes).to.be.greaterThan(3_000_000);
    await settle();
    expect(openOn(zipPath)).to.equal(0);
  });

  it('closes the file when the reader gives up before the end', async () => {
    const input = await openInput(zipPath);
    for await (const chunk of input.stream as AsyncIterable<Buffer>) {
      expect(chunk.length).to.be.greaterThan(0);
      break;
    }
    await settle();
    expect(openOn(zipPath)).to.equal(0);
  });
});
