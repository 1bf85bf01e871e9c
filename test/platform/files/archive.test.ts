// A hostile or broken zip is refused whole, with a French reason naming the entry, before any entry is read: names climbing out or absolute, encrypted entries, too many entries, zip bombs, corrupt or truncated archives; a sound archive gives its files streamed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ARCHIVE_LIMITS, ArchiveError, readArchive, safeEntryName } from '../../../src/platform/files/archive.js';
import { zipOf } from '../../../scripts/demo/documents.js';

/** The same bytes with every occurrence of `from` replaced by `to` (same length): names and flags yazl refuses to write. */
function patched(zip: Buffer, from: string, to: string): Buffer {
  expect(from.length).to.equal(to.length);
  const out = Buffer.from(zip);
  let at = out.indexOf(from);
  expect(at).to.be.greaterThan(-1);
  while (at >= 0) {
    out.write(to, at, 'latin1');
    at = out.indexOf(from, at + 1);
  }
  return out;
}

/** Sets the "encrypted" bit of every entry, in the local headers and the central directory. */
function encryptedFlags(zip: Buffer): Buffer {
  const out = Buffer.from(zip);
  for (let i = 0; i < out.length - 4; i++) {
    const signature = out.readUInt32LE(i);
    if (signature === 0x04034b50) out.writeUInt16LE(out.readUInt16LE(i + 6) | 1, i + 6);
    if (signature === 0x02014b50) out.writeUInt16LE(out.readUInt16LE(i + 8) | 1, i + 8);
  }
  return out;
}

describe('zip archives', function () {
  this.timeout(20000);
  let dir: string;
  let n = 0;
  const file = (bytes: Buffer) => {
    const path = join(dir, `a${n++}.zip`);
    writeFileSync(path, bytes);
    return path;
  };
  const refusal = async (bytes: Buffer, limits = ARCHIVE_LIMITS) => {
    const err = await readArchive(file(bytes), 'dce.zip', limits).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ArchiveError);
    return (err as Error).message;
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'archive-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('tells names that stay inside the archive from those that climb out', () => {
    const cases: [string, boolean][] = [
      ['RC.pdf', true],
      ['Lot 1/CCTP.pdf', true],
      ['a/../b.pdf', false],
      ['../b.pdf', false],
      ['/etc/passwd', false],
      ['C:/Windows/x', false],
      ['..\\..\\x', false],
      ['a..b.pdf', true],
    ];
    for (const [name, safe] of cases) expect(safeEntryName(name), name).to.equal(safe);
  });

  it('gives the files of a sound archive, folders left out, each streamed', async () => {
    const zip = await zipOf([
      { name: 'DCE/', data: '' },
      { name: 'DCE/RC.txt', data: 'Règlement' },
      { name: 'DCE/Lot 1/CCTP.txt', data: 'Couverture' },
    ]);
    const { entries, close } = await readArchive(file(zip), 'dce.zip');
    try {
      expect(entries.map((e) => [e.name, e.size])).to.deep.equal([
        ['DCE/RC.txt', Buffer.byteLength('Règlement')],
        ['DCE/Lot 1/CCTP.txt', 10],
      ]);
      const chunks: Buffer[] = [];
      for await (const c of await (entries[1] as { open: () => Promise<AsyncIterable<Buffer>> }).open()) chunks.push(c);
      expect(Buffer.concat(chunks).toString()).to.equal('Couverture');
    } finally {
      close();
    }
  });

  it('refuses an entry climbing out of the folder or absolute', async () => {
    const zip = await zipOf([{ name: 'ok.txt', data: 'x' }, { name: 'zz/evil.txt', data: 'x' }]);
    expect(await refusal(patched(zip, 'zz/evil.txt', '../evil.txt'))).to.match(/^dce\.zip : une entrée de l'archive sort de son dossier|sort du dossier/);
    expect(await refusal(patched(zip, 'zz/evil.txt', '/zz/evil.tx'))).to.match(/sort (de son|du) dossier/);
  });

  it('refuses encrypted entries', async () => {
    const zip = await zipOf([{ name: 'RC.txt', data: 'secret' }]);
    expect(await refusal(encryptedFlags(zip))).to.match(/chiffrée/);
  });

  it('refuses too many entries, too large an entry or total, and a zip bomb', async () => {
    const zip = await zipOf([{ name: 'a.txt', data: 'a' }, { name: 'b.txt', data: 'b' }, { name: 'c.txt', data: 'c' }]);
    expect(await refusal(zip, { ...ARCHIVE_LIMITS, maxEntries: 2 })).to.equal("dce.zip : 3 entrées, plus que les 2 admises");
    expect(await refusal(zip, { ...ARCHIVE_LIMITS, maxTotalBytes: 2 })).to.match(/plus de 2 octets une fois décompressée/);
    const big = await zipOf([{ name: 'zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) }]);
    expect(await refusal(big)).to.match(/« zeros\.bin » est compressée plus de 200 fois \(bombe zip \?\)/);
    expect(await refusal(big, { ...ARCHIVE_LIMITS, maxRatio: 1e9, maxEntryBytes: 1024 })).to.match(/« zeros\.bin » fait 8388608 octets décompressée/);
  });

  it('refuses a truncated or corrupt archive', async () => {
    const zip = await zipOf([{ name: 'RC.txt', data: 'Règlement de la consultation' }]);
    expect(await refusal(zip.subarray(0, zip.length - 10))).to.match(/illisible/);
    expect(await refusal(Buffer.from('pas une archive du tout'))).to.match(/illisible/);
  });
});
