// A consultation file is attached whole or not at all: its archives unpacked (one nested level), every piece's text extracted and cut into reading pages, kinds and lots recognised, the pieces kept once by their bytes; the same content again changes nothing, a new one is the next version; a hostile archive or an encrypted piece is refused with its reason and nothing is kept.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importDce, DceImportError, parseTarget } from '../../../src/domains/dce/ingest.js';
import { Extractor } from '../../../src/platform/extract/extractor.js';
import { fileObjectStore } from '../../../src/platform/files/object-store.js';
import { docxDocument, pdfDocument, xlsxDocument, zipOf } from '../../../scripts/demo/documents.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const BOAMP = fileURLToPath(new URL('../../../../shared/real-samples/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json', import.meta.url));

/** Every file under a folder, recursively (the objects kept). */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

describe('attaching consultation files', function () {
  this.timeout(60000);
  let migrated: MigratedDatabase;
  let dir: string;
  let extractor: Extractor;
  const objects = () => join(dir, 'objets');
  const deps = () => ({ db: migrated.db, store: fileObjectStore(objects()), extractor, now: () => new Date('2026-11-24T10:00:00Z') });
  const write = (name: string, bytes: Uint8Array) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  };

  before(async () => {
    migrated = await openMigratedDatabase();
    dir = mkdtempSync(join(tmpdir(), 'dce-import-'));
    extractor = new Extractor();
    await importFile(migrated.db, IMPORTERS.boamp as never, BOAMP, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
  });
  after(async () => {
    await extractor.close();
    await migrated.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function dceArchive(cctpText: string): Promise<string> {
    const lot2 = await zipOf([
      { name: 'CCTP lot 2.pdf', data: await pdfDocument([{ lines: ['CCTP – Lot 2 Charpente', 'Bois massif de classe C24.'] }]) },
      { name: 'DPGF lot 2.xlsx', data: await xlsxDocument([{ name: 'DPGF', rows: [['1.1', 'Charpente', 'm3', 12]] }]) },
    ]);
    return write(
      `dce-${cctpText.length}.zip`,
      await zipOf([
        { name: 'RC.pdf', data: await pdfDocument([{ lines: ['Règlement de la consultation', 'Date limite : 15 janvier 2027'] }, { scan: true }]) },
        { name: 'Lot 1/CCTP.docx', data: await docxDocument(['CCTP – Lot 1 Couverture', cctpText]) },
        { name: 'Lot 2.zip', data: lot2 },
        { name: 'Plans/plan-masse.dwg', data: Buffer.from('AC1027 binaire') },
      ]),
    );
  }

  it('attaches a file to its notice by annonce_id: pieces, kinds, lots, reading pages, scans said', async () => {
    const report = await importDce(deps(), parseTarget('15-31501'), [await dceArchive('Ardoises naturelles posées au crochet.')]);
    expect(report).to.include({ outcome: 'added', version: 1 });
    expect(report.marcheId).to.match(/^[0-9a-f-]{36}$/);
    expect(report.pieces).to.deep.equal([
      { filename: 'Lot 1/CCTP.docx', docType: 'cctp', lot: 1, readingPages: 1, scannedPages: 0 },
      { filename: 'Lot 2/CCTP lot 2.pdf', docType: 'cctp', lot: 2, readingPages: 1, scannedPages: 0 },
      { filename: 'Lot 2/DPGF lot 2.xlsx', docType: 'dpgf', lot: 2, readingPages: 1, scannedPages: 0 },
      { filename: 'Plans/plan-masse.dwg', docType: 'plan', lot: null, readingPages: 0, scannedPages: 0 },
      { filename: 'RC.pdf', docType: 'rc', lot: null, readingPages: 1, scannedPages: 1 },
    ]);
    const rc = await migrated.db('dce_pages as p').join('dce_pieces as c', (j) => j.on('c.dce_id', 'p.dce_id').andOn('c.position', 'p.position')).where('c.filename', 'RC.pdf').first('p.text');
    expect(rc.text).to.equal('Règlement de la consultation\nDate limite : 15 janvier 2027\n\n[Page 2 : page numérisée, texte non disponible]');
    expect(filesUnder(objects())).to.have.length(5);
  });

  it('changes nothing for the same content, and makes the next version of a new one', async () => {
    const same = await importDce(deps(), parseTarget('15-31501'), [await dceArchive('Ardoises naturelles posées au crochet.')]);
    expect(same).to.include({ outcome: 'unchanged', version: 1 });
    const next = await importDce(deps(), parseTarget('15-31501'), [await dceArchive('Ardoises naturelles posées au crochet, version modifiée.')]);
    expect(next).to.include({ outcome: 'replaced', version: 2, id: same.id });
    const [{ n }] = (await migrated.db('dce_files').count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
    expect(Number(n)).to.equal(1);
    // Only the changed piece is a new object.
    expect(filesUnder(objects())).to.have.length(6);
  });

  it('refuses hostile archives and unreadable pieces whole, keeping nothing', async () => {
    const before = filesUnder(objects());
    const evil = Buffer.from(await zipOf([{ name: 'RC.txt', data: 'x' }, { name: 'zz/passwd', data: 'x' }]));
    evil.write('../passwd', evil.indexOf('zz/passwd'), 'latin1');
    evil.write('../passwd', evil.lastIndexOf('zz/passwd'), 'latin1');
    const encrypted = await zipOf([{ name: 'RC.pdf', data: Buffer.from('%PDF-1.7\nnot really') }]);
    const deep = await zipOf([{ name: 'a.zip', data: await zipOf([{ name: 'b.zip', data: await zipOf([{ name: 'c.txt', data: 'c' }]) }]) }]);
    const cases: [string, Uint8Array, RegExp][] = [
      ['evil.zip', evil, /sort (de son|du) dossier/],
      ['casse.zip', encrypted, /^RC\.pdf : PDF illisible/],
      ['poupees.zip', deep, /un seul niveau admis/],
      ['vide.zip', await zipOf([{ name: 'dossier/', data: '' }]), /aucune pièce/],
    ];
    for (const [name, bytes, reason] of cases) {
      const err = await importDce(deps(), parseTarget('-'), [write(name, bytes)]).catch((e: unknown) => e);
      expect(err, name).to.be.instanceOf(DceImportError);
      expect((err as Error).message, name).to.match(reason);
    }
    expect(filesUnder(objects())).to.deep.equal(before);
    const [{ n }] = (await migrated.db('dce_files').count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
    expect(Number(n)).to.equal(1);
  });

  it('refuses an unknown marche_id and a malformed target', async () => {
    const err = await importDce(deps(), parseTarget('00000000-0000-4000-8000-000000000000'), [write('rc.txt', Buffer.from('RC'))]).catch((e: unknown) => e);
    expect((err as Error).message).to.match(/^aucun avis de marche_id/);
    expect(() => parseTarget('x'.repeat(101))).to.throw(DceImportError);
  });
});
