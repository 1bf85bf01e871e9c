// One element per closing date, newest first, the company's own accounts before consolidated ones, change and duration from the previous year, confidential years without figures.
import { expect } from 'chai';
import { yearlyAccounts, type AccountFields } from '../../../src/domains/companies/finances.js';

const account = (date_cloture: string, type_bilan: string, chiffre_affaires: number | null, confidentiel = false): AccountFields => ({
  date_cloture,
  type_bilan,
  confidentiel,
  chiffre_affaires,
  marge_brute: null,
  ebe: null,
  resultat_net: 1,
});

describe('yearly accounts', () => {
  it('prefers C, then S, then others, K last, on the same closing date', () => {
    const years = yearlyAccounts([account('2022-12-31', 'K', 900), account('2022-12-31', 'C', 100), account('2021-12-31', 'K', 800), account('2021-12-31', 'S', 80)]);
    expect(years.map((y) => [y.exercice, y.type_bilan, y.chiffre_affaires])).to.deep.equal([
      ['2022-12-31', 'C', 100],
      ['2021-12-31', 'S', 80],
    ]);
    expect(years[0]).to.include({ duree_mois: 12, variation_ca_pct: 25 });
    expect(years[1]).to.include({ duree_mois: null, variation_ca_pct: null });
  });

  it('gives no change across a confidential year, a missing turnover or a zero one, and counts a shortened year', () => {
    const years = yearlyAccounts([account('2020-12-31', 'S', 0), account('2021-06-30', 'S', 50), account('2022-06-30', 'S', 70, true), account('2023-06-30', 'S', 90), account('2024-06-30', 'S', null)]);
    expect(years.map((y) => y.variation_ca_pct)).to.deep.equal([null, null, null, null, null]);
    expect(years.map((y) => y.duree_mois)).to.deep.equal([12, 12, 12, 6, null]);
    expect(years[2]).to.include({ comptes_confidentiels: true, chiffre_affaires: null, resultat_net: null });
  });
});
