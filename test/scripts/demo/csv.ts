// A tiny RFC 4180 reader for the demo tests: quoted fields with commas, doubled quotes and line breaks.

/** Every record of a CSV text, as arrays of fields (LF or CRLF line ends). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      field += ch;
      i++;
      continue;
    }
    if (ch === '"') {
      if (field !== '') throw new Error(`quote inside an unquoted field, record ${rows.length + 1}`);
      quoted = true;
      i++;
    } else if (ch === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else {
      field += ch;
      i++;
    }
  }
  if (quoted) throw new Error('unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

/** Header and records as objects keyed by the header; throws on a wrong field count. */
export function readTable(text: string): { header: string[]; rows: Record<string, string>[]; raw: string[][] } {
  const [header, ...raw] = parseCsv(text);
  if (!header) throw new Error('empty CSV');
  const rows = raw.map((fields, n) => {
    if (fields.length !== header.length) throw new Error(`record ${n + 2}: ${fields.length} fields, ${header.length} expected`);
    const rec: Record<string, string> = {};
    header.forEach((h, j) => (rec[h] = fields[j]!));
    return rec;
  });
  return { header, rows, raw };
}
