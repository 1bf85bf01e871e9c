// Amount distributions computed in TypeScript over sorted values, so SQLite and PostgreSQL
// (whose percentile functions differ, SQLite having none) give the same numbers.
import { cents } from './report.js';

export const QUANTILE_METHOD = 'Interpolation linéaire entre valeurs triées (méthode 7 de Hyndman et Fan, celle de R et de numpy par défaut), arrondie au centime.';

export interface Distribution {
  nombre: number;
  minimum: number | null;
  q1: number | null;
  mediane: number | null;
  q3: number | null;
  maximum: number | null;
  moyenne: number | null;
}

/** Quantile p (0 to 1) of ascending values, Hyndman and Fan type 7: h = (n − 1)p, interpolated between x[⌊h⌋] and x[⌊h⌋ + 1]. */
export function quantile(sorted: readonly number[], p: number): number {
  if (!sorted.length) throw new RangeError('quantile of no value');
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const below = sorted[lo] as number;
  const above = sorted[Math.min(lo + 1, sorted.length - 1)] as number;
  return below + (h - lo) * (above - below);
}

/** The distribution of the known positive amounts among `values`. */
export function distribution(values: readonly (number | null)[]): Distribution {
  const sorted = values.filter((v): v is number => v !== null && Number.isFinite(v) && v > 0).sort((a, b) => a - b);
  if (!sorted.length) return { nombre: 0, minimum: null, q1: null, mediane: null, q3: null, maximum: null, moyenne: null };
  return {
    nombre: sorted.length,
    minimum: cents(sorted[0] as number),
    q1: cents(quantile(sorted, 0.25)),
    mediane: cents(quantile(sorted, 0.5)),
    q3: cents(quantile(sorted, 0.75)),
    maximum: cents(sorted.at(-1) as number),
    moyenne: cents(sorted.reduce((s, v) => s + v, 0) / sorted.length),
  };
}
