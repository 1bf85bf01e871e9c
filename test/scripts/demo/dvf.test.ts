// Demo DVF sales are written in both published layouts (geo-dvf, 40 columns; the Etalab variant with section_prefixe, unpadded dispositions, quoted streets), a mutation's lines consecutive, ids unique across both files, dates over the last two years, prices per m² higher in Paris than in rural departments, and they import as one sale per mutation.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { DVF_COLUMNS } from '../../../scripts/demo/dvf.js';
import { SCALES } from '../../../scripts/demo/index.js';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { openMigratedDatabase } from '../../helpers/service.js';
import { parseCsv } from './csv.js';
import { isRealDay, smallDemo, TODAY } from './fixture.js';

type Row = Record<string, string>;
const rowsOf = (text: string): { header: string[]; rows: Row[] } => {
  const [header, ...records] = parseCsv(text);
  return { header: header as string[], rows: records.map((r) => Object.fromEntries(r.map((v, i) => [(header as string[])[i], v]))) };
};

describe('demo data: DVF sales', () => {
  let geo: { header: string[]; rows: Row[] };
  let variant: { header: string[]; rows: Row[] };
  let geoText: string;
  let variantText: string;

  before(async () => {
    const demo = await smallDemo();
    const file = (name: string) => demo.files.find((f) => f.name === name)?.path as string;
    geoText = readFileSync(file('dvf/geo-dvf.csv'), 'utf8');
    variantText = readFileSync(file('dvf/dvf-variante-etalab.csv'), 'utf8');
    geo = rowsOf(geoText);
    variant = rowsOf(variantText);
  });

  it('writes the geo-dvf header (40 columns) and the variant (plus section_prefixe), at the small scale', async () => {
    expect(geo.header).to.deep.equal([...DVF_COLUMNS]);
    expect(geo.header).to.have.length(40);
    expect(variant.header).to.deep.equal([...DVF_COLUMNS, 'section_prefixe']);
    expect(geo.rows.length).to.be.within(SCALES.small.ventesLignes, SCALES.small.ventesLignes + 20);
    expect(variant.rows.length).to.be.greaterThan(20);
    expect((await smallDemo()).counts.ventesLignes).to.equal(geo.rows.length);
  });

  it('pads numero_disposition in geo-dvf only; the variant quotes street names and writes two decimals', () => {
    for (const r of geo.rows) expect(r.numero_disposition).to.match(/^\d{6}$/);
    for (const r of variant.rows) expect(r.numero_disposition).to.match(/^\d$/);
    expect(variantText.split('\n')[1]).to.match(/,"[A-Z][^"]*",/);
    for (const r of variant.rows) {
      expect(r.valeur_fonciere).to.match(/^\d+\.\d{2}$/);
      expect(r.section_prefixe).to.equal(`000${(r.id_parcelle as string).slice(8, 10)}`);
    }
    for (const r of geo.rows) expect(r.valeur_fonciere).to.not.match(/\.\d*0$/);
  });

  it('keeps a mutation’s lines together, with one date, nature and value, ids unique across both files', () => {
    const seen = new Set<string>();
    for (const file of [geo, variant]) {
      let previous = '';
      for (const r of file.rows) {
        const id = r.id_mutation as string;
        if (id !== previous) {
          expect(seen.has(id), `${id} comes back`).to.equal(false);
          seen.add(id);
        }
        previous = id;
      }
      const first = new Map<string, Row>();
      for (const r of file.rows) {
        const f = first.get(r.id_mutation as string) ?? r;
        first.set(r.id_mutation as string, f);
        expect([r.date_mutation, r.nature_mutation, r.valeur_fonciere]).to.deep.equal([f.date_mutation, f.nature_mutation, f.valeur_fonciere]);
      }
    }
  });

  it('spreads the sales over the two years before the day, in date order', () => {
    const dates = geo.rows.map((r) => r.date_mutation as string);
    for (const d of dates) expect(isRealDay(d)).to.equal(true);
    expect([...dates].sort()).to.deep.equal(dates);
    expect(dates[0]! >= '2024-03-05').to.equal(true);
    expect(dates.at(-1)! < TODAY && dates.at(-1)! > '2025-11-01').to.equal(true);
  });

  it('prices flats per m² higher in Paris than in rural departments, and imports as one sale per mutation', async function () {
    this.timeout(30000);
    const database = await openMigratedDatabase();
    try {
      const demo = await smallDemo();
      for (const f of demo.files.filter((x) => x.source === 'dvf')) {
        const report = await importFile(database.db, IMPORTERS.dvf as never, f.path, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
        expect(report.skipped, f.name).to.equal(0);
        expect(report.inserted, f.name).to.equal(new Set(rowsOf(readFileSync(f.path, 'utf8')).rows.map((r) => r.id_mutation)).size);
      }
      expect(Number((await database.db('sales').count('* as n'))[0]?.n)).to.equal(demo.counts.ventes);
      const m2 = async (deps: string[]) => Number((await database.db('sales').whereIn('departement', deps).where('type_local', 'Appartement').avg('prix_m2 as m'))[0]?.m);
      expect(await m2(['75'])).to.be.greaterThan(7000);
      expect(await m2(['23', '36', '15', '48', '58'])).to.be.within(1000, 3000);
      // Every premises of a house or flat has its surface: a price per m².
      expect(Number((await database.db('sales').whereIn('type_local', ['Maison', 'Appartement']).whereNull('prix_m2').count('* as n'))[0]?.n)).to.equal(0);
    } finally {
      await database.close();
    }
  });
});
