// Demo data holds together: accounts only for years a company lived through (ratios and BODACC filings), a notice's title names its place (never the same title in several departments), and a consultation file's RC asks for the qualifications of its own works (slate roofing only for a slate roof).
import { expect } from 'chai';
import { gunzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { tenderOf, type BoampRecord } from '../../../scripts/demo/boamp.js';
import { qualificationsAsked } from '../../../scripts/demo/dce.js';
import { readTable } from './csv.js';
import { readDemo, smallDemo } from './fixture.js';

const DAY_MS = 86_400_000;
const dayOf = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / DAY_MS;

describe('demo data: coherence', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  /** Creation and cessation days of each company, from the SIRENE units file. */
  let lives: Map<string, { creation: number; cessation: number | null }>;
  let notices: BoampRecord[];

  before(async () => {
    lives = new Map();
    for (const u of readTable(await readDemo('sirene/StockUniteLegale_utf8.csv')).rows) {
      lives.set(u.siren as string, { creation: dayOf(u.dateCreationUniteLegale as string), cessation: u.etatAdministratifUniteLegale === 'C' ? dayOf(u.dateDebut as string) : null });
    }
    notices = (JSON.parse(await readDemo('boamp/boamp.json')) as { results: BoampRecord[] }).results;
  });

  it('gives accounts only for years closed after the company’s creation (three months at least) and not after its cessation', async () => {
    const r = await smallDemo();
    const text = gunzipSync(await readFile(join(r.outDir, 'ratios/ratios_inpi_bce.csv.gz'))).toString('utf8').replace(/^\uFEFF/, '');
    const rows = text.trim().split('\n').slice(1).map((l) => l.split(';'));
    expect(rows.length).to.be.greaterThan(500);
    for (const [siren, closing] of rows) {
      const life = lives.get(siren as string);
      expect(life, siren).to.not.equal(undefined);
      const day = dayOf(closing as string);
      expect(day - (life?.creation ?? 0), `${siren} clôture ${closing}`).to.be.at.least(90);
      if (life?.cessation !== null && life?.cessation !== undefined) expect(day, `${siren} clôture ${closing} après sa cessation`).to.be.at.most(life.cessation);
    }
  });

  it('files BODACC accounts only for a year the company lived through', async () => {
    const records = (JSON.parse(await readDemo('bodacc/annonces-commerciales.json')) as { results: { familleavis: string; registre: string[]; depot: string | null }[] }).results;
    const filings = records.filter((x) => x.familleavis === 'dpc');
    expect(filings.length).to.be.greaterThan(100);
    for (const x of filings) {
      const siren = (x.registre[1] ?? '').replace(/ /g, '');
      const closing = (JSON.parse(x.depot as string) as { dateCloture: string }).dateCloture;
      const life = lives.get(siren);
      expect(life, siren).to.not.equal(undefined);
      expect(dayOf(closing) - (life?.creation ?? 0), `${siren} dépôt des comptes ${closing}`).to.be.at.least(90);
    }
  });

  it('never gives the same notice title in two departments: each names its place', () => {
    const departements = new Map<string, Set<string>>();
    for (const n of notices) {
      const set = departements.get(n.objet) ?? new Set<string>();
      for (const d of n.code_departement) set.add(d);
      departements.set(n.objet, set);
    }
    const shared = [...departements].filter(([, set]) => set.size > 1).map(([objet, set]) => `${objet} (${[...set].join(', ')})`);
    expect(shared).to.deep.equal([]);
    // The commune names its place: the buyer's commune is in the title (« … à Briec »).
    const communes = notices.filter((n) => n.nomacheteur.startsWith('Commune de ') || n.nomacheteur.startsWith('Ville de '));
    expect(communes.length).to.be.greaterThan(100);
    for (const n of communes) expect(n.objet, n.nomacheteur).to.include(n.nomacheteur.replace(/^(Commune|Ville) de /, '').replace(/^(Le|Les) /, ''));
  });

  it('asks in each RC for the qualifications of the notice’s own works: slate roofing only for a slate roof, per lot for a work in lots', () => {
    const tenders = notices.filter((n) => n.nature === 'APPEL_OFFRE' && n.type_marche[0] === 'TRAVAUX').map(tenderOf);
    expect(tenders.length).to.be.greaterThan(100);
    let inLots = 0;
    for (const t of tenders) {
      const asked = qualificationsAsked(t);
      const works = `${t.objet} ${t.description} ${t.lots.map((l) => l.intitule).join(' ')}`;
      expect(asked.includes('ardoise'), `${t.objet} : ${asked}`).to.equal(/ardoise/i.test(works));
      if (/Qualifelec E2/.test(asked)) expect(works, asked).to.match(/électri|courants/i);
      if (t.lots.length >= 5) {
        inLots += 1;
        // Each qualification is asked for a lot of this notice, by its number and title.
        for (const m of asked.matchAll(/lot (\d+) \(([^)]+)\)/g)) expect(t.lots.some((l) => l.numero === Number(m[1]) && l.intitule === m[2]), `${t.objet} : ${m[0]}`).to.equal(true);
      }
    }
    expect(inLots).to.be.greaterThan(10);
  });
});
