// PDF text by page with unpdf (pdfjs bundled for servers, pure JS, runs on Node 20). A page
// without text that paints an image is a scan: marked, never guessed.
import { getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { ExtractionError, tidyText, type SourcePage } from './text.js';

interface TextItem {
  str?: string;
  hasEOL?: boolean;
}

/** The name pdfjs gives its errors (its classes are not exported the same way in every build). */
const errorName = (err: unknown) => (err && typeof err === 'object' && 'name' in err ? String((err as { name: unknown }).name) : '');

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
      text = tidyText(text);
      let scanned = false;
      if (!text) {
        const ops = await page.getOperatorList();
        scanned = ops.fnArray.some((fn: number) => paintsImage.has(fn));
      }
      pages.push({ text, scanned });
      page.cleanup();
    }
    return pages;
  } catch (err) {
    if (err instanceof ExtractionError) throw err;
    throw new ExtractionError('PDF illisible (contenu corrompu)');
  } finally {
    await pdf.destroy();
  }
}
