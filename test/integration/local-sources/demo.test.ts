// The small demo set of the local sources, imported as `npm start` does: every recipe example of their tools finds records, and the contacts' contact details are all dropped (counted) at import.
import { CONTACT_DETAIL_NOTE } from '../../../src/import/contact-details.js';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Contract } from '../../../src/contract/runtime.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile, type ImportReport } from '../../../src/import/run.js';
import { writeDemoData } from '../../../scripts/demo/index.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { contactDetails } from './helpers.js';

const contract = Contract.load();
const TOOLS = ['deliberations_rechercher', 'deliberations_consulter', 'publications_rechercher', 'publications_consulter', 'contacts_rechercher', 'contacts_consulter'];

describe('local sources on the small demo set', function () {
  this.timeout(60000);
  let svc: TestService;
  let dir: string;
  const reports = new Map<string, ImportReport>();

  before(async () => {
    svc = await startTestService();
    dir = mkdtempSync(join(tmpdir(), 'local-demo-'));
    // The seed and day of a first start (the examples are written for seed 1), any day.
    const written = await writeDemoData({ scale: 'small', outDir: dir, seed: 1, today: '2026-03-05' });
    for (const source of ['deliberations', 'publications', 'contacts']) {
      const file = written.files.find((f) => f.source === source);
      reports.set(source, await importFile(svc.db, IMPORTERS[source] as never, file!.path, { progress: () => ({ update: () => undefined, stop: () => undefined }) }));
    }
  });
  after(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports every line, dropping every contact detail of the contacts (at least the telephone of each)', () => {
    expect(reports.get('deliberations')).to.include({ read: 1000, inserted: 1000, skipped: 0 });
    expect(reports.get('publications')).to.include({ read: 2000, inserted: 2000, skipped: 0 });
    expect(reports.get('contacts')).to.include({ read: 1500, inserted: 1500, skipped: 0 });
    expect(reports.get('contacts')!.notes[CONTACT_DETAIL_NOTE]).to.be.greaterThan(1500);
    expect(reports.get('publications')!.notes[CONTACT_DETAIL_NOTE]).to.be.greaterThan(2000);
    expect(reports.get('deliberations')!.notes[CONTACT_DETAIL_NOTE]).to.be.greaterThan(0);
  });

  for (const name of TOOLS) {
    it(`${name}: every recipe example finds records, without contact details`, async () => {
      const tool = contract.tools.find((t) => t.name === name)!;
      for (const recipe of tool.recipes) {
        const { operation, args } = contract.resolveToolCall(tool, recipe.example as Record<string, unknown>);
        const { status, json } = await svc.rest(operation, args);
        expect(status, JSON.stringify(json)).to.equal(200);
        expect(json.results.length, `${recipe.title}`).to.be.greaterThan(0);
        expect(contactDetails(JSON.stringify(json), svc.url)).to.deep.equal([]);
      }
    });
  }

  it('stores no contact detail in the tables of the three sources', async () => {
    for (const table of ['deliberations', 'publications', 'contacts']) {
      const rows = await svc.db(table).select('*');
      expect(contactDetails(JSON.stringify(rows), 'http://aucune'), table).to.deep.equal([]);
    }
  });
});
