// A streaming CSV reader for the published open-data files (RFC 4180): fields separated by
// one delimiter, records by LF or CRLF, a field in double quotes may hold the delimiter,
// line breaks and doubled quotes (""). As the portals' files need: a quote inside an
// unquoted field is kept as it is, empty lines are skipped, a UTF-8 BOM is dropped.
//
// Written for the import's hot path (the SIRENE stock is tens of millions of rows): a line
// without quotes is cut by `String.prototype.split`, only lines with quotes are read
// character by character. A record that cannot be read (a closing quote followed by other
// characters, a quote never closed) is given as an error with its line, and reading goes
// on at the next line: one bad record never stops an import.

/** A record's fields, or why it cannot be read, with the line it starts on (1-based). */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/** A quoted field running over more than this many characters is taken as a quote never closed. */
export const MAX_QUOTED_FIELD = 1 << 20;

const QUOTE = 34;
const LF = 10;
const CR = 13;

export class CsvSplitter {
  /** Text received and not yet cut into records. */
  private pending = '';
  /** Line number of the first character of `pending`. */
  private line = 1;
  private started = false;
  private readonly delimiterCode: number;

  constructor(private readonly delimiter: string) {
    if (delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') throw new Error(`Séparateur CSV invalide : ${JSON.stringify(delimiter)}`);
    this.delimiterCode = delimiter.charCodeAt(0);
  }

  /** Cuts the complete records of the text received so far; `out` receives them in order. */
  push(text: string, out: CsvRecord[]): void {
    if (!this.started) {
      if (!text) return;
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.pending = this.pending ? this.pending + text : text;
    this.cut(out, false);
  }

  /** The end of the input: the last record, even without a final line break. */
  end(out: CsvRecord[]): void {
    this.cut(out, true);
    this.pending = '';
  }

  private cut(out: CsvRecord[], final: boolean): void {
    const text = this.pending;
    const length = text.length;
    let pos = 0;
    // The next quote at or after `pos` (past the end when none): searched again only once passed.
    let quote = -1;
    while (pos < length) {
      let eol = text.indexOf('\n', pos);
      if (eol === -1) {
        if (!final) break;
        eol = length;
      }
      if (quote < pos) {
        quote = text.indexOf('"', pos);
        if (quote === -1) quote = length + 1;
      }
      if (quote > eol) {
        // The common case: one line, no quotes.
        const end = eol > pos && text.charCodeAt(eol - 1) === CR ? eol - 1 : eol;
        if (end > pos) out.push({ line: this.line, fields: text.slice(pos, end).split(this.delimiter) });
        this.line += 1;
        pos = eol + 1;
        continue;
      }
      const next = this.quoted(text, pos, final, out);
      if (next === -1) break; // the record goes on in the next chunk
      pos = next;
    }
    this.pending = pos >= length ? '' : text.slice(pos);
  }

  /**
   * Reads one record with quotes from `start`; returns where the next record starts, or -1
   * when the text ends inside the record (more is needed).
   */
  private quoted(text: string, start: number, final: boolean, out: CsvRecord[]): number {
    const length = text.length;
    const delimiter = this.delimiterCode;
    const fields: string[] = [];
    let lines = 0;
    let pos = start;
    for (;;) {
      // At the start of a field.
      if (pos < length && text.charCodeAt(pos) === QUOTE) {
        let value = '';
        let from = pos + 1;
        let i = from;
        for (;;) {
          const q = text.indexOf('"', i);
          if (q === -1 || q - start > MAX_QUOTED_FIELD) {
            if (!final && q === -1 && length - start <= MAX_QUOTED_FIELD) return -1;
            return this.skipBad(text, start, out, 'guillemet ouvrant jamais fermé');
          }
          if (q + 1 < length && text.charCodeAt(q + 1) === QUOTE) {
            value += text.slice(from, q + 1);
            i = from = q + 2;
            continue;
          }
          if (q + 1 >= length && !final) return -1; // a doubled quote may follow in the next chunk
          value += text.slice(from, q);
          for (let k = text.indexOf('\n', pos); k !== -1 && k < q; k = text.indexOf('\n', k + 1)) lines += 1;
          pos = q + 1;
          break;
        }
        fields.push(value);
        const c = pos < length ? text.charCodeAt(pos) : -1;
        if (c === delimiter) {
          pos += 1;
          continue;
        }
        if (c === LF || c === -1 || (c === CR && (pos + 1 >= length ? final : text.charCodeAt(pos + 1) === LF))) {
          if (c === -1 && !final) return -1;
          return this.emit(fields, lines, c === -1 ? length : c === CR ? pos + 2 : pos + 1, out);
        }
        if (c === CR && !final && pos + 1 >= length) return -1;
        return this.skipBad(text, start, out, 'caractères après un guillemet fermant');
      }
      // An unquoted field: up to the delimiter or the end of the line (quotes kept as they are).
      let end = pos;
      while (end < length) {
        const c = text.charCodeAt(end);
        if (c === delimiter || c === LF) break;
        end += 1;
      }
      if (end >= length && !final) return -1;
      const c = end < length ? text.charCodeAt(end) : -1;
      fields.push(text.slice(pos, c !== delimiter && end > pos && text.charCodeAt(end - 1) === CR ? end - 1 : end));
      if (c === delimiter) {
        pos = end + 1;
        continue;
      }
      return this.emit(fields, lines, end + 1, out);
    }
  }

  private emit(fields: string[], lines: number, next: number, out: CsvRecord[]): number {
    out.push({ line: this.line, fields });
    this.line += lines + 1;
    return next;
  }

  /** A record that cannot be read: reported on its first line, reading goes on at the next one. */
  private skipBad(text: string, start: number, out: CsvRecord[], reason: string): number {
    out.push({ line: this.line, error: reason });
    this.line += 1;
    const eol = text.indexOf('\n', start);
    return eol === -1 ? text.length : eol + 1;
  }
}
