// What every extractor shares: a page of text, the refusal of a document, the tidying of
// extracted text. Kept apart so that the extractors and their dispatcher import it without a cycle.

export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'odt' | 'ods' | 'text';

/** One page of the source: a PDF page, a sheet, or the whole text of a flowing document. */
export interface SourcePage {
  text: string;
  /** A page with an image and no text layer (a scan): its text is not available. */
  scanned: boolean;
  /** A sheet's name, for spreadsheets. */
  label?: string;
}

export interface DocumentText {
  format: DocumentFormat;
  pages: SourcePage[];
}

/** Why a document cannot be read, in French (encrypted, corrupt, unsupported). */
export class ExtractionError extends Error {}

/**
 * Windows-1252's 0x80–0x9F (€, ’, œ, « … »): Node 20's TextDecoder('windows-1252') decodes
 * them as Latin-1 control characters (seen here: 0x80 gave U+0080), so they are mapped here.
 */
const CP1252_HIGH = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008dŽ\u008f\u0090‘’“”•–—˜™š›œ\u009džŸ';

/** UTF-8 when the bytes are UTF-8 (a BOM dropped), else Windows-1252, as French plain-text files often are. */
export function decodeText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
      .toString('latin1')
      .replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] as string);
  }
}

/** Line ends as `\n`, no trailing spaces, at most one empty line in a row. */
export function tidyText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t\u00a0]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

