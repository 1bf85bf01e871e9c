// Demo Sitadel lists keep the layout published today (two header lines, the real demolition and development headers word for word, `;`, texts quoted, numbers bare), unique numbers, states consistent with their dates, recent authorisations, and applicants that are demo companies (legal persons) or public bodies, never a named private person.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { luhnValid } from '../../../scripts/demo/luhn.js';
import { SITADEL_FILES, type SitadelList } from '../../../scripts/demo/sitadel.js';
import { readTable } from './csv.js';
import { isRealDay, readDemo, smallDemo, TODAY } from './fixture.js';

const SAMPLES = fileURLToPath(new URL('../../../../shared/real-samples/sitadel/', import.meta.url));
const realHeader = (name: string) => readFileSync(`${SAMPLES}${name}`, 'utf8').split('\n').slice(0, 2).join('\n');

/** A demo list's lines: `;`-separated, every text quoted, no `;` inside a value. */
function lines(text: string): string[][] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => l.split(';').map((f) => (f.startsWith('"') ? f.slice(1, -1).replace(/""/g, '"') : f)));
}

const lists: SitadelList[] = ['logements', 'locaux', 'demolir', 'amenager'];
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`) / 86_400_000;

describe('demo data: Sitadel lists', function () {
  // Writing the demo set (its consultation files' zips included) takes seconds, tens on a loaded 2-core machine.
  this.timeout(120_000);
  const rows = new Map<SitadelList, Record<string, string>[]>();
  let sirenes: Set<string>;
  let legal: Map<string, string>;

  before(async () => {
    for (const list of lists) {
      const [labels, codes, ...data] = lines(await readDemo(SITADEL_FILES[list]));
      expect(labels?.length, list).to.equal(codes?.length);
      for (const d of data) expect(d.length, `${list}: ${d.join(';')}`).to.equal(codes?.length);
      rows.set(list, data.map((d) => Object.fromEntries((codes as string[]).map((c, i) => [c, d[i] as string]))));
    }
    const unites = readTable(await readDemo('sirene/StockUniteLegale_utf8.csv'));
    sirenes = new Set(unites.rows.map((u) => u.siren as string));
    legal = new Map(unites.rows.map((u) => [u.siren as string, u.categorieJuridiqueUniteLegale as string]));
  });

  it('writes the demolition and development lists with the real headers, word for word', async () => {
    expect((await readDemo(SITADEL_FILES.demolir)).split('\n').slice(0, 2).join('\n')).to.equal(realHeader('Liste-des-permis-de-demolir.2026-01.head200.csv'));
    expect((await readDemo(SITADEL_FILES.amenager)).split('\n').slice(0, 2).join('\n')).to.equal(realHeader('Liste-des-permis-damenager.2026-01.head200.csv'));
  });

  it('shares about 1,500 permits among the four lists, with their number and state columns', async () => {
    const r = await smallDemo();
    expect(r.counts.permis).to.equal(1500);
    expect(lists.map((l) => rows.get(l)!.length)).to.deep.equal([825, 300, 150, 225]);
    expect(Object.keys(rows.get('logements')![0]!)).to.include.members(['TYPE_DAU', 'NUM_DAU', 'ETAT_DAU', 'NB_LGT_TOT_CREES', 'SURF_HAB_CREEE']);
    expect(Object.keys(rows.get('locaux')![0]!)).to.include.members(['TYPE_DAU', 'NUM_DAU', 'ETAT_DAU', 'SURF_LOC_CREEE']).and.not.include('NB_LGT_TOT_CREES');
    expect(Object.keys(rows.get('demolir')![0]!)).to.include.members(['NUM_PD', 'ETAT_PD']);
    expect(Object.keys(rows.get('amenager')![0]!)).to.include.members(['NUM_PA', 'ETAT_PA', 'DATE_REELLE_DOC']);
    // Numbers bare, texts quoted, as the SDES writes them.
    const raw = (await readDemo(SITADEL_FILES.logements)).split('\n')[2]!;
    expect(raw).to.match(/^"\d{2}";"[^"]+";"[0-9AB]{2,3}";"[^"]+";"[0-9AB]{5}";"(PC|DP)";"[0-9A-Z]{13}";[2456];"\d{4}-\d{2}-\d{2}";/);
  });

  it('gives unique registration numbers shaped like the real ones, and the recipes’ showcase permit', () => {
    const seen = new Set<string>();
    for (const list of lists)
      for (const r of rows.get(list)!) {
        const kind = r.TYPE_DAU || (list === 'demolir' ? 'PD' : 'PA');
        const number = r.NUM_DAU || r.NUM_PD || r.NUM_PA || '';
        const dep = r.DEP_CODE!.length === 3 ? r.DEP_CODE : `0${r.DEP_CODE}`;
        expect(number, number).to.match(new RegExp(`^${dep}${r.COMM!.slice(-3)}\\d{2}[A-Z]\\d{4}$`));
        expect(seen.has(`${kind}${number}`), number).to.equal(false);
        seen.add(`${kind}${number}`);
      }
    expect(rows.get('logements')![0]).to.include({ COMM: '29232', TYPE_DAU: 'PC', NUM_DAU: '02923224A0001', ETAT_DAU: '5' });
  });

  it('keeps states and dates consistent, over the last three years, some in the last 45 days', () => {
    const today = day(TODAY);
    let recent = 0;
    for (const list of lists)
      for (const r of rows.get(list)!) {
        const state = r.ETAT_DAU || r.ETAT_PD || r.ETAT_PA;
        expect(['2', '4', '5', '6']).to.include(state);
        expect(isRealDay(r.DATE_REELLE_AUTORISATION!)).to.equal(true);
        const authorised = day(r.DATE_REELLE_AUTORISATION!);
        expect(authorised).to.be.at.most(today);
        if (r.NUM_DAU !== '02923224A0001') expect(authorised).to.be.at.least(today - 3 * 365 - 3);
        if (today - authorised <= 45 && state !== '4') recent += 1;
        if (list === 'demolir') continue;
        expect(r.DATE_REELLE_DOC !== '', `${state} ${r.DATE_REELLE_DOC}`).to.equal(state === '5' || state === '6');
        expect(r.DATE_REELLE_DAACT !== '').to.equal(state === '6');
        if (r.DATE_REELLE_DOC) expect(day(r.DATE_REELLE_DOC)).to.be.within(authorised, today);
        if (r.DATE_REELLE_DAACT) expect(day(r.DATE_REELLE_DAACT)).to.be.within(day(r.DATE_REELLE_DOC!), today);
        expect(r.DPC_DERN! >= r.DPC_AUT!).to.equal(true);
      }
    expect(recent).to.be.greaterThan(50);
  });

  it('takes applicants among the demo companies (legal persons) and public bodies, and never names a private one', () => {
    const all = lists.flatMap((l) => rows.get(l)!);
    let companies = 0;
    let bodies = 0;
    for (const r of all) {
      if (!r.SIREN_DEM) {
        expect(r.DENOM_DEM, 'a private applicant is never named').to.equal('');
        expect(r.SIRET_DEM).to.equal('');
        continue;
      }
      expect(luhnValid(r.SIREN_DEM)).to.equal(true);
      expect(r.SIRET_DEM!.startsWith(r.SIREN_DEM)).to.equal(true);
      expect(r.DENOM_DEM).to.not.equal('');
      if (sirenes.has(r.SIREN_DEM)) {
        companies += 1;
        expect(legal.get(r.SIREN_DEM)).to.not.equal('1000');
        expect(r.APE_DEM).to.match(/^4[123]\.\d{2}[A-Z]$/);
      } else {
        bodies += 1;
        expect(r.SIREN_DEM).to.match(/^2[12]|^200/);
        expect(['7210', '7220']).to.include(r.CJ_DEM);
      }
    }
    expect(companies / all.length).to.be.within(0.4, 0.6);
    expect(bodies / all.length).to.be.within(0.08, 0.25);
  });
});
