// Strings matching a contract `pattern`, for valid baseline values. Handles the subset the
// contract uses (anchors, literals, escapes, classes with ranges, groups with alternatives,
// ?, *, +, {n}, {n,m}); the caller checks the result against the pattern all the same.
import type { Rng } from './prng.js';

type Part =
  | { kind: 'chars'; chars: string[] }
  | { kind: 'group'; alternatives: Quantified[][] };
interface Quantified {
  part: Part;
  min: number;
  max: number;
}

class Parser {
  private pos = 0;
  constructor(private readonly src: string) {}

  parse(): Quantified[][] {
    const alts = this.alternatives();
    if (this.pos < this.src.length) throw new Error(`unsupported pattern ${this.src}`);
    return alts;
  }

  private alternatives(): Quantified[][] {
    const alts: Quantified[][] = [this.sequence()];
    while (this.src[this.pos] === '|') {
      this.pos += 1;
      alts.push(this.sequence());
    }
    return alts;
  }

  private sequence(): Quantified[] {
    const seq: Quantified[] = [];
    while (this.pos < this.src.length && this.src[this.pos] !== '|' && this.src[this.pos] !== ')') {
      const c = this.src[this.pos] as string;
      if (c === '^' || c === '$') {
        this.pos += 1;
        continue;
      }
      seq.push(this.quantified(this.atom()));
    }
    return seq;
  }

  private atom(): Part {
    const c = this.src[this.pos] as string;
    this.pos += 1;
    if (c === '(') {
      if (this.src.startsWith('?:', this.pos)) this.pos += 2;
      const alternatives = this.alternatives();
      if (this.src[this.pos] !== ')') throw new Error(`unbalanced group in ${this.src}`);
      this.pos += 1;
      return { kind: 'group', alternatives };
    }
    if (c === '[') return { kind: 'chars', chars: this.charClass() };
    if (c === '\\') return { kind: 'chars', chars: escapeChars(this.src[this.pos++] as string) };
    if (c === '.') return { kind: 'chars', chars: [...'abcxyz'] };
    return { kind: 'chars', chars: [c] };
  }

  private charClass(): string[] {
    if (this.src[this.pos] === '^') throw new Error(`negated class unsupported in ${this.src}`);
    const chars: string[] = [];
    while (this.src[this.pos] !== ']') {
      if (this.pos >= this.src.length) throw new Error(`unterminated class in ${this.src}`);
      const c = this.src[this.pos++] as string;
      if (c === '\\') {
        chars.push(...escapeChars(this.src[this.pos++] as string));
        continue;
      }
      if (this.src[this.pos] === '-' && this.src[this.pos + 1] !== ']') {
        const end = this.src[this.pos + 1] as string;
        this.pos += 2;
        for (let code = c.charCodeAt(0); code <= end.charCodeAt(0); code++) chars.push(String.fromCharCode(code));
        continue;
      }
      chars.push(c);
    }
    this.pos += 1;
    return chars;
  }

  private quantified(part: Part): Quantified {
    const c = this.src[this.pos];
    if (c === '?') return this.take(1, { part, min: 0, max: 1 });
    if (c === '*') return this.take(1, { part, min: 0, max: 3 });
    if (c === '+') return this.take(1, { part, min: 1, max: 4 });
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) throw new Error(`bad quantifier in ${this.src}`);
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] ? Number(m[3]) : min + 3;
      return this.take(m[0].length, { part, min, max });
    }
    return { part, min: 1, max: 1 };
  }

  private take(length: number, q: Quantified): Quantified {
    this.pos += length;
    return q;
  }
}

function escapeChars(c: string): string[] {
  if (c === 'd') return [...'0123456789'];
  if (c === 'w') return [...'abcXYZ019_'];
  if (c === 's') return [' '];
  return [c];
}

const cache = new Map<string, Quantified[][]>();

function render(alternatives: Quantified[][], rng: Rng, out: string[]): void {
  for (const q of rng.pick(alternatives)) {
    const times = rng.int(q.min, q.max);
    for (let i = 0; i < times; i++) {
      if (q.part.kind === 'chars') out.push(rng.pick(q.part.chars));
      else render(q.part.alternatives, rng, out);
    }
  }
}

/** A string matching `pattern` (a few tries), or null when the pattern is outside the subset. */
export function samplePattern(pattern: string, rng: Rng): string | null {
  let parsed = cache.get(pattern);
  if (!parsed) {
    try {
      parsed = new Parser(pattern).parse();
    } catch {
      return null;
    }
    cache.set(pattern, parsed);
  }
  const re = new RegExp(pattern, 'u');
  for (let attempt = 0; attempt < 5; attempt++) {
    const out: string[] = [];
    render(parsed, rng, out);
    const s = out.join('');
    if (re.test(s)) return s;
  }
  return null;
}
