// Real office documents, written from text: PDF (pdf-lib, standard Helvetica font: French
// accents, « € » and « ’ » are in its WinAnsi encoding), DOCX and ODT/ODS (their XML parts
// in a zip, yazl), XLSX (exceljs). Used by the demo consultation files and by the tests of
// the text extraction, so that both read what real office suites write.
import ExcelJS from 'exceljs';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { deflateSync } from 'node:zlib';

/** A PDF page: lines of text (wrapped to the page), an image only (a scan), or nothing. */
export type PdfPage = { lines: string[] } | { scan: true } | { blank: true };

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A grey PNG of `width` × `height` pixels (8-bit greyscale), for the scanned pages. */
export function greyPng(width: number, height: number): Uint8Array {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] as number) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = 96 + ((x * 7 + y * 13) % 128);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

/** Wraps a line to `width` points of Helvetica at `size`. */
function wrap(line: string, measure: (s: string) => number, width: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const word of line.split(/\s+/).filter(Boolean)) {
    const next = current ? `${current} ${word}` : word;
    if (current && measure(next) > width) {
      out.push(current);
      current = word;
    } else current = next;
  }
  out.push(current);
  return out;
}

export async function pdfDocument(pages: PdfPage[], title = 'Document'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  // Fixed dates: the same text gives the same bytes.
  doc.setTitle(title);
  doc.setCreationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setModificationDate(new Date('2026-01-01T00:00:00Z'));
  doc.setProducer('batidata demo');
  doc.setCreator('batidata demo');
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const size = 10.5;
  for (const spec of pages) {
    const page = doc.addPage([595, 842]);
    if ('scan' in spec) {
      const image = await doc.embedPng(greyPng(120, 160));
      page.drawImage(image, { x: 40, y: 60, width: 515, height: 720 });
      continue;
    }
    if ('blank' in spec) continue;
    let y = 790;
    for (const line of spec.lines) {
      for (const part of line ? wrap(line, (s) => font.widthOfTextAtSize(s, size), 500) : ['']) {
        if (y < 50) break;
        if (part) page.drawText(part, { x: 48, y, size, font, color: rgb(0.1, 0.1, 0.1) });
        y -= size * 1.45;
      }
    }
  }
  return doc.save({ useObjectStreams: false });
}

/** A zip of these entries, in order, stored (`store`) or deflated; fixed dates for stable bytes. */
export function zipOf(entries: { name: string; data: Uint8Array | string; store?: boolean }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  const mtime = new Date('2026-01-01T00:00:00Z');
  for (const e of entries) {
    if (e.name.endsWith('/')) zip.addEmptyDirectory(e.name.slice(0, -1), { mtime });
    else zip.addBuffer(Buffer.from(e.data), e.name, { mtime, compress: !e.store });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

export function docxDocument(paragraphs: string[]): Promise<Buffer> {
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  return zipOf([
    {
      name: '[Content_Types].xml',
      data: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: '_rels/.rels',
      data: '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
    },
    {
      name: 'word/document.xml',
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
    },
  ]);
}

const ODF_NAMESPACES =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" office:version="1.3"';

function odfPackage(mimetype: string, body: string): Promise<Buffer> {
  return zipOf([
    // The mimetype entry comes first, stored, as the OpenDocument format requires.
    { name: 'mimetype', data: mimetype, store: true },
    { name: 'content.xml', data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODF_NAMESPACES}><office:body>${body}</office:body></office:document-content>` },
    {
      name: 'META-INF/manifest.xml',
      data: `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`,
    },
  ]);
}

export function odtDocument(paragraphs: string[]): Promise<Buffer> {
  return odfPackage('application/vnd.oasis.opendocument.text', `<office:text>${paragraphs.map((p) => `<text:p>${escapeXml(p)}</text:p>`).join('')}</office:text>`);
}

export interface Sheet {
  name: string;
  rows: (string | number)[][];
}

export function odsDocument(sheets: Sheet[]): Promise<Buffer> {
  const cell = (v: string | number) =>
    typeof v === 'number'
      ? `<table:table-cell office:value-type="float" office:value="${v}"><text:p>${v}</text:p></table:table-cell>`
      : `<table:table-cell office:value-type="string"><text:p>${escapeXml(v)}</text:p></table:table-cell>`;
  const tables = sheets
    .map(
      (s) =>
        `<table:table table:name="${escapeXml(s.name)}">${s.rows.map((r) => `<table:table-row>${r.map(cell).join('')}</table:table-row>`).join('')}` +
        // LibreOffice writes the rest of the sheet as one empty row repeated: read, not multiplied.
        `<table:table-row table:number-rows-repeated="1048000"><table:table-cell table:number-columns-repeated="1024"/></table:table-row></table:table>`,
    )
    .join('');
  return odfPackage('application/vnd.oasis.opendocument.spreadsheet', `<office:spreadsheet>${tables}</office:spreadsheet>`);
}

export async function xlsxDocument(sheets: Sheet[]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.created = new Date('2026-01-01T00:00:00Z');
  workbook.modified = new Date('2026-01-01T00:00:00Z');
  for (const s of sheets) {
    const sheet = workbook.addWorksheet(s.name);
    for (const r of s.rows) sheet.addRow(r);
  }
  // exceljs stamps its zip entries with the time of writing: re-zipped with fixed dates, the
  // same sheets give the same bytes (a demo consultation file imported twice is unchanged).
  return zipOf(await unzipEntries(Buffer.from(await workbook.xlsx.writeBuffer())));
}

/** The entries of a zip held in memory, in order (small office documents only). */
function unzipEntries(zip: Buffer): Promise<{ name: string; data: Buffer }[]> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(zip, { lazyEntries: true }, (err, file) => {
      if (err || !file) return reject(err ?? new Error('zip illisible'));
      const entries: { name: string; data: Buffer }[] = [];
      file.on('error', reject);
      file.on('end', () => resolve(entries));
      file.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) return file.readEntry();
        file.openReadStream(entry, (e, stream) => {
          if (e || !stream) return reject(e ?? new Error('entrée illisible'));
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            entries.push({ name: entry.fileName, data: Buffer.concat(chunks) });
            file.readEntry();
          });
        });
      });
      file.readEntry();
    });
  });
}
