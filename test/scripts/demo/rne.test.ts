// The demo RNE stock holds every demo company once, in the register's real shape (a company with its officers and capital, an individual entrepreneur with full date of birth and home address), cut into files of 10,000; the importer keeps only the entrepreneur's name, first names and year of birth.
import { expect } from 'chai';
import { join } from 'node:path';
import yauzl from 'yauzl';
import { CompanyIndex } from '../../../scripts/demo/companies.js';
import { writeRneStock } from '../../../scripts/demo/finances.js';
import { dayOfLocalDate } from '../../../scripts/demo/util.js';
import { rne } from '../../../src/domains/companies/import-rne.js';
import { readTable } from './csv.js';
import { readDemo, SEED, smallDemo, tempDir, TODAY } from './fixture.js';

type Json = Record<string, any>;

/** Each entry of a zip: its name and its text. */
function readZip(path: string): Promise<{ name: string; text: string }[]> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out: { name: string; text: string }[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out.push({ name: entry.fileName, text: Buffer.concat(chunks).toString('utf8') });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

describe('demo data: RNE stock', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  let records: Json[];
  let units: Map<string, Record<string, string>>;

  before(async () => {
    const demo = await smallDemo();
    const entries = await readZip(join(demo.outDir, 'rne/stock-rne.zip'));
    expect(entries.map((e) => e.name)).to.deep.equal(['stock_rne_000001.json']);
    records = JSON.parse(entries[0]!.text) as Json[];
    units = new Map(readTable(await readDemo('sirene/StockUniteLegale_utf8.csv')).rows.map((r) => [r.siren!, r]));
  });

  it('holds every company of the SIRENE file once, as many as the counts say', async () => {
    const sirens = records.map((r) => r.siren as string);
    expect(new Set(sirens).size).to.equal(sirens.length);
    expect(sirens.sort()).to.deep.equal([...units.keys()].sort());
    expect((await smallDemo()).counts.registre).to.equal(units.size);
  });

  it('writes a company as a personne morale (officers, capital) and an individual entrepreneur as a personne physique', () => {
    let individuals = 0;
    for (const r of records) {
      const unit = units.get(r.siren)!;
      const content = r.formality.content as Json;
      expect(r.formality.siren).to.equal(r.siren);
      expect(r.updatedAt).to.match(/^\d{4}-\d{2}-\d{2}T10:00:00\.000Z$/);
      if (unit.categorieJuridiqueUniteLegale === '1000') {
        individuals += 1;
        expect(Object.keys(content)).to.deep.equal(['personnePhysique']);
        expect(r.formality).to.include({ typePersonne: 'P', formeJuridique: '1000' });
        const entrepreneur = content.personnePhysique.identite.entrepreneur as Json;
        expect(entrepreneur.descriptionPersonne.nom).to.equal(unit.nomUniteLegale);
        expect(entrepreneur.descriptionPersonne.dateDeNaissance).to.match(/^(19[3-9]\d|20[0-2]\d)-(0[1-9]|1[0-2])-(0[1-9]|[12]\d)$/);
        // Of age when the business was created.
        expect(Number(entrepreneur.descriptionPersonne.dateDeNaissance.slice(0, 4))).to.be.at.most(Number(unit.dateCreationUniteLegale!.slice(0, 4)) - 18);
        expect(entrepreneur.adresseDomicile.codePostal).to.match(/^\d{5}$/);
        expect(entrepreneur.adresseDomicile.voie).to.be.a('string').and.not.equal('');
        expect(content.personnePhysique.composition).to.equal(undefined);
      } else {
        expect(Object.keys(content)).to.deep.equal(['personneMorale']);
        expect(r.formality.typePersonne).to.equal('M');
        expect(content.personneMorale.identite.description.montantCapital).to.be.above(0);
        expect(content.personneMorale.composition.pouvoirs.length).to.be.within(1, 3);
      }
    }
    expect(individuals).to.be.within(records.length * 0.2, records.length * 0.35);
  });

  it('imports an individual entrepreneur as the only officer, with the year of birth and no address, unless diffusion was refused', () => {
    let seen = 0;
    let refused = 0;
    for (const r of records.filter((x) => x.formality.content.personnePhysique)) {
      const mapped = rne.map(r, '2026-03-05T00:00:00.000Z');
      expect('row' in mapped, r.siren).to.equal(true);
      const row = (mapped as { row: { officers: string; capital_social_eur: number | null } }).row;
      const d = r.formality.content.personnePhysique.identite.entrepreneur.descriptionPersonne as Json;
      const home = r.formality.content.personnePhysique.identite.entrepreneur.adresseDomicile as Json;
      expect(row.capital_social_eur).to.equal(null);
      if (!r.formality.diffusionCommerciale) {
        refused += 1;
        expect(JSON.parse(row.officers)).to.deep.equal([]);
        continue;
      }
      seen += 1;
      expect(JSON.parse(row.officers)).to.deep.equal([
        { type: 'personne_physique', nom: d.nom, prenoms: (d.prenoms as string[]).join(' '), qualite: 'Entrepreneur individuel', annee_naissance: Number(d.dateDeNaissance.slice(0, 4)), siren: null, denomination: null },
      ]);
      for (const secret of [d.dateDeNaissance, d.dateDeNaissance.slice(0, 7), home.voie, d.lieuDeNaissance]) expect(JSON.stringify(row), `${r.siren} ${secret}`).to.not.include(secret);
    }
    expect(seen).to.be.above(300);
    expect(refused).to.be.below(seen * 0.1);
  });

  it('cuts a larger set into files of 10,000 companies, in order, each a JSON array', async () => {
    const ctx = { seed: SEED, today: dayOfLocalDate(new Date(`${TODAY}T12:00:00`)) };
    const companies = new CompanyIndex(ctx, 21_003);
    const path = join(tempDir(), 'stock-rne.zip');
    const written = await writeRneStock(ctx, companies, path);
    expect(written.rows).to.equal(21_003);
    const entries = await readZip(path);
    expect(entries.map((e) => e.name)).to.deep.equal(['stock_rne_000001.json', 'stock_rne_000002.json', 'stock_rne_000003.json']);
    const parts = entries.map((e) => JSON.parse(e.text) as Json[]);
    expect(parts.map((p) => p.length)).to.deep.equal([10_000, 10_000, 1_003]);
    expect(parts.flat().map((r) => r.siren)).to.deep.equal(Array.from({ length: 21_003 }, (_, i) => companies.company(i).siren));
  });
});
