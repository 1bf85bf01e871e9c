// Dates on the pages are French words read from the answers' own text: the day (« 1er » for the first), the Paris wall clock of a moment, never recomputed in another zone.
import { expect } from 'chai';
import { longDate, longDateTime, monthYear } from '../../src/platform/french-dates.js';

describe('French dates in words', () => {
  it('writes a day, the first of the month as « 1er »', () => {
    expect(longDate('2026-09-14')).to.equal('14 septembre 2026');
    expect(longDate('2026-03-01')).to.equal('1er mars 2026');
    expect(longDate('2026-08-05T10:00:00+02:00')).to.equal('5 août 2026');
  });

  it('writes a moment at its Paris wall clock, whatever the machine’s zone', () => {
    expect(longDateTime('2026-02-16T12:00:00+01:00')).to.equal('16 février 2026 à 12 h 00');
    expect(longDateTime('2026-10-25T02:30:00+02:00')).to.equal('25 octobre 2026 à 2 h 30');
    expect(longDateTime('2026-12-31')).to.equal('31 décembre 2026');
  });

  it('writes a month, and leaves what is no date as it is', () => {
    expect(monthYear('2026-06')).to.equal('juin 2026');
    expect(longDate('inconnue')).to.equal('inconnue');
    expect(longDate('2026-13-01')).to.equal('2026-13-01');
  });
});
