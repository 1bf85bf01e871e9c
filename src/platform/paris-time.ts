// Europe/Paris calendar: the day a moment belongs to, its next midnight (23 h and 25 h days
// included), and ISO 8601 timestamps with the Paris offset.

const PARTS = new Intl.DateTimeFormat('en-CA', {
  timeZone: 'Europe/Paris',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

function parts(at: Date): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of PARTS.formatToParts(at)) if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out;
}

/** Minutes east of UTC in Paris at that moment (60 or 120). */
export function parisOffsetMinutes(at: Date): number {
  const p = parts(at);
  const asUtc = Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60000);
}

/** `YYYY-MM-DD` of the Paris calendar day. */
export function parisDay(at: Date): string {
  const p = parts(at);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

/** The next midnight in Paris after `at` (midnight is never skipped by a DST change there). */
export function nextParisMidnight(at: Date): Date {
  const p = parts(at);
  const nextDayUtcMidnight = Date.UTC(p.year as number, (p.month as number) - 1, (p.day as number) + 1);
  // Paris is UTC+1 or UTC+2: local midnight is one of these two instants.
  for (const offsetHours of [1, 2]) {
    const candidate = new Date(nextDayUtcMidnight - offsetHours * 3600_000);
    const c = parts(candidate);
    if (c.hour === 0 && c.minute === 0 && candidate > at) return candidate;
  }
  throw new Error('minuit introuvable');
}

/**
 * Paris offsets change only on whole UTC hours (01:00 UTC), so the offset of a UTC hour is
 * computed once (Intl is ~5 µs a call; a page of 100 events asked for 200). Bounded.
 */
const offsetByHour = new Map<number, number>();

function offsetOfHour(at: Date): number {
  const hour = Math.floor(at.getTime() / 3_600_000);
  let offset = offsetByHour.get(hour);
  if (offset === undefined) {
    if (offsetByHour.size >= 50_000) offsetByHour.clear();
    offset = parisOffsetMinutes(at);
    offsetByHour.set(hour, offset);
  }
  return offset;
}

/** ISO 8601 with the Paris offset, to the second, e.g. `2026-11-21T10:00:00+01:00`. */
export function parisIso(at: Date): string {
  const offset = offsetOfHour(at);
  const wall = new Date(Math.floor(at.getTime() / 1000) * 1000 + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset >= 0 ? '+' : '-';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${wall}${sign}${hh}:${mm}`;
}

/**
 * A stored moment (ISO 8601 in any offset, as the data layer keeps it) as answered: Paris
 * time with its offset; null stays null. A date alone (`AAAA-MM-JJ`) is a day, kept as is.
 */
export function parisIsoOf(stored: string | null | undefined): string | null {
  if (stored === null || stored === undefined || stored === '') return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(stored)) return stored;
  const at = new Date(stored);
  return Number.isFinite(at.getTime()) ? parisIso(at) : stored;
}

/** The hour (0–23) on a Paris clock at that moment. */
export function parisHour(at: Date): number {
  return parts(at).hour as number;
}
