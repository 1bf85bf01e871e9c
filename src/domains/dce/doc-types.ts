// The kind of a piece of a consultation file, from its name first, then from the start of
// its text: the usual pieces of a French DCE. The list is the contract's (`DceDocType`).
import { foldText } from '../../platform/search/text-fold.js';

export const DOC_TYPES = ['rc', 'ccap', 'cctp', 'bpu', 'dpgf', 'dqe', 'ae', 'dc1', 'dc2', 'dume', 'questions_reponses', 'cadre_reponse', 'plan', 'annexe', 'autre'] as const;
export type DocType = (typeof DOC_TYPES)[number];

/**
 * What names each kind, in folded text (lower case, no accents, separators as spaces). In a
 * name the first kind of this list that matches wins: a register of questions and answers
 * about the CCTP is a Q&A register, a price schedule serving as the financial answer frame is
 * the schedule, a « CCAP annexe 1 » is read as the CCAP.
 */
const RULES: readonly [DocType, RegExp][] = [
  ['questions_reponses', /\bquestions? ?(et |\/ ?)?reponses?\b|\bq ?r\b|\bfaq\b|reponses? aux questions|questions? des (candidats|entreprises|soumissionnaires)/],
  ['bpu', /\bbpu\b|bordereau (des |de )?prix( unitaires)?/],
  ['dpgf', /\bdpgf\b|decomposition (du |des )?prix global/],
  ['dqe', /\bdqe\b|detail (quantitatif|estimatif)/],
  ['cadre_reponse', /\bcadres? (de |du )?(la )?(reponse|memoire)|\bcr[tf]\b|\bcrtf\b|trame (de |du )?(la )?(reponse|memoire)|questionnaire technique|memoire technique a completer/],
  ['dc1', /\bdc ?1\b|lettre de candidature/],
  ['dc2', /\bdc ?2\b|declaration du candidat/],
  ['dume', /\bdume\b|document unique de marche europeen/],
  ['ae', /\bae\b|acte d ?engagement|\batt?ri ?1\b/],
  ['rc', /\brc\b|reglement (de (la )?)?consultation/],
  ['ccap', /\bccap\b|clauses administratives particulieres/],
  ['cctp', /\bcctp\b|clauses techniques particulieres/],
  ['plan', /\bplans?\b|\bdwg\b|\bdxf\b|\bplan masse\b/],
  ['annexe', /\bannexes?\b/],
];

/** The kind a file name says, by the order of RULES. */
const kindOfName = (name: string): DocType | null => RULES.find(([, pattern]) => pattern.test(name))?.[0] ?? null;

/**
 * In a text, the short names that are also common abbreviations (« RC » for responsabilité
 * civile, « AE » for autorisation d'engagement…) do not tell a kind: the full names do.
 */
const TEXT_RULES: readonly [DocType, RegExp][] = RULES.filter(([kind]) => kind !== 'plan' && kind !== 'annexe').map(([kind, pattern]) => {
  const short: Partial<Record<DocType, RegExp>> = {
    questions_reponses: /\bquestions? ?(et |\/ ?)?reponses?\b|reponses? aux questions|questions? des (candidats|entreprises|soumissionnaires)/,
    cadre_reponse: /\bcadres? (de |du )?(la )?(reponse|memoire)|trame (de |du )?(la )?(reponse|memoire)|questionnaire technique/,
    ae: /acte d ?engagement|\batt?ri ?1\b/,
    rc: /reglement (de (la )?)?consultation/,
  };
  return [kind, short[kind] ?? pattern];
});

/**
 * The kind the start of a text says: the kind named first (a document opens with its title;
 * a Q&A register quotes the CCTP after its own title). Plans and annexes are told by their
 * name only: « plan » and « annexe » are common words in any piece.
 */
function kindOfText(text: string): DocType | null {
  let best: { kind: DocType; at: number } | null = null;
  for (const [kind, pattern] of TEXT_RULES) {
    const at = text.search(pattern);
    if (at >= 0 && (!best || at < best.at)) best = { kind, at };
  }
  return best?.kind ?? null;
}

const folded = (path: string) => foldText(path.replace(/[_.\-/\\]+/g, ' '));

/** The piece's kind: by its file name, else by its folders' names, else by the start of its text, else `autre`. */
export function docTypeOf(filename: string, firstPage: string): DocType {
  const parts = filename.split(/[/\\]/);
  const base = parts.pop() ?? filename;
  return kindOfName(folded(base)) ?? (parts.length ? kindOfName(folded(parts.join(' '))) : null) ?? kindOfText(foldText(firstPage.slice(0, 1500))) ?? 'autre';
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
  xml: 'application/xml',
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
