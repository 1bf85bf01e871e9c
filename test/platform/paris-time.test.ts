// Paris calendar: the day a moment belongs to and the next midnight, right on the 23-hour and 25-hour days of the clock changes; a stored moment answered in the one form (Paris time, offset, to the second).
import { expect } from 'chai';
import { nextParisMidnight, parisDay, parisIso, parisIsoOf } from '../../src/platform/paris-time.js';

const cases: { name: string; at: string; day: string; iso: string; midnight: string }[] = [
  { name: 'a winter evening', at: '2026-11-21T22:59:59Z', day: '2026-11-21', iso: '2026-11-21T23:59:59+01:00', midnight: '2026-11-21T23:00:00.000Z' },
  { name: 'winter midnight belongs to the new day', at: '2026-11-21T23:00:00Z', day: '2026-11-22', iso: '2026-11-22T00:00:00+01:00', midnight: '2026-11-22T23:00:00.000Z' },
  { name: 'a summer evening', at: '2026-07-14T21:30:00Z', day: '2026-07-14', iso: '2026-07-14T23:30:00+02:00', midnight: '2026-07-14T22:00:00.000Z' },
  { name: 'spring change day (23 h): from 00:30 to the next midnight', at: '2026-03-28T23:30:00Z', day: '2026-03-29', iso: '2026-03-29T00:30:00+01:00', midnight: '2026-03-29T22:00:00.000Z' },
  { name: 'spring change day, after 03:00 summer time', at: '2026-03-29T01:30:00Z', day: '2026-03-29', iso: '2026-03-29T03:30:00+02:00', midnight: '2026-03-29T22:00:00.000Z' },
  { name: 'autumn change day (25 h): from 00:30 to the next midnight', at: '2026-10-24T22:30:00Z', day: '2026-10-25', iso: '2026-10-25T00:30:00+02:00', midnight: '2026-10-25T23:00:00.000Z' },
  { name: 'autumn change day, the repeated 02:30 (second time)', at: '2026-10-25T01:30:00Z', day: '2026-10-25', iso: '2026-10-25T02:30:00+01:00', midnight: '2026-10-25T23:00:00.000Z' },
];

describe('Paris calendar', () => {
  for (const c of cases) {
    it(c.name, () => {
      const at = new Date(c.at);
      expect(parisDay(at)).to.equal(c.day);
      expect(parisIso(at)).to.equal(c.iso);
      expect(nextParisMidnight(at).toISOString()).to.equal(c.midnight);
    });
  }
  it('writes every instant as Intl reads the Paris clock, to the second, around both changes (the offset kept per UTC hour)', () => {
    const intl = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'longOffset' });
    const expected = (at: Date) => {
      const p = Object.fromEntries(intl.formatToParts(at).map((x) => [x.type, x.value]));
      return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}:${p.second}${String(p.timeZoneName).replace('GMT', '')}`;
    };
    for (const start of ['2026-03-28T22:00:00.000Z', '2026-10-24T22:00:00.000Z', '1969-12-31T22:00:00.000Z']) {
      // Every 7 min 13.7 s over 6 hours, then each side of the change's very second.
      for (let ms = Date.parse(start); ms < Date.parse(start) + 6 * 3600_000; ms += 433_700) expect(parisIso(new Date(ms)), new Date(ms).toISOString()).to.equal(expected(new Date(ms)));
    }
    for (const edge of ['2026-03-29T00:59:59.999Z', '2026-03-29T01:00:00.000Z', '2026-10-25T00:59:59.999Z', '2026-10-25T01:00:00.000Z']) expect(parisIso(new Date(edge)), edge).to.equal(expected(new Date(edge)));
  });

  it('gives a 23-hour and a 25-hour day on the change days', () => {
    const spring = nextParisMidnight(new Date('2026-03-28T23:00:00Z')).getTime() - new Date('2026-03-28T23:00:00Z').getTime();
    const autumn = nextParisMidnight(new Date('2026-10-24T22:00:00Z')).getTime() - new Date('2026-10-24T22:00:00Z').getTime();
    expect(spring / 3600_000).to.equal(23);
    expect(autumn / 3600_000).to.equal(25);
  });

  it('answers a stored moment in Paris time to the second, a day as a day, null as null', () => {
    expect(parisIsoOf('2026-10-13T10:00:00.000Z')).to.equal('2026-10-13T12:00:00+02:00');
    expect(parisIsoOf('2026-11-23T16:26:36Z')).to.equal('2026-11-23T17:26:36+01:00');
    expect(parisIsoOf('2026-03-12T09:30:00+01:00')).to.equal('2026-03-12T09:30:00+01:00');
    expect(parisIsoOf('2026-03-12')).to.equal('2026-03-12');
    expect(parisIsoOf(null)).to.equal(null);
    expect(parisIsoOf(undefined)).to.equal(null);
  });
});
