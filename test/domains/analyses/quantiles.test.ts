// Quantiles follow Hyndman and Fan's type 7 (R's and numpy's default), rounded to the cent, over known positive amounts only: the contract documents this method.
import { expect } from 'chai';
import { distribution, quantile } from '../../../src/domains/analyses/quantiles.js';
import { winStreaks } from '../../../src/domains/analyses/report.js';

describe('quantile (type 7)', () => {
  const cases: { values: number[]; p: number; want: number }[] = [
    { values: [7], p: 0.25, want: 7 },
    { values: [1, 2, 3, 4], p: 0.5, want: 2.5 },
    { values: [1, 2, 3, 4], p: 0.25, want: 1.75 },
    { values: [1, 2, 3, 4], p: 0.75, want: 3.25 },
    { values: [10, 20, 30, 40, 50], p: 0.25, want: 20 },
    { values: [5000, 45000, 250000], p: 0.75, want: 147500 },
    { values: [1, 2, 3], p: 0, want: 1 },
    { values: [1, 2, 3], p: 1, want: 3 },
  ];
  for (const c of cases) it(`gives ${c.want} for p = ${c.p} of [${c.values.join(', ')}]`, () => expect(quantile(c.values, c.p)).to.equal(c.want));
});

describe('distribution', () => {
  it('ignores unknown, zero and negative amounts, sorts, and rounds to the cent', () => {
    expect(distribution([100, null, 0, -5, 200, 400])).to.deep.equal({ nombre: 3, minimum: 100, q1: 150, mediane: 200, q3: 300, maximum: 400, moyenne: 233.33 });
  });
  it('gives nulls and a zero count without amounts', () => {
    expect(distribution([null, 0])).to.deep.equal({ nombre: 0, minimum: null, q1: null, mediane: null, q3: null, maximum: null, moyenne: null });
  });
});

describe('winStreaks', () => {
  it('groups consecutive years, once each, oldest first', () => {
    expect(winStreaks([2025, 2021, 2023, 2024, 2023])).to.deep.equal([
      { debut: 2021, fin: 2021, annees: 1 },
      { debut: 2023, fin: 2025, annees: 3 },
    ]);
    expect(winStreaks([])).to.deep.equal([]);
  });
});
