// The one query syntax of the service, for every search and every alert. Words are all
// required; "a phrase" matches its words consecutive, in that order, within one field; a
// comma separates alternatives (OR of groups); the last word of each alternative (3
// characters or more, outside quotes) also matches as the start of a word. Case, accents
// and elided articles (l', d', qu'…) are folded alike at index time and at query time
// (`searchWords`), so SQLite and PostgreSQL see the same words; no stemming, no stop words.
import { QuerySyntaxError } from './errors.js';
import { foldText } from './text-fold.js';

export const QUERY_LIMITS = {
  /** Alternatives (groups separated by commas). */
  alternatives: 10,
  /** Words in one alternative, the words of its phrases included. */
  wordsPerAlternative: 20,
  /** Characters of one word, once folded. */
  wordLength: 50,
} as const;

/** The last word of an alternative matches as a prefix from this many characters on. */
export const PREFIX_MIN_LENGTH = 3;

/** One required word; `prefix`: also matches the words it starts (`couvert` → `couverture`). */
export interface WordTerm {
  readonly kind: 'word';
  readonly word: string;
  readonly prefix: boolean;
}
/** Two words or more, consecutive and in this order, within one field. */
export interface PhraseTerm {
  readonly kind: 'phrase';
  readonly words: readonly string[];
}
export type QueryTerm = WordTerm | PhraseTerm;
/** An alternative: all its terms are required. */
export interface QueryGroup {
  readonly terms: readonly QueryTerm[];
}
export interface ParsedQuery {
  /** At least one; a document matches when it matches any of them. */
  readonly groups: readonly QueryGroup[];
  /** The query in one canonical text (alternatives deduplicated and sorted): equal for equivalent queries, and parses back to the same query. */
  readonly canonical: string;
}

// French elisions (l'école, d'électricité, qu'il, jusqu'à): the article goes, the word stays.
const ELISION = /(?<![\p{L}\p{N}])(?:jusqu|lorsqu|puisqu|quoiqu|qu|[cdjlmnst])['’ʼ](?=[\p{L}\p{N}])/giu;

const APOSTROPHE = /['’ʼ]/;
const foldedCodePoints = new Map<number, string>();

/** What `foldText` makes of one character between two letters: '' for an accent, 'oe' for œ, ' ' for punctuation. */
function foldCodePoint(code: number): string {
  let folded = foldedCodePoints.get(code);
  if (folded === undefined) {
    folded = foldText(`a${String.fromCodePoint(code)}a`).slice(1, -1);
    if (foldedCodePoints.size < 20_000) foldedCodePoints.set(code, folded);
  }
  return folded;
}

/**
 * `foldText(text).split(' ')` in one pass, character by character (non-ASCII characters
 * through `foldText` itself, cached): the same words (the tests compare both on random
 * text), about 3.5 times faster: it sits on the import's hot path.
 */
const ASCII_ONLY = /^[^\u0080-\uffff]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

export function foldWords(text: string): string[] {
  // Plain ASCII (most SIRENE names): the same words by two native calls, without a string per character.
  if (ASCII_ONLY.test(text)) return text.toLowerCase().match(ASCII_WORD) ?? [];
  const words: string[] = [];
  let word = '';
  const add = (piece: string) => {
    for (const ch of piece) {
      if (ch !== ' ') word += ch;
      else if (word) {
        words.push(word);
        word = '';
      }
    }
  };
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i);
    if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) word += text[i];
    else if (code >= 65 && code <= 90) word += String.fromCharCode(code + 32);
    else if (code < 128) {
      if (word) words.push(word);
      word = '';
    } else {
      const next = text.charCodeAt(i + 1);
      if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = (code - 0xd800) * 0x400 + (next - 0xdc00) + 0x10000;
        i += 1;
      }
      add(foldCodePoint(code));
    }
  }
  if (word) words.push(word);
  return words;
}

/** The words of a text as the search indexes and matches them: folded (`foldText`), elided articles removed. */
export function searchWords(text: string | null | undefined): string[] {
  if (!text) return [];
  return foldWords(APOSTROPHE.test(text) ? text.replace(ELISION, ' ') : text);
}

const QUOTES = new Set(['"', '“', '”', '«', '»', '„']);

function invalid(message: string): QuerySyntaxError {
  return new QuerySyntaxError('query', `L'argument « query » ${message}`);
}

interface Draft {
  words: string[];
  quoted: boolean;
}

/** Parses a query of the service's syntax; throws `QuerySyntaxError` (argument `query`) beyond the limits or without any word. */
export function parseQuery(text: string): ParsedQuery {
  if (typeof text !== 'string') throw invalid('doit être un texte.');
  // Split into alternatives of segments, quoted or not; an unclosed quote closes at the end.
  const drafts: Draft[][] = [[]];
  let quoted = false;
  let buffer = '';
  const flush = () => {
    const words = searchWords(buffer);
    buffer = '';
    if (!words.length) return;
    const current = drafts[drafts.length - 1] as Draft[];
    if (quoted) current.push({ words, quoted: true });
    else for (const word of words) current.push({ words: [word], quoted: false });
  };
  for (const ch of text) {
    if (QUOTES.has(ch)) {
      flush();
      quoted = !quoted;
    } else if (ch === ',' && !quoted) {
      flush();
      drafts.push([]);
    } else buffer += ch;
  }
  flush();

  const groups: QueryGroup[] = [];
  const seen = new Set<string>();
  for (const draft of drafts) {
    if (!draft.length) continue;
    const count = draft.reduce((n, d) => n + d.words.length, 0);
    if (count > QUERY_LIMITS.wordsPerAlternative)
      throw invalid(`compte ${count} mots dans une alternative : ${QUERY_LIMITS.wordsPerAlternative} au plus (les alternatives sont séparées par des virgules).`);
    const long = draft.flatMap((d) => d.words).find((w) => w.length > QUERY_LIMITS.wordLength);
    if (long) throw invalid(`contient un mot de plus de ${QUERY_LIMITS.wordLength} caractères (« ${long.slice(0, 20)}… »).`);
    const terms: QueryTerm[] = draft.map((d, i) => {
      if (d.words.length > 1) return { kind: 'phrase', words: d.words };
      const word = d.words[0] as string;
      const last = i === draft.length - 1;
      return { kind: 'word', word, prefix: last && !d.quoted && word.length >= PREFIX_MIN_LENGTH };
    });
    const group = { terms: dedupe(terms) };
    const key = renderGroup(group);
    if (seen.has(key)) continue;
    seen.add(key);
    groups.push(group);
  }
  if (!groups.length) throw invalid('ne contient aucun mot à chercher.');
  if (groups.length > QUERY_LIMITS.alternatives)
    throw invalid(`compte ${groups.length} alternatives (séparées par des virgules) : ${QUERY_LIMITS.alternatives} au plus.`);
  const canonical = groups.map(renderGroup).sort().join(', ');
  return { groups, canonical };
}

/** Drops a term repeated in one alternative (all are required anyway). */
function dedupe(terms: QueryTerm[]): QueryTerm[] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = t.kind === 'word' ? `${t.word}${t.prefix ? '*' : ''}` : `"${t.words.join(' ')}"`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** An alternative in the syntax itself: reparsing it gives the same terms. */
function renderGroup(group: QueryGroup): string {
  return group.terms
    .map((t, i) => {
      if (t.kind === 'phrase') return `"${t.words.join(' ')}"`;
      // A last word that is not a prefix although long enough was quoted: keep it quoted.
      const exact = i === group.terms.length - 1 && !t.prefix && t.word.length >= PREFIX_MIN_LENGTH;
      return exact ? `"${t.word}"` : t.word;
    })
    .join(' ');
}

/** Whether a document, given as the search words of each of its fields, matches the query: the reference the engines are tested against. */
export function matchesWords(parsed: ParsedQuery, fields: readonly (readonly string[])[]): boolean {
  const hasWord = (t: WordTerm) => fields.some((words) => words.some((w) => w === t.word || (t.prefix && w.startsWith(t.word))));
  const hasPhrase = (t: PhraseTerm) =>
    fields.some((words) => words.some((_, start) => t.words.every((w, i) => words[start + i] === w)));
  return parsed.groups.some((g) => g.terms.every((t) => (t.kind === 'word' ? hasWord(t) : hasPhrase(t))));
}

/** The syntax in one French sentence, for the contract and the tool descriptions. */
export function describeQuerySyntax(): string {
  return (
    'Tous les mots sont exigés, sans tenir compte des majuscules ni des accents ; ' +
    `le dernier mot de chaque alternative trouve aussi les mots qui commencent par lui (« couvert » trouve « couverture », dès ${PREFIX_MIN_LENGTH} lettres) ; ` +
    'une expression entre guillemets ("bardage bois") est cherchée telle quelle, mots consécutifs dans cet ordre (un mot seul entre guillemets est exigé entier) ; ' +
    'une virgule sépare des alternatives : « toiture zinc, "bardage bois" » trouve (toiture ET zinc) OU « bardage bois ». ' +
    `Au plus ${QUERY_LIMITS.alternatives} alternatives de ${QUERY_LIMITS.wordsPerAlternative} mots, ${QUERY_LIMITS.wordLength} caractères par mot.`
  );
}

/**
 * The character classes the query pattern is written with, as `foldText` sees characters
 * (computed over every code point; the tests compute them again): letters and digits a
 * word keeps (`WORD_CHARS`, Latin-1's only: a subset), those and every other Latin letter
 * (`WORD_CHARS_WIDE`: a superset), the ligatures that fold into two letters, and the
 * combining accents a word carries without a letter of their own.
 */
export const PATTERN_CLASSES = {
  word: '0-9A-Za-z\\u00C0-\\u00CF\\u00D1-\\u00D6\\u00D9-\\u00DD\\u00E0-\\u00EF\\u00F1-\\u00F6\\u00F9-\\u00FD\\u00FF',
  wordWide: '0-9A-Za-z\\u00C0-\\u024F\\u1E00-\\u1EFF\\u212A\\u212B',
  ligature: '\\u00C6\\u00E6\\u0152\\u0153\\u01E2\\u01E3\\u01FC\\u01FD',
  accent: '\\u0300-\\u036F',
  quote: '"\\u201C\\u201D\\u00AB\\u00BB\\u201E',
  apostrophe: "'\\u2019\\u02BC",
} as const;

/**
 * The query syntax's limits as one ECMA-262 pattern, for the contract: at least two
 * characters other than spaces and commas, at least one word an elided article does not
 * swallow, no word over `wordLength` letters (a ligature counting two), at most
 * `alternatives` alternatives of `wordsPerAlternative` words, no comma inside quotes.
 * Never looser than `parseQuery`: where a regular expression cannot follow the folding
 * exactly (elisions, repeated words dropped, letters outside Latin-1 splitting words), it
 * counts more words and longer words, so a text it accepts `parseQuery` accepts.
 */
export function queryPattern(): string {
  const { word, wordWide, ligature, accent, quote, apostrophe } = PATTERN_CLASSES;
  const unit = `[${wordWide}][${accent}]*`;
  const half = Math.floor(QUERY_LIMITS.wordLength / 2) + 1;
  const evenQuotes = `(?=(?:[^,${quote}]*[${quote}][^,${quote}]*[${quote}])*[^,${quote}]*(?:,|$))`;
  const alternative = `[^${word}${accent},]*(?:[${word}${accent}]+(?:[^${word}${accent},]+|(?=,|$))){0,${QUERY_LIMITS.wordsPerAlternative}}`;
  return (
    '^' +
    '(?=[\\s\\S]*?[^\\s,][\\s\\S]*?[^\\s,])' +
    `(?=[\\s\\S]*?[${word}][${word}${accent}]*(?![${word}${accent}${apostrophe}]))` +
    `(?![\\s\\S]*?(?:${unit}){${QUERY_LIMITS.wordLength + 1}})` +
    `(?![\\s\\S]*?(?=(?:${unit}){${half}})(?:${unit}){0,${half - 1}}[${ligature}])` +
    `(?:${evenQuotes}${alternative}(?:,|$)){1,${QUERY_LIMITS.alternatives}}$`
  );
}
