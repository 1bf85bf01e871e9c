// The robot's slots: every 3 hours on the Paris clock (00:00, 03:00, …, 21:00). Paris offsets
// are whole hours, so a slot starts on a UTC hour: the search walks UTC hours (the 23 h and
// 25 h days included: 03:00 exists once on both).

import { parisHour } from '../../platform/paris-time.js';

export const ROBOT_INTERVAL_HOURS = 3;
const HOUR_MS = 3_600_000;

const isSlotStart = (at: Date): boolean => parisHour(at) % ROBOT_INTERVAL_HOURS === 0;

/** The start of the slot `at` belongs to: the latest slot start at or before it. */
export function robotSlotOf(at: Date): Date {
  const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
  for (let back = 0; back <= ROBOT_INTERVAL_HOURS + 1; back++) {
    const candidate = new Date(hour - back * HOUR_MS);
    if (isSlotStart(candidate)) return candidate;
  }
  throw new Error('créneau introuvable');
}

/** The next slot start strictly after `at`: when the robot runs next. */
export function nextRobotSlot(at: Date): Date {
  const hour = Math.floor(at.getTime() / HOUR_MS) * HOUR_MS;
  for (let ahead = 1; ahead <= ROBOT_INTERVAL_HOURS + 1; ahead++) {
    const candidate = new Date(hour + ahead * HOUR_MS);
    if (isSlotStart(candidate)) return candidate;
  }
  throw new Error('créneau introuvable');
}
