// The text of a document, page by page, whatever its format: PDF (unpdf, pure JS: pdfjs-dist
// 6 needs Node 22), DOCX (mammoth), XLSX (exceljs, each sheet as a table), ODT and ODS (their
// content.xml read with saxes), plain text. Never invented text: a PDF page without a text
// layer but with an image is a scanned page, said as such.
import { extractOdf } from './opendocument.js';
import { extractPdf } from './pdf.js';
import { extractDocx, extractXlsx } from './office.js';
import { decodeText, tidyText, type DocumentFormat, type DocumentText } from './text.js';

export { decodeText, ExtractionError, tidyText, type DocumentFormat, type DocumentText, type SourcePage } from './text.js';

const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  odt: 'odt',
  ods: 'ods',
  txt: 'text',
  csv: 'text',
  md: 'text',
};

/** The format of a piece by its name's extension, null when it has no text to extract (a drawing, an image). */
export function formatOf(filename: string): DocumentFormat | null {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase();
  return extension ? (EXTENSIONS[extension] ?? null) : null;
}

export async function extractDocument(bytes: Uint8Array, format: DocumentFormat): Promise<DocumentText> {
  switch (format) {
    case 'pdf':
      return { format, pages: await extractPdf(bytes) };
    case 'docx':
      return { format, pages: await extractDocx(bytes) };
    case 'xlsx':
      return { format, pages: await extractXlsx(bytes) };
    case 'odt':
    case 'ods':
      return { format, pages: await extractOdf(bytes, format) };
    case 'text':
      return { format, pages: [{ text: tidyText(decodeText(bytes)), scanned: false }] };
  }
}
