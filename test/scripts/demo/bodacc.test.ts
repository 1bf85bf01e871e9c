// Demo BODACC announcements keep the portal's real shapes (Explore v2.1 answer with total_count first, JSON lines of the same records, detail fields as JSON in strings, registre spaced and not), cite demo companies' SIRENs, and send a few of them through a receivership on fixed dates.
import { expect } from 'chai';
import { isValidDepartementCode } from '../../../src/domains/reference/lists.js';
import { SHOWCASE } from '../../../scripts/demo/bodacc.js';
import { readTable } from './csv.js';
import { isRealDay, readDemo, smallDemo, TODAY } from './fixture.js';

type Rec = Record<string, unknown> & { id: string; dateparution: string; familleavis: string; registre: string[]; numerodepartement: string };

const DETAILS = ['listepersonnes', 'listeetablissements', 'jugement', 'acte', 'modificationsgenerales', 'radiationaurcs', 'depot', 'listeprecedentproprietaire'];
const FAMILIES = ['creation', 'immatriculation', 'collective', 'conciliation', 'retablissement_professionnel', 'modification', 'radiation', 'dpc', 'vente', 'divers'];

describe('demo data: BODACC', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  let text: string;
  let records: Rec[];

  before(async () => {
    text = await readDemo('bodacc/annonces-commerciales.json');
    records = (JSON.parse(text) as { results: Rec[] }).results;
  });

  it('writes an Explore API answer, total_count first, and the same records as JSON lines', async () => {
    expect(text.startsWith('{"total_count": 1500, "results": [')).to.equal(true);
    const r = await smallDemo();
    expect(records).to.have.length(1500).and.to.have.length(r.counts.annonces);
    const lines = (await readDemo('bodacc/annonces-commerciales.jsonl')).trim().split('\n').map((l) => JSON.parse(l) as Rec);
    expect(lines).to.deep.equal(records);
    expect(new Set(records.map((x) => x.id)).size).to.equal(records.length);
  });

  it('fills every field as the portal does: ids, dates, families, departments, registre and detail strings', () => {
    const families = new Set<string>();
    for (const x of records) {
      expect(x.id).to.match(/^[ABC]\d{9,}$/);
      expect(x.id.startsWith(x.publicationavis as string)).to.equal(true);
      expect(isRealDay(x.dateparution) && x.dateparution <= TODAY, x.dateparution).to.equal(true);
      expect(isValidDepartementCode(x.numerodepartement), x.numerodepartement).to.equal(true);
      families.add(x.familleavis);
      expect(x.registre.length % 2).to.equal(0);
      for (let i = 0; i < x.registre.length; i += 2) expect(x.registre[i]!.replace(/ /g, '')).to.equal(x.registre[i + 1]!.replace(/ /g, ''));
      for (const field of DETAILS) if (x[field] !== null) expect(() => JSON.parse(x[field] as string), `${x.id} ${field}`).to.not.throw();
      expect(x.url_complete).to.match(/^https:\/\/www\.bodacc\.fr\//);
    }
    expect([...families].sort()).to.deep.equal([...FAMILIES].sort());
    const collective = records.filter((x) => x.familleavis === 'collective');
    expect(collective.length).to.be.greaterThan(100);
    for (const x of collective) expect(JSON.parse(x.jugement as string)).to.include.keys('famille', 'nature', 'date', 'complementJugement');
  });

  it('cites the SIRENs of the demo companies', async () => {
    const sirens = new Set(readTable(await readDemo('sirene/StockUniteLegale_utf8.csv')).rows.map((u) => u.siren));
    for (const x of records) for (const s of x.registre) expect(sirens.has(s.replace(/ /g, '')), s).to.equal(true);
  });

  it('sends companies through receiverships, the first one on fixed dates', async () => {
    const r = await smallDemo();
    const [opening, conversion] = records;
    expect(r.bodaccShowcase.id).to.equal(opening!.id);
    expect(opening).to.include({ dateparution: SHOWCASE.published, familleavis: 'collective' });
    expect(JSON.parse(opening!.jugement as string)).to.include({ nature: "Jugement d'ouverture d'une procédure de redressement judiciaire", date: SHOWCASE.opening });
    expect(conversion).to.include({ dateparution: SHOWCASE.convertedPublished });
    expect(JSON.parse(conversion!.jugement as string).nature).to.equal('Jugement de conversion en liquidation judiciaire');
    expect(conversion!.registre).to.have.members(opening!.registre);
    expect(opening!.registre).to.include(r.bodaccShowcase.siren);
  });
});
