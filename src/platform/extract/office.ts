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

/** A cell as displayed: its text, a formula's result, a date as JJ/MM/AAAA. */
function cellText(cell: ExcelJS.Cell): string {
  const value = cell.value;
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10).split('-').reverse().join('/');
  if (typeof value === 'object') {
    if ('result' in value) return value.result === undefined || value.result === null ? '' : String(value.result instanceof Date ? value.result.toISOString().slice(0, 10) : value.result);
    if ('richText' in value) return value.richText.map((r) => r.text).join('');
    if ('text' in value) return String(value.text);
    if ('error' in value) return String(value.error);
  }
  return String(value).trim();
}

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
      row.eachCell({ includeEmpty: true }, (cell) => cells.push(cellText(cell).replace(/\s+/g, ' ').trim()));
      while (cells.length && !cells[cells.length - 1]) cells.pop();
      if (cells.some(Boolean)) lines.push(cells.join(' | '));
    });
    pages.push({ text: tidyText(`Feuille « ${sheet.name} »\n\n${lines.join('\n')}`), scanned: false, label: sheet.name });
  });
  return pages;
}
