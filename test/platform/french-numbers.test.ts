// Amounts and numbers read as French text everywhere the service writes them: grouped by narrow no-break spaces, rounded to the unit, the sign kept.
import { expect } from 'chai';
import { euros, wholeNumberFr } from '../../src/platform/french-numbers.js';

describe('french numbers', () => {
  const cases: [number, string][] = [
    [0, '0'],
    [999, '999'],
    [1234567, '1\u202f234\u202f567'],
    [1234.5, '1\u202f235'],
    [-85000, '-85\u202f000'],
  ];
  for (const [given, want] of cases) {
    it(`${given} → « ${want} »`, () => {
      expect(wholeNumberFr(given)).to.equal(want);
      expect(euros(given)).to.equal(`${want} €`);
    });
  }
});
