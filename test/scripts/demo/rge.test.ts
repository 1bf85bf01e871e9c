// Demo RGE list keeps the ADEME columns and values, contact fields filled as in the real file, on real establishments.
import { expect } from 'chai';
import { luhnValid } from '../../../scripts/demo/luhn.js';
import { readTable } from './csv.js';
import { isRealDay, readDemo, TODAY } from './fixture.js';

const HEADER = [
  'nom_entreprise', 'siret', 'adresse', 'code_postal', 'commune', 'latitude', 'longitude', 'telephone', 'email',
  'site_internet', 'organisme', 'domaine', 'meta_domaine', 'code_qualification', 'nom_qualification', 'lien_date_debut',
  'lien_date_fin', 'particulier',
];

describe('demo data: RGE list', () => {
  let rge: ReturnType<typeof readTable>;
  let etabs: Map<string, Record<string, string>>;

  before(async () => {
    rge = readTable(await readDemo('rge/liste-entreprises-rge.csv'));
    const e = readTable(await readDemo('sirene/StockEtablissement_utf8.csv'));
    etabs = new Map(e.rows.map((r) => [r.siret!, r]));
  });

  it('has the ADEME header and 500 rows', () => {
    expect(rge.header).to.deep.equal(HEADER);
    expect(rge.rows).to.have.length(500);
  });

  it('names open establishments of the SIRENE files, with their postal code', () => {
    for (const r of rge.rows) {
      expect(r.siret).to.match(/^\d{14}$/);
      expect(luhnValid(r.siret!)).to.equal(true);
      const e = etabs.get(r.siret!);
      expect(e, r.siret).to.not.equal(undefined);
      expect(e!.etatAdministratifEtablissement).to.equal('A');
      expect(r.code_postal).to.equal(e!.codePostalEtablissement);
      expect(r.nom_entreprise).to.not.equal('');
      expect(Number(r.latitude)).to.be.within(-22, 52);
      expect(Number(r.longitude)).to.be.within(-62, 56);
    }
    // (siret, qualification) is the row's identity.
    expect(new Set(rge.rows.map((r) => `${r.siret}|${r.code_qualification}`)).size).to.equal(rge.rows.length);
  });

  it('fills the contact fields as the real file does (telephone, email, often a web site)', () => {
    for (const r of rge.rows) {
      expect(r.telephone).to.match(/^0\d( \d\d){4}$/);
      expect(r.email).to.match(/^[a-z0-9.-]+@[a-z0-9.-]+\.[a-z]{2,}$/);
    }
    const sites = rge.rows.filter((r) => r.site_internet !== '');
    expect(sites.length).to.be.greaterThan(rge.rows.length / 2);
    for (const r of sites) expect(r.site_internet).to.match(/^(https:\/\/)?www\.[a-z0-9.-]+\.fr$/);
  });

  it('uses real organisms, domains and dates, some qualifications expired', () => {
    const domaines = new Set(rge.rows.map((r) => r.domaine));
    expect([...domaines]).to.include.members(["Isolation des murs par l'extérieur", 'Pompe à chaleur : chauffage', 'Fenêtres, volets, portes extérieures']);
    expect([...domaines].some((d) => d!.includes(','))).to.equal(true);
    let expired = 0;
    for (const r of rge.rows) {
      expect(['qualibat', 'qualitenr', 'qualifelec']).to.include(r.organisme);
      expect(['true', 'false']).to.include(r.particulier);
      expect(r.meta_domaine).to.not.equal('');
      expect(isRealDay(r.lien_date_debut!) && isRealDay(r.lien_date_fin!)).to.equal(true);
      expect(r.lien_date_debut! < r.lien_date_fin!).to.equal(true);
      expect(r.lien_date_debut! <= TODAY).to.equal(true);
      if (r.lien_date_fin! < TODAY) expired++;
    }
    expect(expired).to.be.within(10, 150);
  });
});
