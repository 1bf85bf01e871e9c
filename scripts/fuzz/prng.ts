// The demo data's deterministic PRNG (mulberry32), with what the fuzzer adds: a printed seed
// replays a run, and each case draws from a generator of its own (seed, case index), so one
// case replays alone.
import { mix, Rng as SeededRng } from '../demo/prng.js';

export class Rng extends SeededRng {
  /** The generator of case `index` of the run seeded `seed`: independent of every other case. */
  static forCase(seed: number, index: number): Rng {
    return new Rng(mix(seed, index));
  }

  /** One of the entries, each with the weight it carries. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((s, [, w]) => s + w, 0);
    let r = this.next() * total;
    for (const [value, weight] of entries) {
      r -= weight;
      if (r < 0) return value;
    }
    return (entries[entries.length - 1] as readonly [T, number])[0];
  }
}
