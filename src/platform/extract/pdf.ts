// PDF text by page with unpdf (pdfjs bundled for servers, pure JS, runs on Node 20). A page
// without text that paints an image is a scan: marked, never guessed. Whether a text-less
// page holds an image is read from its resources with pdf-lib (the page's XObjects and
// those of its forms), not from pdfjs's operator list: building that list decodes every
// image, and a scanned annex then extracts at about 10 pages/s instead of hundreds.
import { PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream, type PDFObject } from 'pdf-lib';
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { ExtractionError, tidyText, type SourcePage } from './text.js';

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** The name pdfjs gives its errors (its classes are not exported the same way in every build). */
const errorName = (err: unknown) => (err && typeof err === 'object' && 'name' in err ? String((err as { name: unknown }).name) : '');

/** Whether a page's resources (and its form XObjects', a few levels down) hold an image. */
function resourcesHoldImage(doc: PDFDocument, resources: PDFObject | undefined, depth: number, seen: Set<PDFObject>): boolean {
  const dict = resources instanceof PDFRef ? doc.context.lookup(resources) : resources;
  if (!(dict instanceof PDFDict) || seen.has(dict) || depth > 4) return false;
  seen.add(dict);
  const xobjects = dict.lookup(PDFName.of('XObject'));
  if (!(xobjects instanceof PDFDict)) return false;
  for (const value of xobjects.values()) {
    const object = value instanceof PDFRef ? doc.context.lookup(value) : value;
    const streamDict = object instanceof PDFStream || object instanceof PDFRawStream ? object.dict : object instanceof PDFDict ? object : null;
    if (!streamDict) continue;
    const subtype = streamDict.get(PDFName.of('Subtype'));
    if (subtype === PDFName.of('Image')) return true;
    if (subtype === PDFName.of('Form') && resourcesHoldImage(doc, streamDict.get(PDFName.of('Resources')), depth + 1, seen)) return true;
  }
  return false;
}

/** The pages (0-based) among `indexes` that hold an image, read with pdf-lib; null when pdf-lib cannot read the file. */
async function pagesWithImages(bytes: Uint8Array, indexes: readonly number[]): Promise<Set<number> | null> {
  let doc: PDFDocument;
  try {
    doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  } catch {
    return null;
  }
  const pages = doc.getPages();
  const out = new Set<number>();
  for (const i of indexes) {
    const page = pages[i];
    if (!page) return null;
    // An inline image (BI … ID … EI) lives in the content stream, not the resources: such a page is looked at by pdfjs.
    if (resourcesHoldImage(doc, page.node.get(PDFName.of('Resources')) ?? page.node.Resources(), 0, new Set())) out.add(i);
  }
  return out;
}

/** Loads pdfjs ahead of the first document (the extraction thread calls it when it starts). */
export const preparePdf = (): Promise<unknown> => getResolvedPDFJS();

export async function extractPdf(bytes: Uint8Array): Promise<SourcePage[]> {
  // pdfjs takes ownership of the buffer it is given: a copy keeps the caller's intact.
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    pdf = await getDocumentProxy(new Uint8Array(bytes), { isEvalSupported: false, stopAtErrors: false, verbosity: 0 });
  } catch (err) {
    if (errorName(err) === 'PasswordException') throw new ExtractionError('PDF protégé par un mot de passe : son texte ne peut pas être lu');
    throw new ExtractionError('PDF illisible (fichier corrompu ou qui n’est pas un PDF)');
  }
  try {
    const { OPS } = await getResolvedPDFJS();
    const paintsImage = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject].filter((n): n is number => typeof n === 'number'));
    const pages: SourcePage[] = [];
    for (let n = 1; n <= pdf.numPages; n++) {
      const page = await pdf.getPage(n);
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items as TextItem[]) {
        text += item.str ?? '';
        if (item.hasEOL) text += '\n';
      }
      pages.push({ text: tidyText(text), scanned: false });
      page.cleanup();
    }
    const blank = pages.flatMap((p, i) => (p.text ? [] : [i]));
    if (blank.length) {
      const withImages = await pagesWithImages(bytes, blank);
      for (const i of blank) {
        let scanned = withImages?.has(i) ?? false;
        // No image among the resources (or pdf-lib could not say): pdfjs's operator list tells, an inline image included.
        if (!scanned) {
          const page = await pdf.getPage(i + 1);
          const ops = await page.getOperatorList();
          scanned = ops.fnArray.some((fn: number) => paintsImage.has(fn));
          page.cleanup();
        }
        (pages[i] as SourcePage).scanned = scanned;
      }
    }
    return pages;
  } catch (err) {
    if (err instanceof ExtractionError) throw err;
    throw new ExtractionError('PDF illisible (contenu corrompu)');
  } finally {
    await pdf.destroy();
  }
}
