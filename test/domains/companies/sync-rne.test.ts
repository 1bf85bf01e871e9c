// An item of the INPI's `/companies/diff` ({"company": {…}}) is the company the RNE importer reads, and keeps no more of its officers than an imported one: name, first names, role and year of birth, never an address or a birth month.
import { expect } from 'chai';
import { diffItemToCompany } from '../../../src/domains/companies/sync-rne.js';
import { rne } from '../../../src/domains/companies/import-rne.js';
import { rneCompany, rnePerson } from '../../helpers/company-sources.js';

const NOW = '2026-11-26T08:00:00.000Z';

describe('RNE diff items as companies', () => {
  it('unwraps `company`, and the mapped row is the one an imported company gives', () => {
    const company = rneCompany('894512367', '2026-11-25T10:11:12+01:00', [rnePerson('KERDRAON', ['Yannick', 'Marie'], '30', '1970-04-17')]);
    expect(diffItemToCompany({ company })).to.equal(company);
    const mapped = rne.map(diffItemToCompany({ company }), NOW);
    expect(mapped).to.deep.equal(rne.map(company, NOW));
    const row = (mapped as { row: { siren: string; officers: string; capital_social_eur: number } }).row;
    expect(row.siren).to.equal('894512367');
    expect(row.capital_social_eur).to.equal(15000);
    expect(JSON.parse(row.officers)).to.deep.equal([{ type: 'personne_physique', nom: 'KERDRAON', prenoms: 'Yannick Marie', qualite: (JSON.parse(row.officers) as { qualite: string }[])[0]?.qualite, annee_naissance: 1970, siren: null, denomination: null }]);
    expect(row.officers).to.not.match(/PLOUGONVELIN|MOUETTES|1970-04/);
  });

  it('an item without `company` is read as the company itself; anything else is skipped by the importer with its reason', () => {
    const company = rneCompany('894512367', '2026-11-25', []);
    expect(diffItemToCompany(company)).to.equal(company);
    for (const bad of [null, 3, { company: null }, { company: { siren: '1' } }]) expect(rne.map(diffItemToCompany(bad), NOW)).to.have.property('skip');
  });
});
