// Extraction runs in a worker thread, jobs in turn; a job over its time limit is refused with a French reason and the thread restarted, so the next piece still extracts; a refused document keeps its reason.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ExtractionError } from '../../../src/platform/extract/document-text.js';
import { Extractor } from '../../../src/platform/extract/extractor.js';
import { pdfDocument } from '../../../scripts/demo/documents.js';

describe('extractor thread', function () {
  this.timeout(30000);
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'extractor-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('extracts in the thread, in turn, refuses with the document’s reason, and recovers from a job over its time', async () => {
    const pdf = join(dir, 'rc.pdf');
    writeFileSync(pdf, await pdfDocument([{ lines: ['Règlement de la consultation'] }, { lines: ['Page deux'] }]));
    const broken = join(dir, 'casse.pdf');
    writeFileSync(broken, 'pas un pdf');
    const extractor = new Extractor({ timeoutMs: 20_000, maxOldGenerationSizeMb: 256 });
    try {
      const [a, b] = await Promise.all([extractor.extract(pdf, 'pdf'), extractor.extract(pdf, 'pdf')]);
      expect(a.pages.map((p) => p.text)).to.deep.equal(['Règlement de la consultation', 'Page deux']);
      expect(b).to.deep.equal(a);
      const refused = await extractor.extract(broken, 'pdf').catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(ExtractionError);
      expect((refused as Error).message).to.match(/^PDF illisible/);
    } finally {
      await extractor.close();
    }
    const again = new Extractor({ timeoutMs: 20_000, maxOldGenerationSizeMb: 256 });
    try {
      const late = await again.extract(pdf, 'pdf', 1).catch((e: unknown) => e);
      expect(late).to.be.instanceOf(ExtractionError);
      expect((late as Error).message).to.match(/^extraction interrompue après 0 s/);
      // The thread was restarted: the next piece extracts.
      expect((await again.extract(pdf, 'pdf')).pages).to.have.length(2);
    } finally {
      await again.close();
    }
  });
});
