// The kind of a piece of a consultation file, from its name first, then from the first page
// of its text: the usual pieces of a French DCE. The list is the contract's (`DceDocType`).
import { foldText } from '../../platform/search/text-fold.js';

export const DOC_TYPES = ['rc', 'ccap', 'cctp', 'bpu', 'dpgf', 'ae', 'plan', 'annexe', 'autre'] as const;
export type DocType = (typeof DOC_TYPES)[number];

/** Most specific first: a « CCAP annexe 1 » is a CCAP's annex, read as CCAP. */
const RULES: readonly [DocType, RegExp][] = [
  ['rc', /\brc\b|reglement (de (la )?)?consultation/],
  ['ccap', /\bccap\b|clauses administratives particulieres/],
  ['cctp', /\bcctp\b|clauses techniques particulieres/],
  ['bpu', /\bbpu\b|bordereau (des )?prix unitaires/],
  ['dpgf', /\bdpgf\b|decomposition (du )?prix global/],
  ['ae', /\bae\b|acte d ?engagement|\batri ?1\b/],
  ['plan', /\bplans?\b|\bdwg\b|\bdxf\b|\bplan masse\b/],
  ['annexe', /\bannexes?\b/],
];

const kindIn = (text: string): DocType | null => RULES.find(([, pattern]) => pattern.test(text))?.[0] ?? null;

/** The piece's kind: by its file name (extension included), else by the start of its text, else `autre`. */
export function docTypeOf(filename: string, firstPage: string): DocType {
  const name = foldText(filename.replace(/[_.\-/\\]+/g, ' '));
  return kindIn(name) ?? kindIn(foldText(firstPage.slice(0, 1500))) ?? 'autre';
}

/** The lot of a piece, from its path (« Lot 2/CCTP.pdf », « CCTP_lot_02.pdf »), else null. */
export function lotOf(path: string): number | null {
  const match = /(?:^|[^a-z0-9])lot[\s_-]*(?:n[°o]?\s*)?0*(\d{1,3})(?![0-9])/i.exec(path);
  return match ? Number(match[1]) : null;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  txt: 'text/plain; charset=utf-8',
  csv: 'text/csv',
  dwg: 'image/vnd.dwg',
  dxf: 'image/vnd.dxf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  zip: 'application/zip',
};

export function contentTypeOf(filename: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase() ?? '';
  return CONTENT_TYPES[extension] ?? 'application/octet-stream';
}
