// The market-brand report of one company: pure aggregation of the awards it won (tested
// without a database), so both engines give the same report.
import { CPV_DIVISION_45 } from '../reference/lists.js';
import type { WonAward } from './store.js';

export interface Tally {
  nombre: number;
  montant_total: number;
}

/** Cents: sums of amounts stay exact enough and print the same everywhere. */
export const cents = (n: number) => Math.round(n * 100) / 100;

/** CPV group: the code's first 3 digits (45261000-4 → 452). */
export const cpvFamily = (cpv: string | null): string | null => (cpv && /^[0-9]{3}/.test(cpv) ? cpv.slice(0, 3) : null);

const CPV_GROUP_LABELS = new Map(CPV_DIVISION_45.filter((c) => c.niveau <= 2).map((c) => [c.code.slice(0, 3), c.libelle]));
export const cpvFamilyLabel = (family: string): string | null => (family === '450' ? null : (CPV_GROUP_LABELS.get(family) ?? null));

/** Count and total amount per key, the keys sorted by count, then amount, then key (a stable order on both engines). */
export function tally<K extends string>(awards: readonly WonAward[], keyOf: (a: WonAward) => K | null): { key: K; nombre: number; montant_total: number }[] {
  const byKey = new Map<K, Tally>();
  for (const a of awards) {
    const key = keyOf(a);
    if (key === null) continue;
    const t = byKey.get(key) ?? { nombre: 0, montant_total: 0 };
    t.nombre += 1;
    t.montant_total += a.montant ?? 0;
    byKey.set(key, t);
  }
  return [...byKey]
    .map(([key, t]) => ({ key, nombre: t.nombre, montant_total: cents(t.montant_total) }))
    .sort((x, y) => y.nombre - x.nombre || y.montant_total - x.montant_total || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}

/** Runs of consecutive years holding at least one win, oldest first. */
export function winStreaks(years: readonly number[]): { debut: number; fin: number; annees: number }[] {
  const sorted = [...new Set(years)].sort((a, b) => a - b);
  const streaks: { debut: number; fin: number; annees: number }[] = [];
  for (const y of sorted) {
    const last = streaks.at(-1);
    if (last && last.fin === y - 1) {
      last.fin = y;
      last.annees += 1;
    } else streaks.push({ debut: y, fin: y, annees: 1 });
  }
  return streaks;
}

export const yearOf = (a: WonAward): string | null => (a.date_notification && /^[0-9]{4}/.test(a.date_notification) ? a.date_notification.slice(0, 4) : null);
