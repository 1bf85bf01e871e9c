// Office Open XML: DOCX text with mammoth (paragraphs kept), XLSX with exceljs, each sheet
// as a readable table (one line a row, cells separated by « | »): the lines of a DPGF or a
// BPU stay lines.
import ExcelJS from 'exceljs';
import mammoth from 'mammoth';
import { ExtractionError, tidyText, type SourcePage } from './text.js';

export async function extractDocx(bytes: Uint8Array): Promise<SourcePage[]> {
  try {
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    return [{ text: tidyText(value), scanned: false }];
  } catch {
    throw new ExtractionError('document DOCX illisible (fichier corrompu, chiffré ou qui n’est pas un DOCX)');
  }
}

/** A number as a spreadsheet shows it: a formula's binary noise (0.30000000000000004) rounded off. */
const numberText = (n: number) => String(Number.isFinite(n) ? Number(n.toPrecision(12)) : n);

const dateText = (d: Date) => d.toISOString().slice(0, 10).split('-').reverse().join('/');

/** A plain value (a cell's, or a formula's cached result) as displayed; never an object's « [object Object] ». */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return dateText(value);
  if (typeof value === 'number') return numberText(value);
  if (typeof value === 'boolean') return value ? 'VRAI' : 'FAUX';
  if (typeof value === 'object') {
    if ('richText' in value && Array.isArray(value.richText)) return value.richText.map((r: { text?: string }) => r.text ?? '').join('');
    if ('text' in value) return valueText(value.text);
    if ('error' in value) return String(value.error);
    // A formula object that reached here has no cached result to show.
    return '';
  }
  return String(value).trim();
}

/**
 * A cell as displayed: its text, a formula's cached result, a date as JJ/MM/AAAA. A formula's
 * result is read with `cell.result`: the cell's `value` copy drops a falsy result (a total of 0),
 * and a cell following a shared formula carries only its master's address. A formula never
 * computed (no cached result) shows nothing rather than a guess.
 */
function cellText(cell: ExcelJS.Cell): string {
  if (cell.type === ExcelJS.ValueType.Formula) return valueText(cell.result);
  return valueText(cell.value);
}

/** A cell covered by a merge (not its top-left cell) shows nothing: the merged value is shown once. */
const coveredByMerge = (cell: ExcelJS.Cell) => cell.isMerged && cell.master.address !== cell.address;

export async function extractXlsx(bytes: Uint8Array): Promise<SourcePage[]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ArrayBuffer);
  } catch {
    throw new ExtractionError('classeur XLSX illisible (fichier corrompu, chiffré ou qui n’est pas un XLSX)');
  }
  const pages: SourcePage[] = [];
  workbook.eachSheet((sheet) => {
    const lines: string[] = [];
    sheet.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: true }, (cell) => cells.push(coveredByMerge(cell) ? '' : cellText(cell).replace(/\s+/g, ' ').trim()));
      while (cells.length && !cells[cells.length - 1]) cells.pop();
      if (cells.some(Boolean)) lines.push(cells.join(' | '));
    });
    pages.push({ text: tidyText(`Feuille « ${sheet.name} »\n\n${lines.join('\n')}`), scanned: false, label: sheet.name });
  });
  return pages;
}
