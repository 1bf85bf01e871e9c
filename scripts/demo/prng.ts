// Seeded pseudo-random numbers for the demo data: mulberry32 streams derived from the
// seed, a label and an index, so each record can be rebuilt alone, in any order.

/** 32-bit hash of numbers (murmur3 finaliser over a running mix); stable across runs. */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const p of parts) {
    let k = Math.imul(p >>> 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a hash of a label, to name independent streams. */
export function labelHash(label: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** n decimal digits as a string (leading zeros kept). */
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(Math.floor(this.next() * 10));
    return s;
  }

  /** Standard normal deviate (Box-Muller). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/** The stream of one record: same seed, label and index give the same numbers. */
export function rngFor(seed: number, label: string, index = 0): Rng {
  return new Rng(mix(seed, labelHash(label), index));
}

/** Weighted choice among fixed items, by binary search over cumulative weights. */
export class Weighted<T> {
  private readonly items: readonly T[];
  private readonly cumulative: Float64Array;
  private readonly total: number;

  constructor(entries: readonly (readonly [T, number])[]) {
    if (entries.length === 0) throw new RangeError('no weighted entries');
    this.items = entries.map(([item]) => item);
    this.cumulative = new Float64Array(entries.length);
    let sum = 0;
    entries.forEach(([, w], i) => {
      if (!(w > 0)) throw new RangeError('weights must be positive');
      sum += w;
      this.cumulative[i] = sum;
    });
    this.total = sum;
  }

  pickIndex(rng: Rng): number {
    const x = rng.next() * this.total;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  pick(rng: Rng): T {
    return this.items[this.pickIndex(rng)]!;
  }
}
