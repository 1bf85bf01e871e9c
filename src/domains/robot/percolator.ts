// The robot's percolator: many stored queries (the alerts') matched against each new document
// in memory, instead of one full-text query per alert and source. Each alternative of a
// query is filed under one anchor word it cannot match without (its longest exact word, or
// its prefix word when it has nothing else); a document looks up only its own words (and
// their prefixes) and gets the few queries that can match it, which are then checked with
// `matchesWords`, the reference the search engines themselves are tested against. So an
// alert finds here exactly what its query would find in a search of the same fields.
//
// Why: 10,000 alerts × 10 sources as SQL full-text queries is 100,000 queries per run; at the
// searches' measured p50 on the large demo set (1 to 26 ms, README « Performance ») that is
// minutes to tens of minutes. Percolated, the bench's whole run (10,000 alerts, 10,000 new
// documents, 216,002 events written) took 24.4 s on SQLite (README « The alert robot »).
import { matchesWords, PREFIX_MIN_LENGTH, QUERY_LIMITS, type ParsedQuery, type QueryGroup } from '../../platform/search/query-syntax.js';

export interface StoredQuery {
  parsed: ParsedQuery;
}

/** The anchor of an alternative: a word every matching document holds, or a prefix of one. */
function anchorOf(group: QueryGroup): { word: string; prefix: boolean } {
  let best: string | null = null;
  let prefix: string | null = null;
  for (const term of group.terms) {
    if (term.kind === 'phrase') {
      for (const w of term.words) if (!best || w.length > best.length) best = w;
    } else if (term.prefix) prefix = term.word;
    else if (!best || term.word.length > best.length) best = term.word;
  }
  if (best) return { word: best, prefix: false };
  return { word: prefix as string, prefix: true };
}

export class Percolator<Q extends StoredQuery> {
  private readonly exact = new Map<string, number[]>();
  private readonly prefixes = new Map<string, number[]>();
  private readonly prefixLengths = new Set<number>();
  /** The last document each query was a candidate for: a query is checked once per document. */
  private readonly seen: Int32Array;
  private documentNumber = 0;

  constructor(readonly queries: readonly Q[]) {
    this.seen = new Int32Array(queries.length).fill(-1);
    queries.forEach((q, i) => {
      for (const group of q.parsed.groups) {
        const anchor = anchorOf(group);
        const map = anchor.prefix ? this.prefixes : this.exact;
        const list = map.get(anchor.word);
        if (!list) map.set(anchor.word, [i]);
        else if (list[list.length - 1] !== i) list.push(i);
        if (anchor.prefix) this.prefixLengths.add(anchor.word.length);
      }
    });
  }

  /**
   * The queries matching a document given as the search words of each of its fields (the
   * words its search index holds), among those `accept` keeps (window, departments…).
   */
  match(doc: { fields: readonly (readonly string[])[]; pieces?: readonly (readonly (readonly string[])[])[] }, accept: (query: Q) => boolean): Q[] {
    const { fields, pieces } = doc;
    // A document of several pieces (a consultation file's pages) matches when one piece does, as its search would.
    const matches = (parsed: ParsedQuery) => (pieces ? pieces.some((p) => matchesWords(parsed, p)) : matchesWords(parsed, fields));
    const number = this.documentNumber++;
    const out: Q[] = [];
    const consider = (list: number[] | undefined) => {
      if (!list) return;
      for (const i of list) {
        if (this.seen[i] === number) continue;
        this.seen[i] = number;
        const q = this.queries[i] as Q;
        if (accept(q) && matches(q.parsed)) out.push(q);
      }
    };
    const words = new Set<string>();
    for (const field of fields) for (const w of field) words.add(w);
    for (const w of words) {
      consider(this.exact.get(w));
      if (!this.prefixLengths.size) continue;
      for (let n = PREFIX_MIN_LENGTH; n <= Math.min(w.length, QUERY_LIMITS.wordLength); n++) if (this.prefixLengths.has(n)) consider(this.prefixes.get(w.slice(0, n)));
    }
    return out;
  }
}
