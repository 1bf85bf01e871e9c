// Every format of a consultation file gives its text page by page as the office suites wrote it (PDF, DOCX, XLSX, ODT, ODS, plain text), a scanned page is said and never invented, and an encrypted or corrupt file is refused with a French reason.
import { expect } from 'chai';
import { decodeText, extractDocument, ExtractionError, formatOf, type DocumentFormat } from '../../../src/platform/extract/document-text.js';
import { docxDocument, odsDocument, odtDocument, pdfDocument, xlsxDocument, zipOf } from '../../../scripts/demo/documents.js';

/**
 * The PDF with a standard-security /Encrypt dictionary appended as an incremental update:
 * a user password is needed (its check value is random), as in a protected file.
 */
function encrypted(pdf: Uint8Array): Uint8Array {
  const text = Buffer.from(pdf).toString('latin1');
  const root = /\/Root (\d+ \d+ R)/.exec(text)?.[1];
  const size = Number(/\/Size (\d+)/.exec(text)?.[1]);
  const previous = Number(/startxref\s+(\d+)/.exec(text.slice(text.lastIndexOf('startxref')))?.[1]);
  const hex = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + 11) & 0xff)).toString('hex');
  const offset = pdf.length;
  const object = `${size} 0 obj\n<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -44 >>\nendobj\n`;
  const xref = offset + object.length;
  const update =
    object +
    `xref\n${size} 1\n${String(offset).padStart(10, '0')} 00000 n \n` +
    `trailer\n<< /Size ${size + 1} /Root ${root} /Prev ${previous} /Encrypt ${size} 0 R /ID [<${hex(16)}> <${hex(16)}>] >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.concat([Buffer.from(pdf), Buffer.from(update, 'latin1')]);
}

const refusal = async (bytes: Uint8Array, format: DocumentFormat): Promise<string> => {
  const err = await extractDocument(bytes, format).catch((e: unknown) => e);
  expect(err).to.be.instanceOf(ExtractionError);
  return (err as Error).message;
};

describe('document text', function () {
  this.timeout(20000);

  it('recognises the formats by extension, case ignored; a drawing has no text', () => {
    const cases: [string, DocumentFormat | null][] = [
      ['RC.pdf', 'pdf'],
      ['CCTP lot 2.DOCX', 'docx'],
      ['DPGF.xlsx', 'xlsx'],
      ['CCAP.odt', 'odt'],
      ['BPU.ods', 'ods'],
      ['lisez-moi.txt', 'text'],
      ['plan-masse.dwg', null],
      ['photo.jpg', null],
      ['sans-extension', null],
    ];
    for (const [name, want] of cases) expect(formatOf(name), name).to.equal(want);
  });

  it('reads a PDF page by page, marks a scanned page and leaves a blank one empty', async () => {
    const pdf = await pdfDocument([
      { lines: ['Règlement de la consultation', 'Article 1 – Objet : réfection de la toiture de l’école (12 500 €).'] },
      { scan: true },
      { blank: true },
      { lines: ['Article 2 – Pièces à fournir', 'DC1, DC2, mémoire technique.'] },
    ]);
    const { format, pages } = await extractDocument(pdf, 'pdf');
    expect(format).to.equal('pdf');
    expect(pages.map((p) => p.scanned)).to.deep.equal([false, true, false, false]);
    expect(pages[0]?.text).to.equal('Règlement de la consultation\nArticle 1 – Objet : réfection de la toiture de l’école (12 500 €).');
    expect(pages[1]?.text).to.equal('');
    expect(pages[2]?.text).to.equal('');
    expect(pages[3]?.text).to.include('DC1, DC2, mémoire technique.');
  });

  it('refuses an encrypted PDF, a corrupt one and bytes that are not a PDF', async () => {
    const pdf = await pdfDocument([{ lines: ['Confidentiel'] }]);
    expect(await refusal(encrypted(pdf), 'pdf')).to.match(/protégé par un mot de passe/);
    expect(await refusal(pdf.slice(0, 200), 'pdf')).to.match(/^PDF illisible/);
    expect(await refusal(Buffer.from('bonjour'), 'pdf')).to.match(/^PDF illisible/);
  });

  it('reads a DOCX by paragraphs', async () => {
    const { pages } = await extractDocument(await docxDocument(['CCTP – Lot 1 Couverture', 'Les ardoises naturelles seront posées au crochet.', 'Fin.']), 'docx');
    expect(pages).to.deep.equal([{ text: 'CCTP – Lot 1 Couverture\n\nLes ardoises naturelles seront posées au crochet.\n\nFin.', scanned: false }]);
    expect(await refusal(Buffer.from('PK pas un docx'), 'docx')).to.match(/^document DOCX illisible/);
  });

  it('reads an XLSX and an ODS sheet by sheet, one line a row, the empty end of a sheet not multiplied', async () => {
    const sheets = [
      { name: 'DPGF', rows: [['N°', 'Désignation', 'Unité', 'Quantité'], ['1.1', 'Dépose de couverture', 'm²', 420], ['1.2', 'Ardoise naturelle', 'm²', 420]] },
      { name: 'Récapitulatif', rows: [['Total HT', 98500]] },
    ];
    for (const [format, bytes] of [['xlsx', await xlsxDocument(sheets)], ['ods', await odsDocument(sheets)]] as const) {
      const { pages } = await extractDocument(bytes, format);
      expect(pages.map((p) => p.label), format).to.deep.equal(['DPGF', 'Récapitulatif']);
      expect(pages[0]?.text, format).to.equal('Feuille « DPGF »\n\nN° | Désignation | Unité | Quantité\n1.1 | Dépose de couverture | m² | 420\n1.2 | Ardoise naturelle | m² | 420');
      expect(pages[1]?.text, format).to.equal('Feuille « Récapitulatif »\n\nTotal HT | 98500');
    }
    expect(await refusal(Buffer.from('PK pas un xlsx'), 'xlsx')).to.match(/^classeur XLSX illisible/);
  });

  it('reads an ODT by paragraphs and refuses one without content or with an encrypted content', async () => {
    const { pages } = await extractDocument(await odtDocument(['CCAP', 'Article 4 : pénalités de retard de 1/3000 du montant par jour.']), 'odt');
    expect(pages).to.deep.equal([{ text: 'CCAP\n\nArticle 4 : pénalités de retard de 1/3000 du montant par jour.', scanned: false }]);
    expect(await refusal(await zipOf([{ name: 'mimetype', data: 'application/vnd.oasis.opendocument.text', store: true }]), 'odt')).to.match(/content\.xml absent/);
    expect(await refusal(Buffer.from('pas une archive'), 'odt')).to.match(/archive corrompue/);
  });

  it('reads plain text in UTF-8 (BOM dropped) or Windows-1252', async () => {
    expect(decodeText(Buffer.from('\uFEFFDélai : 3 mois', 'utf8'))).to.equal('Délai : 3 mois');
    expect(decodeText(Buffer.from([0x44, 0xe9, 0x6c, 0x61, 0x69, 0x20, 0x80]))).to.equal('Délai €');
    const { pages } = await extractDocument(Buffer.from('Ligne 1\r\nLigne 2   \r\n\r\n\r\n\r\nLigne 3'), 'text');
    expect(pages).to.deep.equal([{ text: 'Ligne 1\nLigne 2\n\nLigne 3', scanned: false }]);
  });
});
