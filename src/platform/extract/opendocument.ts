// OpenDocument text (ODT) and spreadsheets (ODS): the archive's content.xml, read with a
// SAX parser (saxes) and the zip library the imports already use (yauzl). ODT: one
// paragraph a line; ODS: each sheet as a table, one line a row, cells separated by « | »,
// like XLSX. Repeated rows and cells (LibreOffice writes the empty end of a sheet as one row
// repeated a million times) are written out only when they hold text, and at most
// MAX_REPEAT times.
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import { ExtractionError, tidyText, type SourcePage } from './text.js';

const MAX_REPEAT = 100;
/** content.xml larger than this is refused (a legitimate one is a few MB). */
export const MAX_CONTENT_XML_BYTES = 64 * 1024 * 1024;

function contentXml(bytes: Uint8Array): Promise<string> {
  return new Promise((resolve, reject) => {
    const unreadable = () => reject(new ExtractionError('document OpenDocument illisible (archive corrompue)'));
    yauzl.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return unreadable();
      zip.on('error', unreadable);
      zip.on('end', () => reject(new ExtractionError('document OpenDocument sans contenu (content.xml absent)')));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== 'content.xml') return zip.readEntry();
        if ((entry.generalPurposeBitFlag & 1) !== 0) return reject(new ExtractionError('document OpenDocument chiffré : son texte ne peut pas être lu'));
        if (entry.uncompressedSize > MAX_CONTENT_XML_BYTES) return reject(new ExtractionError('document OpenDocument trop volumineux'));
        zip.openReadStream(entry, (e, stream) => {
          if (e || !stream) return unreadable();
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('error', unreadable);
          stream.on('end', () => {
            zip.close();
            resolve(Buffer.concat(chunks).toString('utf8'));
          });
        });
      });
      zip.readEntry();
    });
  });
}

const repeat = (value: string | undefined) => Math.min(Math.max(Number(value ?? 1) || 1, 1), MAX_REPEAT);

export async function extractOdf(bytes: Uint8Array, format: 'odt' | 'ods'): Promise<SourcePage[]> {
  const xml = await contentXml(bytes);
  const parser = new SaxesParser();
  const pages: SourcePage[] = [];
  // ODT: paragraphs; ODS: the current sheet's lines, row's cells, cell's text.
  const paragraphs: string[] = [];
  let paragraph: string | null = null;
  let depth = 0;
  let sheet: { name: string; lines: string[] } | null = null;
  let row: { cells: string[]; repeated: number } | null = null;
  let cell: { text: string; repeated: number } | null = null;
  const append = (text: string) => {
    if (cell) cell.text += text;
    else if (paragraph !== null) paragraph += text;
  };
  parser.on('opentag', (tag) => {
    const attr = (name: string) => tag.attributes[name] as string | undefined;
    switch (tag.name) {
      case 'text:p':
      case 'text:h':
        if (cell) {
          if (cell.text) cell.text += ' ';
        } else if (depth++ === 0) paragraph = '';
        break;
      case 'text:s':
        append(' '.repeat(repeat(attr('text:c'))));
        break;
      case 'text:tab':
        append('\t');
        break;
      case 'text:line-break':
        append('\n');
        break;
      case 'table:table':
        if (format === 'ods') sheet = { name: attr('table:name') ?? `Feuille ${pages.length + 1}`, lines: [] };
        break;
      case 'table:table-row':
        if (sheet) row = { cells: [], repeated: repeat(attr('table:number-rows-repeated')) };
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell':
        if (row) cell = { text: '', repeated: repeat(attr('table:number-columns-repeated')) };
        break;
    }
  });
  parser.on('text', (text) => append(text));
  parser.on('closetag', (tag) => {
    switch (tag.name) {
      case 'text:p':
      case 'text:h':
        if (!cell && --depth === 0 && paragraph !== null) {
          paragraphs.push(paragraph);
          paragraph = null;
        }
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell':
        if (row && cell) {
          const text = cell.text.replace(/\s+/g, ' ').trim();
          for (let i = 0; i < (text ? cell.repeated : Math.min(cell.repeated, MAX_REPEAT)); i++) row.cells.push(text);
          cell = null;
        }
        break;
      case 'table:table-row':
        if (sheet && row) {
          while (row.cells.length && !row.cells[row.cells.length - 1]) row.cells.pop();
          if (row.cells.some(Boolean)) for (let i = 0; i < row.repeated; i++) sheet.lines.push(row.cells.join(' | '));
          row = null;
        }
        break;
      case 'table:table':
        if (sheet) {
          pages.push({ text: tidyText(`Feuille « ${sheet.name} »\n\n${sheet.lines.join('\n')}`), scanned: false, label: sheet.name });
          sheet = null;
        }
        break;
    }
  });
  try {
    parser.write(xml).close();
  } catch {
    throw new ExtractionError('document OpenDocument illisible (XML invalide)');
  }
  if (format === 'odt') return [{ text: tidyText(paragraphs.join('\n\n')), scanned: false }];
  return pages;
}
