// The robot's slots start every 3 hours on the Paris clock, winter and summer time and both change days included.
import { expect } from 'chai';
import { nextRobotSlot, robotSlotOf } from '../../../src/domains/robot/schedule.js';
import { parisIso } from '../../../src/platform/paris-time.js';

describe('robot slots', () => {
  const cases: [string, string, string][] = [
    // [moment (UTC), its slot (Paris), the next slot (Paris)]
    ['2026-11-24T06:37:00Z', '2026-11-24T06:00:00+01:00', '2026-11-24T09:00:00+01:00'],
    ['2026-11-24T05:00:00Z', '2026-11-24T06:00:00+01:00', '2026-11-24T09:00:00+01:00'],
    ['2026-11-24T04:59:59Z', '2026-11-24T03:00:00+01:00', '2026-11-24T06:00:00+01:00'],
    ['2026-11-24T22:30:00Z', '2026-11-24T21:00:00+01:00', '2026-11-25T00:00:00+01:00'],
    ['2026-07-14T12:00:00Z', '2026-07-14T12:00:00+02:00', '2026-07-14T15:00:00+02:00'],
    // 29 March 2026: 02:00 → 03:00 in Paris (a 23 h day).
    ['2026-03-29T00:30:00Z', '2026-03-29T00:00:00+01:00', '2026-03-29T03:00:00+02:00'],
    ['2026-03-29T01:00:00Z', '2026-03-29T03:00:00+02:00', '2026-03-29T06:00:00+02:00'],
    // 25 October 2026: 03:00 → 02:00 in Paris (a 25 h day).
    ['2026-10-24T23:30:00Z', '2026-10-25T00:00:00+02:00', '2026-10-25T03:00:00+01:00'],
    ['2026-10-25T01:30:00Z', '2026-10-25T00:00:00+02:00', '2026-10-25T03:00:00+01:00'],
    ['2026-10-25T02:00:00Z', '2026-10-25T03:00:00+01:00', '2026-10-25T06:00:00+01:00'],
  ];
  for (const [at, slot, next] of cases) {
    it(`${at}: slot ${slot}, next ${next}`, () => {
      expect(parisIso(robotSlotOf(new Date(at)))).to.equal(slot);
      expect(parisIso(nextRobotSlot(new Date(at)))).to.equal(next);
    });
  }
});
