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

/** ISO 8601 with the Paris offset, e.g. `2026-11-21T10:00:00+01:00`. */
export function parisIso(at: Date): string {
  const p = parts(at);
  const offset = parisOffsetMinutes(at);
  const sign = offset >= 0 ? '+' : '-';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  const pad = (n: number | undefined) => String(n).padStart(2, '0');
  return `${p.year}-${pad(p.month)}-${pad(p.day)}T${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${sign}${hh}:${mm}`;
}

/** The hour (0–23) on a Paris clock at that moment. */
export function parisHour(at: Date): number {
  return parts(at).hour as number;
}
