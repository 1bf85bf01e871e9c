// JSON records, streamed: the records of a JSON document are found by the keys present
// (an API answer puts `total_count` before `results`, a DECP file `$schema` before
// `marches`), never by the first bytes alone; one record a line is told apart by its first
// line. A syntax error stops the reading where it is, keeping what was read before it.
import { Readable, Transform } from 'node:stream';
import Assembler from 'stream-json/assembler.js';
import { parser } from 'stream-json';
import batch from 'stream-json/utils/batch.js';
import { ImportInputError } from './input.js';
import type { RawRecord } from './importer.js';

export interface JsonOptions {
  /**
   * Reads the bare `NaN`, `Infinity` and `-Infinity` that pandas writes into JSON as null
   * (the DECP consolidations): not JSON, but a whole file must not be lost for one value.
   */
  nonFiniteAsNull?: boolean;
}

/** The layouts understood, for the messages. */
export const JSON_LAYOUTS =
  '{"results": […]} (API Opendatasoft v2.1, quelles que soient les autres clés), {"records": [{"fields": {…}}, …]} (API Opendatasoft v1, chaque enregistrement lu dans ses « fields »), {"records": […]}, un tableau [ … ], un enregistrement JSON par ligne, DECP 2019 {"marches": […]}, DECP 2024 {"marches": {"marche": […], "contrat-concession": […]}}';

/** Top-level keys holding the list of records. */
const TOP_LISTS = new Set(['results', 'records', 'marches']);
/** Keys of the DECP 2024 `marches` object holding lists of records. */
const DECP_2024_LISTS = new Set(['marche', 'contrat-concession']);

/** How far the first line is looked for, to tell one record a line from a document. */
const HEAD_MAX_BYTES = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
/** Pieces end after a value closed back to this depth (a record of the lists read is at most 3 deep). */
const SPLIT_DEPTH = 3;
const NULL = Buffer.from('null');
const EMPTY_OBJECT = Buffer.from('{}');
const EMPTY_ARRAY = Buffer.from('[]');
/** A text ending inside a literal (true, false, null, NaN, Infinity). */
const LITERAL_CUT = /(?:^|[\s,:[])-?(?:tr?u?|fa?l?s?|nu?l?|Na?|In?f?i?n?i?t?y?)$/;
/** An element held longer than this goes to the parser as it comes (records are kilobytes). */
const ELEMENT_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Whether a value cut by the end of the input has a syntax error before its end (V8 places
 * the error at the text's end, or says so, when only the end is missing).
 */
function brokenBeforeEnd(bytes: Buffer): boolean {
  const text = bytes.toString('utf8');
  try {
    JSON.parse(text);
    return false;
  } catch (err) {
    const message = err instanceof Error ? err.message : '';
    // Cut inside its last word (`tr`, `Na`, `-Inf`…): V8 names the word's first letter.
    if (/end of JSON input/.test(message) || LITERAL_CUT.test(text)) return false;
    const at = /at position (\d+)/.exec(message);
    return !at || Number(at[1]) < text.length;
  }
}
const NON_FINITE: Record<number, Buffer> = { 0x4e: Buffer.from('NaN'), 0x49: Buffer.from('Infinity') };

/** What the scanner found of an element of a list near the top: its value, parsed whole, or its bytes left to the parser. */
export type ScannedElement = { value: unknown } | null;

/**
 * Scans the bytes before the JSON parser sees them: the byte offset (in the file as read,
 * decompressed) after each closing `}` / `]`, one for each end token of the parser, in
 * order, so that a record's end and a stop are told by their offset; and, when asked,
 * `NaN` / `Infinity` / `-Infinity` outside strings rewritten as `null`.
 *
 * Each object or array that is an element of an array near the top (a record of every
 * layout read, or an item of another list there) is parsed here whole by `JSON.parse`, and
 * the parser gets an empty `{}` / `[]` in its place: the streaming parser made every token
 * of records of several kilobytes, the bulk of a BOAMP or DECP file's reading (30 % and
 * 47 % of it on the national set). An element `JSON.parse` refuses, or one cut by the end
 * of the input, goes to the parser as it is, so that its error and its position are the
 * parser's. The bytes go to the parser in pieces cut after each value closed near the top,
 * because the parser throws away the tokens of a piece it fails in: a syntax error then
 * loses only the record it is in. Bytes, not text: the ASCII bytes looked for never occur
 * inside a multi-byte UTF-8 character.
 */
export class JsonScanner {
  /** Offset in the file of the next byte to scan. */
  offset = 0;
  nulls = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private carry: Buffer | null = null;
  private closes: number[] = [];
  private closesHead = 0;
  /** Whether the container open at each depth up to SPLIT_DEPTH is an array. */
  private readonly arrays: boolean[] = [];
  /** Depth around the element being scanned, -1 outside one. */
  private elementDepth = -1;
  /** Its bytes so far (NaN already rewritten), kept across chunks. */
  private elementParts: Buffer[] = [];
  /** The offsets after its closing brackets, told once it ends. */
  private elementCloses: number[] = [];
  /** Depth around an element handed to the parser as it comes (too large to hold), -1 outside one. */
  private rawDepth = -1;
  /** The input ended inside an element with a syntax error before its end: a broken file, not a truncated one. */
  private brokenInside = false;
  private elements: ScannedElement[] = [];
  private elementsHead = 0;

  /** `parseElements`: elements of lists near the top parsed here (a document's reading); without it, only the offsets and the NaN. */
  constructor(
    private readonly nonFiniteAsNull: boolean,
    private readonly parseElements = false,
  ) {}

  /** At the end of the input, whether a string, object or array was left open (a truncated file). */
  get unfinished(): boolean {
    return (this.inString || this.depth > 0) && !this.brokenInside;
  }

  /** The offset after the next closing bracket (the parser's next end token). */
  nextClose(): number {
    const offset = this.closes[this.closesHead++] ?? this.offset;
    if (this.closesHead > 4096 && this.closesHead * 2 > this.closes.length) {
      this.closes = this.closes.slice(this.closesHead);
      this.closesHead = 0;
    }
    return offset;
  }

  /**
   * The next element of a list near the top, in the order of the parser's start tokens of
   * such elements: its value when it was parsed here (the parser then gives an empty one),
   * null when the parser reads it.
   */
  nextElement(): ScannedElement {
    const element = this.elements[this.elementsHead++] ?? null;
    if (this.elementsHead > 4096 && this.elementsHead * 2 > this.elements.length) {
      this.elements = this.elements.slice(this.elementsHead);
      this.elementsHead = 0;
    }
    return element;
  }

  /** The pieces to parse for this chunk (a value cut by the chunk's end waits for the next one). */
  push(chunk: Buffer, end = false): Buffer[] {
    const buf = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = null;
    const base = this.offset;
    const pieces: Buffer[] = [];
    let parts: Buffer[] = this.elementParts;
    this.elementParts = [];
    let from = 0;
    let i = 0;
    for (; i < buf.length; i++) {
      const c = buf[i] as number;
      if (this.inString) {
        // Strings are most of a file's bytes: the next quote found by indexOf, not byte by byte.
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        const quote = buf.indexOf(QUOTE, i);
        const stop = quote < 0 ? buf.length : quote;
        let backslashes = 0;
        while (stop - backslashes - 1 >= i && buf[stop - backslashes - 1] === BACKSLASH) backslashes += 1;
        if (quote < 0) {
          this.escaped = backslashes % 2 === 1;
          i = buf.length - 1;
        } else {
          // An odd run of backslashes escapes the quote: the string goes on after it.
          if (backslashes % 2 === 0) this.inString = false;
          i = quote;
        }
        continue;
      }
      if (c === QUOTE) this.inString = true;
      else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (this.parseElements && this.elementDepth < 0 && this.rawDepth < 0 && this.depth >= 1 && this.depth <= SPLIT_DEPTH && this.arrays[this.depth]) {
          // An element of a list near the top: the bytes before it go as they are.
          if (from < i) parts.push(buf.subarray(from, i));
          if (parts.length) pieces.push(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
          parts = [];
          from = i;
          this.elementDepth = this.depth;
        }
        this.depth += 1;
        if (this.elementDepth < 0 && this.rawDepth < 0 && this.depth <= SPLIT_DEPTH) this.arrays[this.depth] = c === OPEN_BRACKET;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        this.depth -= 1;
        if (this.elementDepth >= 0) {
          this.elementCloses.push(base + i + 1);
          if (this.depth > this.elementDepth) continue;
          parts.push(buf.subarray(from, i + 1));
          this.endElement(Buffer.concat(parts), pieces, c === CLOSE_BRACKET);
          parts = [];
          from = i + 1;
          continue;
        }
        this.closes.push(base + i + 1);
        if (this.depth === this.rawDepth) this.rawDepth = -1;
        if (this.depth <= SPLIT_DEPTH) {
          parts.push(buf.subarray(from, i + 1));
          pieces.push(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
          parts = [];
          from = i + 1;
        }
      } else if (this.nonFiniteAsNull && (c === MINUS || NON_FINITE[c])) {
        const at = c === MINUS ? i + 1 : i;
        if (at >= buf.length && !end) break;
        const word = NON_FINITE[buf[at] as number];
        if (!word) continue;
        if (at + word.length > buf.length && !end) break;
        if (!buf.subarray(at, at + word.length).equals(word)) continue;
        parts.push(buf.subarray(from, i), NULL);
        this.nulls += 1;
        from = at + word.length;
        i = from - 1;
      }
    }
    if (i < buf.length) this.carry = buf.subarray(i);
    this.offset = base + i;
    if (from < i) parts.push(buf.subarray(from, i));
    if (this.elementDepth >= 0 && !end) {
      let size = 0;
      for (const part of parts) size += part.length;
      if (size <= ELEMENT_MAX_BYTES) {
        // An element cut by the chunk's end: its bytes wait for the rest.
        this.elementParts = parts;
        return pieces;
      }
      // Larger than any record (a quote missing makes the rest of the file one string):
      // the parser reads it as it comes, as before elements were parsed here.
      this.rawDepth = this.elementDepth;
      this.handToParser(Buffer.concat(parts), pieces);
      return pieces;
    }
    if (this.elementDepth >= 0) {
      // Cut by the end of the input: the parser reads what there is, and says where it ends.
      const bytes = Buffer.concat(parts);
      this.brokenInside = brokenBeforeEnd(bytes);
      this.handToParser(bytes, pieces);
      return pieces;
    }
    if (parts.length) pieces.push(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts));
    return pieces;
  }

  /** An element closed: parsed here, or handed to the parser as it is. */
  private endElement(bytes: Buffer, pieces: Buffer[], isArray: boolean): void {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      this.handToParser(bytes, pieces);
      return;
    }
    this.elements.push({ value });
    // The parser sees one empty value, so one end token: this element's own close.
    this.closes.push(this.elementCloses[this.elementCloses.length - 1] as number);
    this.elementCloses = [];
    this.elementDepth = -1;
    pieces.push(isArray ? EMPTY_ARRAY : EMPTY_OBJECT);
  }

  /** An element left to the parser: its bytes cut after each value closed near the top, as outside elements. */
  private handToParser(bytes: Buffer, pieces: Buffer[]): void {
    this.elements.push(null);
    this.closes.push(...this.elementCloses);
    this.elementCloses = [];
    // The same cuts as a scan of those bytes from the element's depth, its NaN already rewritten.
    const cutter = new JsonScanner(false);
    cutter.depth = this.elementDepth;
    this.elementDepth = -1;
    pieces.push(...cutter.push(bytes, true));
  }
}

/** A text with its NaN / Infinity outside strings read as null, and how many there were. */
function nonFiniteAsNull(text: string): { text: string; nulls: number } {
  const scanner = new JsonScanner(true);
  const out = Buffer.concat(scanner.push(Buffer.from(text), true));
  return { text: out.toString('utf8'), nulls: scanner.nulls };
}

/** Reads bytes until the first line is whole (or HEAD_MAX_BYTES), and gives them back with the rest. */
async function peek(stream: Readable): Promise<{ head: string; complete: boolean; rest: AsyncIterable<Buffer> }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  let complete = false;
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      complete = true;
      break;
    }
    chunks.push(next.value);
    size += next.value.length;
    if (size >= HEAD_MAX_BYTES) break;
    // A line seen after the first non-blank character: enough to tell.
    const text = next.value.toString('latin1');
    if (text.includes('\n') && Buffer.concat(chunks).toString('utf8').trimStart().includes('\n')) break;
  }
  const head = Buffer.concat(chunks).toString('utf8');
  async function* rest(): AsyncIterable<Buffer> {
    yield* chunks;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  return { head, complete, rest: rest() };
}

/**
 * An item of an Opendatasoft v1 answer (`records/1.0/search`: {"nhits", "parameters",
 * "records": [{"datasetid", "recordid", "fields": {…}, "record_timestamp"}]}): the record is
 * its `fields` (v1 leaves a null field out of them).
 */
export function opendatasoftV1Fields(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const item = value as Record<string, unknown>;
  const fields = item.fields;
  if ('recordid' in item && fields && typeof fields === 'object' && !Array.isArray(fields)) return fields;
  return value;
}

const isRecordObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
const holdsList = (v: Record<string, unknown>) => [...TOP_LISTS].some((k) => Array.isArray(v[k]) || (k === 'marches' && v[k] && typeof v[k] === 'object'));

/**
 * One record a line, or one JSON document. A first line that is a whole object without a
 * list of records is a record; one that is not whole JSON (`{` of an indented document)
 * makes a document, unless the next lines are records (the first line is then a bad record).
 */
export function detectJsonLayout(head: string, complete: boolean, options: JsonOptions = {}): 'lines' | 'document' | null {
  const start = head.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('[')) return 'document';
  if (!start.startsWith('{')) return null;
  const parse = (line: string): unknown => {
    try {
      return JSON.parse(options.nonFiniteAsNull ? nonFiniteAsNull(line).text : line) as unknown;
    } catch {
      return undefined;
    }
  };
  const lines = start.split('\n');
  if (lines.length === 1 && !complete) return 'document';
  const first = parse(lines[0] as string);
  if (isRecordObject(first)) return holdsList(first) ? 'document' : 'lines';
  // The last line of an unfinished head may be cut.
  const next = lines.slice(1, complete ? lines.length : -1).filter((l) => l.trim()).slice(0, 5);
  return next.some((l) => isRecordObject(parse(l))) ? 'lines' : 'document';
}

export async function* jsonRecords(stream: Readable, options: JsonOptions = {}): AsyncGenerator<RawRecord<unknown>> {
  const { head, complete, rest } = await peek(stream);
  const layout = detectJsonLayout(head, complete, options);
  if (!layout) throw new ImportInputError(`format JSON non reconnu (formats compris : ${JSON_LAYOUTS})`);
  if (layout === 'lines') yield* jsonLines(Readable.from(rest), options);
  else yield* jsonDocument(Readable.from(rest), options);
}

/**
 * Strictly one JSON record a line (JSON Lines), whatever the first line holds: for the
 * formats that are JSON Lines by definition, where a bad first line is a bad record, not
 * the start of another layout. A line that is not JSON is a record in error (its line number).
 */
export function jsonLineRecords(stream: Readable): AsyncGenerator<RawRecord<unknown>> {
  return jsonLines(stream, {});
}

async function* jsonLines(source: Readable, options: JsonOptions): AsyncGenerator<RawRecord<unknown>> {
  let position = 0;
  let pending = '';
  const decoder = new TextDecoder('utf-8');
  const line = (text: string, at: number): RawRecord<unknown> | null => {
    let trimmed = text.trim();
    if (!trimmed) return null;
    let nulls = 0;
    if (options.nonFiniteAsNull) ({ text: trimmed, nulls } = nonFiniteAsNull(trimmed));
    try {
      const value = JSON.parse(trimmed) as unknown;
      return nulls ? { position: at, value, nulls } : { position: at, value };
    } catch {
      return { position: at, error: 'JSON invalide' };
    }
  };
  for await (const chunk of source as AsyncIterable<Buffer>) {
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) {
      const record = line(text.replace(/^\uFEFF/, ''), ++position);
      if (record) yield record;
    }
  }
  pending += decoder.decode();
  const last = line(pending, position + 1);
  if (last) yield last;
}

type Token = { name: string; value?: unknown };

/** The parser's messages, in French. */
function syntaxReason(err: unknown, truncated: boolean): string {
  const message = err instanceof Error ? err.message : String(err);
  if (truncated || /^Parser has expected/.test(message)) return 'fichier tronqué (fin du JSON manquante)';
  if (/^Parser/.test(message)) return 'syntaxe JSON invalide';
  return `lecture impossible (${message.slice(0, 120)})`;
}

async function* jsonDocument(source: Readable, options: JsonOptions): AsyncGenerator<RawRecord<unknown>> {
  const scanner = new JsonScanner(!!options.nonFiniteAsNull, true);
  let bomChecked = false;
  let ended = false;
  const scan = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let bytes = chunk;
      if (!bomChecked && bytes.length) {
        bomChecked = true;
        // A byte-order mark is not JSON: skipped, still counted in the offsets.
        if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
          scanner.offset = 3;
          bytes = bytes.subarray(3);
        }
      }
      for (const piece of scanner.push(bytes)) this.push(piece);
      done();
    },
    flush(done) {
      ended = true;
      for (const piece of scanner.push(Buffer.alloc(0), true)) this.push(piece);
      done();
    },
  });
  const tokens = parser.asStream({ packValues: true, streamValues: false });
  const batches = batch.asStream({ batchSize: 1000 });
  // An error (a syntax error, an unreadable file) ends the tokens as they are: the batch
  // holding the last good tokens still comes out, then the stop is told. Never an unhandled 'error' event.
  let failure: unknown = null;
  const stop = (err: unknown) => {
    failure ??= err;
    tokens.unpipe(batches);
    if (!batches.writableEnded) batches.end();
  };
  for (const stream of [source, scan, tokens, batches]) stream.on('error', stop);
  source.pipe(scan).pipe(tokens).pipe(batches);

  let depth = 0;
  /** Depth of the list whose items are the records, -1 outside it. */
  let listDepth = -1;
  const keys: string[] = [];
  const topKeys: string[] = [];
  let topIsObject = false;
  let listsFound = 0;
  const assembler = new Assembler();
  let inRecord = false;
  let position = 0;
  let lastClose = 0;
  let nullsTold = 0;
  const record = (value: unknown): RawRecord<unknown> => {
    position += 1;
    const nulls = scanner.nulls - nullsTold;
    nullsTold = scanner.nulls;
    return nulls ? { position, value, nulls } : { position, value };
  };
  /** Whether the container open at each depth up to SPLIT_DEPTH is an array, as the scanner sees it. */
  const arrays: boolean[] = [];
  /** Depth around an element of a list the parser reads itself (not a record), -1 outside one. */
  let rawDepth = -1;
  /** The next token ends the empty stand-in of an element parsed by the scanner. */
  let standInEnd = false;
  const recordOf = (value: unknown) => (listDepth === 2 && keys[1] === 'records' ? opendatasoftV1Fields(value) : value);
  const isList = (d: number) =>
    d === 0 || (topIsObject && d === 1 && TOP_LISTS.has(keys[1] as string)) || (topIsObject && d === 2 && keys[1] === 'marches' && DECP_2024_LISTS.has(keys[2] as string));
  try {
    for await (const group of batches as AsyncIterable<Token[]>) {
      const out: RawRecord<unknown>[] = [];
      for (const token of group) {
        const name = token.name;
        const opens = name === 'startObject' || name === 'startArray';
        const closes = name === 'endObject' || name === 'endArray';
        if (closes) lastClose = scanner.nextClose();
        if (standInEnd) {
          standInEnd = false;
          continue;
        }
        if (inRecord) {
          assembler.consume(token as never);
          if (opens) depth += 1;
          else if (closes) depth -= 1;
          if (assembler.done) {
            inRecord = false;
            out.push(record(recordOf(assembler.current)));
          }
          continue;
        }
        if (opens) {
          if (rawDepth < 0 && depth >= 1 && depth <= SPLIT_DEPTH && arrays[depth]) {
            // An element of a list near the top: parsed by the scanner (an empty stand-in follows), or read here.
            const element = scanner.nextElement();
            if (element) {
              standInEnd = true;
              if (depth === listDepth) out.push(record(recordOf(element.value)));
              continue;
            }
            if (depth !== listDepth) rawDepth = depth;
          }
          if (depth === listDepth) {
            inRecord = true;
            assembler.consume(token as never);
          } else if (name === 'startArray' && isList(depth)) {
            listDepth = depth + 1;
            listsFound += 1;
          } else if (depth === 0) topIsObject = true;
          depth += 1;
          if (rawDepth < 0 && depth <= SPLIT_DEPTH) arrays[depth] = name === 'startArray';
        } else if (closes) {
          depth -= 1;
          if (depth === rawDepth) rawDepth = -1;
          if (depth < listDepth) listDepth = -1;
          keys.length = Math.min(keys.length, depth + 1);
        } else if (name === 'keyValue') {
          keys[depth] = token.value as string;
          if (depth === 1 && topKeys.length < 12) topKeys.push(token.value as string);
        } else if (depth === listDepth) {
          // A record that is not an object (a number, a string): the importer says why it is skipped.
          out.push(record(name === 'numberValue' ? Number(token.value) : (token.value ?? null)));
        }
      }
      yield* out;
    }
  } catch (err) {
    failure ??= err;
  } finally {
    source.destroy();
  }
  if (failure) {
    yield {
      position: position + 1,
      error: `lecture arrêtée à l'enregistrement ${position + 1}, après l'octet ${lastClose} : ${syntaxReason(failure, ended && scanner.unfinished)} ; les ${position} enregistrements lus avant sont gardés`,
      stop: true,
      nulls: scanner.nulls - nullsTold,
    };
    return;
  }
  if (topIsObject && !listsFound) {
    yield {
      position: 1,
      error: `format JSON non reconnu : objet aux clés ${topKeys.join(', ') || '(aucune)'}, sans liste d'enregistrements (formats compris : ${JSON_LAYOUTS})`,
      stop: true,
      nulls: scanner.nulls - nullsTold,
    };
  }
}
