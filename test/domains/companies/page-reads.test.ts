// A page of companies read together (companiesBySiren, proceedingsBySiren for several SIRENs) gives each company exactly what reading it alone gives: its unit, head office (by nic_siege, else the one marked as such), certifications in force, a company known by its establishments or its register only, its newest proceedings up to the cap.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { companiesBySiren, companyBySiren } from '../../../src/domains/companies/store.js';
import { proceedingsBySiren } from '../../../src/domains/announcements/store.js';
import { PROCEEDING_FAMILIES } from '../../../src/domains/announcements/import-bodacc.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { writeDemoData } from '../../../scripts/demo/index.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

const TODAY = '2026-03-05';
const silent = () => ({ update: () => undefined, stop: () => undefined });

describe('a page of companies read together', function () {
  this.timeout(180000);
  let database: MigratedDatabase;
  let dir: string;
  let sirens: string[];
  const special: Record<string, string> = {};

  before(async () => {
    database = await openMigratedDatabase();
    const { db } = database;
    dir = mkdtempSync(join(tmpdir(), 'page-reads-'));
    const demo = await writeDemoData({ scale: 'small', outDir: dir, seed: 1, today: TODAY });
    for (const source of ['sirene-unites', 'sirene-etablissements', 'rge', 'rne', 'bodacc'] as const)
      for (const file of demo.files.filter((f) => f.source === source && !f.name.endsWith('.jsonl'))) await importFile(db, IMPORTERS[source] as never, file.path, { progress: silent });
    sirens = (await db('companies').orderBy('siren').pluck('siren')) as string[];
    // The cases the demo set does not hold: a head office not under nic_siege, a company known
    // by its establishments only, another by its register only.
    const withEstablishments = (await db('establishments').where('siege', true).orderBy('siren').limit(3).pluck('siren')) as string[];
    [special.noHead, special.establishmentsOnly, special.registerOnly] = withEstablishments as [string, string, string];
    await db('companies').where('siren', special.noHead).update({ nic_siege: '99999' });
    await db('companies').where('siren', special.establishmentsOnly).update({ unit_known: false });
    await db('companies').where('siren', special.registerOnly).update({ unit_known: false });
    await db('rge_certifications').whereIn('siret', db('establishments').select('siret').where('siren', special.registerOnly)).delete();
    await db('establishments').where('siren', special.registerOnly).delete();
  });
  after(async () => {
    await database?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('reads every company as companyBySiren does, pages of 50, unknown SIRENs left out', async () => {
    const { db } = database;
    const unknown = '000000001';
    for (let i = 0; i < sirens.length; i += 50) {
      const page = [...sirens.slice(i, i + 50), unknown];
      const views = await companiesBySiren(db, page, TODAY);
      const alone = new Map();
      for (const siren of page) {
        const view = await companyBySiren(db, siren, TODAY);
        // Certifications in no set order among equal domains: compared as sets below.
        if (view) alone.set(siren, view);
      }
      const sorted = (m: Map<string, { rge: { siret: string; domaine: string }[] }>) =>
        new Map([...m].map(([k, v]) => [k, { ...v, rge: [...v.rge].sort((a, b) => `${a.domaine} ${a.siret}`.localeCompare(`${b.domaine} ${b.siret}`)) }]));
      const [together, each] = [sorted(views as never), sorted(alone as never)];
      expect([...together.keys()]).to.deep.equal([...each.keys()]);
      for (const [siren, view] of each) expect(together.get(siren), siren).to.deep.equal(view);
    }
    const views = await companiesBySiren(db, Object.values(special), TODAY);
    expect(views.get(special.noHead as string)?.establishment?.siege).to.equal(true);
    expect(views.get(special.establishmentsOnly as string)).to.include({ company: null });
    expect(views.get(special.establishmentsOnly as string)?.establishment?.siren).to.equal(special.establishmentsOnly);
    expect(views.get(special.registerOnly as string)).to.include({ company: null, establishment: null });
    expect(views.get(special.registerOnly as string)?.register?.siren).to.equal(special.registerOnly);
    expect([...(await companiesBySiren(db, sirens, TODAY)).values()].some((v) => v.rge.length > 0), 'some certifications in force').to.equal(true);
  });

  it('gives each company its newest proceedings up to the cap, as asked alone', async () => {
    const { db } = database;
    const concerned = (await db('announcement_sirens').whereIn('famille', PROCEEDING_FAMILIES as unknown as string[]).distinct('siren').orderBy('siren').pluck('siren')) as string[];
    const several = (await db('announcement_sirens').whereIn('famille', PROCEEDING_FAMILIES as unknown as string[]).groupBy('siren').havingRaw('count(*) > 1').pluck('siren')) as string[];
    expect(several.length, 'companies with several proceedings').to.be.greaterThan(0);
    const page = [...concerned.slice(0, 40), ...several, sirens[0] as string];
    for (const max of [1, 20]) {
      const together = await proceedingsBySiren(db, page, PROCEEDING_FAMILIES, max);
      expect([...together.keys()].sort()).to.deep.equal([...new Set(page)].sort());
      for (const siren of new Set(page)) {
        const list = together.get(siren) ?? [];
        expect(list).to.deep.equal((await proceedingsBySiren(db, [siren], PROCEEDING_FAMILIES, max)).get(siren));
        expect(list.length).to.be.at.most(max);
        // Newest first; the first is the newest of all the company's proceedings.
        for (let k = 1; k < list.length; k++) expect(list[k - 1]!.date_parution >= list[k]!.date_parution).to.equal(true);
        const newest = (await db('announcement_sirens').where('siren', siren).whereIn('famille', PROCEEDING_FAMILIES as unknown as string[]).max('date_parution as d').first()) as { d: string | null };
        expect(list[0]?.date_parution ?? null).to.equal(newest.d);
      }
      if (max === 1) expect(several.every((s) => together.get(s)?.length === 1)).to.equal(true);
    }
  });
});
