// The checklist of a response file, read in the consultation file's RC (règlement de la
// consultation): the usual pieces a French bid provides, each with the RC page and the
// passage citing it, taken from the RC's sections on the content of the candidacy and of the
// offer (« Présentation des candidatures et des offres », « Documents à produire », « Pièces
// de l'offre »…) and not from the rest of the RC, where documents are only mentioned (the
// list of the DCE's pieces, an optional upload service listing the RIB or the Kbis, what the
// winner alone will provide); the answer frames the RC requires (« cadre de réponse
// technique », « cadre de réponse financier »); the pieces of the DCE to fill in (BPU, DPGF,
// DQE, acte d'engagement, forms, answer frames) when the RC does not name them; a default
// list when the service has no RC to read.
import { foldText } from '../../platform/search/text-fold.js';
import type { ChecklistItem, OriginKind } from './store.js';

export type ItemCode =
  | 'dc1'
  | 'dc2'
  | 'dume'
  | 'memoire_technique'
  | 'attestation_assurance'
  | 'attestation_fiscale'
  | 'attestation_sociale'
  | 'kbis'
  | 'qualification'
  | 'planning'
  | 'bpu'
  | 'dpgf'
  | 'dqe'
  | 'acte_engagement'
  | 'cadre_reponse_technique'
  | 'cadre_reponse_financier'
  | 'rib';

/** Each usual piece: its label and what names it in folded text (lower case, no accents, words split by one space). */
const PIECES: readonly { code: ItemCode; label: string; pattern: RegExp }[] = [
  { code: 'dc1', label: 'Lettre de candidature (formulaire DC1)', pattern: /\bdc ?1\b|lettre de candidature/ },
  { code: 'dc2', label: 'Déclaration du candidat (formulaire DC2)', pattern: /\bdc ?2\b|declaration du candidat/ },
  { code: 'dume', label: 'Document unique de marché européen (DUME)', pattern: /\bdume\b|document unique de marche europeen/ },
  { code: 'memoire_technique', label: 'Mémoire technique', pattern: /memoire technique|memoire justificatif|note methodologique/ },
  { code: 'attestation_assurance', label: "Attestation d'assurance", pattern: /\bassurances?\b/ },
  { code: 'attestation_fiscale', label: 'Attestation de régularité fiscale', pattern: /regularite fiscale|attestations? fiscales?|obligations fiscales/ },
  { code: 'attestation_sociale', label: 'Attestation de vigilance URSSAF', pattern: /\burssaf\b|attestations? de vigilance|regularite sociale|obligations sociales/ },
  { code: 'kbis', label: 'Extrait Kbis', pattern: /\bk ?bis\b|registre du commerce/ },
  { code: 'qualification', label: 'Certificats de qualification professionnelle', pattern: /certificats? de qualification|qualification professionnelle|\bqualibat\b|\bqualifelec\b|\bopqibi\b|\bopqcb\b/ },
  { code: 'planning', label: 'Planning prévisionnel', pattern: /\bplanning\b|calendrier previsionnel|calendrier d execution/ },
  { code: 'bpu', label: 'Bordereau des prix unitaires (BPU)', pattern: /\bbpu\b|bordereau des prix/ },
  { code: 'dpgf', label: 'Décomposition du prix global et forfaitaire (DPGF)', pattern: /\bdpgf\b|decomposition du prix global/ },
  { code: 'dqe', label: 'Détail quantitatif estimatif (DQE)', pattern: /\bdqe\b|detail quantitatif/ },
  { code: 'acte_engagement', label: "Acte d'engagement", pattern: /acte d ?engagement|\batt?ri ?1?\b/ },
  { code: 'cadre_reponse_technique', label: 'Cadre de réponse technique', pattern: /cadres? (de |du )?(la )?reponse techniques?|\bcrt\b|cadre (de |du )?memoire technique|questionnaire technique/ },
  { code: 'cadre_reponse_financier', label: 'Cadre de réponse financier', pattern: /cadres? (de |du )?(la )?reponse financi|\bcrf\b|cadre financier/ },
  { code: 'rib', label: "Relevé d'identité bancaire (RIB)", pattern: /\brib\b|releve d identite bancaire/ },
];

/** The list used when the service has no RC for the notice: what nearly every French bid asks. */
export const DEFAULT_CODES: readonly ItemCode[] = ['dc1', 'dc2', 'memoire_technique', 'attestation_assurance', 'attestation_fiscale', 'attestation_sociale', 'kbis', 'acte_engagement', 'rib'];

/** The DCE piece kinds that are forms to fill in and give back. */
const FORM_PIECES: Readonly<Record<string, ItemCode>> = { bpu: 'bpu', dpgf: 'dpgf', dqe: 'dqe', ae: 'acte_engagement', dc1: 'dc1', dc2: 'dc2', dume: 'dume', cadre_reponse: 'cadre_reponse_technique' };

/** The item a DCE piece to fill in stands for: an answer frame is financial when its name says so. */
function formCode(piece: { filename: string; doc_type: string }): ItemCode | null {
  const code = FORM_PIECES[piece.doc_type] ?? null;
  if (code === 'cadre_reponse_technique' && /financ|\bcrf\b/.test(foldText(piece.filename))) return 'cadre_reponse_financier';
  return code;
}

const EXCERPT_CHARS = 300;

export interface Draft {
  label: string;
  code: ItemCode | null;
  origin: ChecklistItem['origin'];
}

/** The passage of `sentence` around the folded position `at` (folding keeps the order: a position scaled back is close enough). */
function excerptOf(sentence: string, folded: string, at: number): string {
  const clean = sentence.replace(/\s+/g, ' ').trim();
  if (clean.length <= EXCERPT_CHARS) return clean;
  const centre = Math.round((at / Math.max(folded.length, 1)) * clean.length);
  const start = Math.max(0, Math.min(clean.length - EXCERPT_CHARS + 2, centre - EXCERPT_CHARS / 2));
  const cut = clean.slice(start, start + EXCERPT_CHARS - 2).trim();
  return `${start > 0 ? '…' : ''}${cut}${start + EXCERPT_CHARS - 2 < clean.length ? '…' : ''}`;
}

/**
 * A heading of an RC: « ARTICLE 6 – … », « 6 - … », « 6.1 - … », « 3.1.2 Composition … »,
 * « Article premier : … ». Its level is its count of numbers (an article is level 1).
 */
const HEADING = /^\s*(?:article\s+(?:(\d{1,2}(?:\.\d{1,2}){0,3})|premier|1er)|(\d{1,2}(?:\.\d{1,2}){0,3}))\s*(?:[-–—.:/)°]\s*|\s+)(?=\S)(.{2,160})$/i;

/** Headings of the sections on what the candidate provides. */
const CONTENT_TITLE =
  /presentation des (candidatures|offres|plis|dossiers)|contenu (des plis|du pli|de l offre|des offres|de la candidature|des candidatures|du dossier (de candidature|de reponse|d offre|a remettre))|(documents?|pieces?|elements?|justificatifs?|renseignements?) (a |qui doivent etre )?(produire|fournir|remettre|joindre)|pieces? (de|relatives? a|constitutives? de) (la |l )?(candidature|offre)|composition (de l offre|des offres|du dossier|du pli|des plis|de la reponse|de la candidature)|dossier (a remettre|de candidature|de l offre)|offre (technique|financiere)|(la |le )?candidature$|(l )?offre$/;

/** Headings of sections that only mention documents: the DCE's own pieces, how to send, how offers are judged, what the winner provides. */
const OTHER_TITLE =
  /contenu du dossier de consultation|dossier de consultation|documents? (fournis|remis|mis a disposition)|pieces? du dce|conditions? d envoi|remise des plis|transmission|depot|dematerialis|signature|jugement|examen|selection|criteres?|attribution|attributaire|renseignements? complementaires|visite|variantes?|delai|recours|negociation|questions?/;

/** Sentences naming documents that are not to be put in the bid: dispensed, optional services, the winner's later papers. */
const NOT_ASKED =
  /n (a|ont|aura|auront) pas a (les )?(fournir|produire|remettre|joindre)|dispense|ne (sont|seront|est|sera) pas (exige|demande|requis|a fournir)|coffre ?fort|espace (documentaire|entreprise|de stockage)|a titre facultatif|facultatif|attributaire|envisage d attribuer|retenu (devra|produira|fournira|transmettra)|avant (la )?notification|dans un delai de \d+ jours? (a compter )?de la demande/;

/**
 * The lines of the RC that belong to its sections on the content of the candidacy and the
 * offer (each with its page), or null when the RC has no such section (then all its text is
 * read). A line is in such a section when its innermost heading that says something says so:
 * « 3.1.1 Documents fournis aux candidats » under « Article 3 Présentation des offres » does not.
 */
export function contentLines(pages: readonly { page: number; text: string }[]): { page: number; line: string }[] | null {
  const stack: { level: number; verdict: boolean | null }[] = [];
  const out: { page: number; line: string }[] = [];
  let any = false;
  for (const { page, text } of pages) {
    for (const line of text.split('\n')) {
      const m = HEADING.exec(line);
      // A numbered line ending like a sentence, or a long one, is a list item, not a heading.
      if (m && !/[;,]$/.test(line.trim())) {
        const number = m[1] ?? m[2] ?? '1';
        const level = number.split('.').length;
        const title = foldText(m[3] as string);
        const verdict = OTHER_TITLE.test(title) && !/^(pieces?|documents?) (de|relatives? a) (la |l )?(candidature|offre)/.test(title) ? false : CONTENT_TITLE.test(title) ? true : null;
        while (stack.length && (stack[stack.length - 1] as { level: number }).level >= level) stack.pop();
        stack.push({ level, verdict });
        if (verdict) any = true;
      }
      const decided = [...stack].reverse().find((h) => h.verdict !== null);
      if (decided?.verdict) out.push({ page, line });
    }
  }
  return any ? out : null;
}

/** The usual pieces the RC asks for, in the order the RC names them, each with its first page and passage. */
export function piecesNamedByRc(rcName: string, pages: readonly { page: number; text: string }[]): Draft[] {
  const found = new Map<ItemCode, { rank: number; draft: Draft }>();
  let rank = 0;
  // The sections on the content of the candidacy and the offer, page by page; the whole RC when it has none.
  const lines = contentLines(pages);
  const read: { page: number; text: string }[] = lines
    ? [...new Set(lines.map((l) => l.page))].map((page) => ({ page, text: lines.filter((l) => l.page === page).map((l) => l.line).join('\n') }))
    : [...pages];
  for (const { page, text } of read) {
    // Sentences keep the passage short enough to quote. A PDF's text wraps its lines: a line
    // break is a boundary only before a capitalised word (a heading's end, a new sentence).
    const joined = text.replace(/\n(?![A-ZÀ-Ý•✦\-–][a-zà-ÿ ])/g, ' ');
    for (const sentence of joined.split(/(?<=[.;!?])\s+|\n+/)) {
      const folded = foldText(sentence);
      if (!folded || NOT_ASKED.test(folded)) continue;
      const hits = PIECES.map((p) => ({ p, m: p.pattern.exec(folded) }))
        .filter((h): h is { p: (typeof PIECES)[number]; m: RegExpExecArray } => h.m !== null)
        .sort((a, b) => a.m.index - b.m.index);
      for (const { p, m } of hits) {
        if (found.has(p.code)) continue;
        // Which insurance: said in the label when the RC says it.
        const label = p.code === 'attestation_assurance' && /decennale/.test(folded) ? "Attestation d'assurance décennale" : p.label;
        found.set(p.code, { rank: rank++, draft: { label, code: p.code, origin: { kind: 'rc', piece: rcName, page, excerpt: excerptOf(sentence, folded, m.index) } } });
      }
    }
  }
  return [...found.values()].sort((a, b) => a.rank - b.rank).map((f) => f.draft);
}

/** The DCE's forms to fill in (BPU, DPGF, acte d'engagement) whose kind the RC did not name: one item per piece. */
export function formsOfDce(pieces: readonly { filename: string; doc_type: string }[], named: ReadonlySet<ItemCode>): Draft[] {
  const out: Draft[] = [];
  for (const piece of pieces) {
    const code = formCode(piece);
    if (!code || named.has(code)) continue;
    const label = PIECES.find((p) => p.code === code)?.label as string;
    const base = piece.filename.split('/').pop() as string;
    out.push({ label: `${label} à compléter : ${base}`.slice(0, 300), code, origin: { kind: 'dce', piece: piece.filename, page: null, excerpt: null } });
  }
  return out;
}

export function defaultChecklist(): Draft[] {
  return DEFAULT_CODES.map((code) => ({ label: PIECES.find((p) => p.code === code)?.label as string, code, origin: { kind: 'defaut' as OriginKind, piece: null, page: null, excerpt: null } }));
}
