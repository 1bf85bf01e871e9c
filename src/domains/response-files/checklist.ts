// The checklist of a response file, read in the consultation file's RC (règlement de la
// consultation): the usual pieces a French bid provides, each with the RC page and the
// passage citing it; the pieces of the DCE to fill in (BPU, DPGF, DQE, acte d'engagement)
// when the RC does not name them; a default list when the service has no RC to read.
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
  { code: 'acte_engagement', label: "Acte d'engagement", pattern: /acte d ?engagement|\batri\b/ },
  { code: 'rib', label: "Relevé d'identité bancaire (RIB)", pattern: /\brib\b|releve d identite bancaire/ },
];

/** The list used when the service has no RC for the notice: what nearly every French bid asks. */
export const DEFAULT_CODES: readonly ItemCode[] = ['dc1', 'dc2', 'memoire_technique', 'attestation_assurance', 'attestation_fiscale', 'attestation_sociale', 'kbis', 'acte_engagement', 'rib'];

/** The DCE piece kinds that are forms to fill in and give back. */
const FORM_PIECES: Readonly<Record<string, ItemCode>> = { bpu: 'bpu', dpgf: 'dpgf', ae: 'acte_engagement' };

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

/** The usual pieces the RC's pages name, in the order the RC names them, each with its first page and passage. */
export function piecesNamedByRc(rcName: string, pages: readonly { page: number; text: string }[]): Draft[] {
  const found = new Map<ItemCode, { rank: number; draft: Draft }>();
  let rank = 0;
  for (const { page, text } of pages) {
    // Sentences keep the passage short enough to quote. A PDF's text wraps its lines: a line
    // break is a boundary only before a capitalised word (a heading's end, a new sentence).
    const joined = text.replace(/\n(?![A-ZÀ-Ý][a-zà-ÿ])/g, ' ');
    for (const sentence of joined.split(/(?<=[.;!?])\s+|\n+/)) {
      const folded = foldText(sentence);
      if (!folded) continue;
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
    const code = FORM_PIECES[piece.doc_type];
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
