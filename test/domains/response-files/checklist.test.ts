// The checklist of a response file is what the RC's sections on the content of the candidacy and the offer ask for (not the documents the rest of the RC only mentions), answer frames included, in its order, each item with the RC page and passage citing it; the DCE's forms the RC does not name are added, one per piece; a default list otherwise.
import { expect } from 'chai';
import { contentLines, defaultChecklist, formsOfDce, piecesNamedByRc } from '../../../src/domains/response-files/checklist.js';
import { AWS_LAYOUT, MARCHES_SECURISES_LAYOUT, PLACE_LAYOUT, type RcPage } from './fixtures/rc-excerpts.js';

const DEMO_RC = [
  // As a PDF gives it: wrapped lines inside a sentence, headings on lines of their own.
  { page: 1, text: "RÈGLEMENT DE LA CONSULTATION\nArticle 1 – Objet de la consultation\nLes travaux font l’objet d’un marché unique." },
  {
    page: 2,
    text:
      "Article 3 – Présentation des candidatures et des offres\nChaque candidat produit le formulaire DC1 ou le DUME, le formulaire DC2, un mémoire technique,\nl'attestation d'assurance décennale en cours de validité, les certificats de qualification professionnelle, le\nplanning prévisionnel.\nQualification exigée ou équivalente : Qualibat 3194.\nArticle 4 – Jugement des offres",
  },
];

describe('response files: checklist read in the RC', () => {
  it('recognises the demo RC pieces in order, each with page 2 and the passage naming it', () => {
    const items = piecesNamedByRc('01 RC.pdf', DEMO_RC);
    expect(items.map((i) => i.code)).to.deep.equal(['dc1', 'dume', 'dc2', 'memoire_technique', 'attestation_assurance', 'qualification', 'planning']);
    expect(items.find((i) => i.code === 'attestation_assurance')?.label).to.equal("Attestation d'assurance décennale");
    for (const item of items) {
      expect(item.origin).to.include({ kind: 'rc', piece: '01 RC.pdf', page: 2 });
      expect(item.origin.excerpt).to.match(/^Chaque candidat produit .* le planning prévisionnel\.$/);
    }
  });

  it('recognises the other usual pieces in their usual wordings, and nothing in a text that names none', () => {
    const text =
      "Le candidat fournit un extrait K-bis de moins de trois mois ; les attestations de régularité fiscale et l'attestation de vigilance URSSAF ; le bordereau des prix unitaires (BPU), le DQE et la DPGF ; l'acte d'engagement signé ; un RIB.";
    const codes = piecesNamedByRc('RC.pdf', [{ page: 4, text }]).map((i) => i.code);
    expect(codes).to.deep.equal(['kbis', 'attestation_fiscale', 'attestation_sociale', 'bpu', 'dqe', 'dpgf', 'acte_engagement', 'rib']);
    expect(piecesNamedByRc('RC.pdf', [{ page: 1, text: 'Article 1 – Objet. Réfection de la toiture du gymnase.' }])).to.deep.equal([]);
  });

  it('cuts a long passage around the name, marked with an ellipsis', () => {
    const long = `${'Les travaux comprennent la dépose de la couverture existante et son évacuation, '.repeat(6)}le candidat joint un RIB ${'et les documents listés à l’article suivant, '.repeat(6)}.`;
    const [item] = piecesNamedByRc('RC.pdf', [{ page: 3, text: long }]);
    expect(item?.origin.excerpt?.length).to.be.at.most(300);
    expect(item?.origin.excerpt).to.contain('RIB').and.match(/^…/);
  });

  it('adds the DCE forms the RC does not name, one per piece, and keeps those it names from the RC', () => {
    const pieces = [
      { filename: '01 RC.pdf', doc_type: 'rc' },
      { filename: 'Lot 01 Couverture/DPGF lot 1.xlsx', doc_type: 'dpgf' },
      { filename: 'Lot 02 Zinguerie/DPGF lot 2.xlsx', doc_type: 'dpgf' },
      { filename: 'AE.pdf', doc_type: 'ae' },
    ];
    const forms = formsOfDce(pieces, new Set(['acte_engagement'] as const));
    expect(forms.map((f) => [f.code, f.origin.kind, f.origin.piece])).to.deep.equal([
      ['dpgf', 'dce', 'Lot 01 Couverture/DPGF lot 1.xlsx'],
      ['dpgf', 'dce', 'Lot 02 Zinguerie/DPGF lot 2.xlsx'],
    ]);
    expect(forms[0]?.label).to.contain('DPGF lot 1.xlsx');
  });

  it('gives a default list without an RC', () => {
    const items = defaultChecklist();
    expect(items.map((i) => i.code)).to.include.members(['dc1', 'dc2', 'memoire_technique', 'kbis', 'rib', 'acte_engagement']);
    expect(items.every((i) => i.origin.kind === 'defaut' && i.origin.page === null)).to.equal(true);
  });
});

describe('response files: checklist read in real RC layouts', () => {
  const codes = (pages: RcPage[]) => piecesNamedByRc('RC.pdf', pages).map((i) => i.code);

  it('finds the sections on the content of the candidacy and the offer, not the list of the DCE nor the sending or award sections', () => {
    const lines = contentLines(AWS_LAYOUT)?.map((l) => l.line) ?? [];
    expect(lines[0]).to.equal('6 - Présentation des candidatures et des offres');
    expect(lines.at(-1)).to.match(/^l'exécution du contrat$/);
    expect(lines.join('\n')).not.to.match(/Contenu du dossier de consultation|MPS|Kbis|attribuer/);
    const place = contentLines(PLACE_LAYOUT)?.map((l) => l.line).join('\n') ?? '';
    expect(place).to.match(/^ARTICLE 5 – CONTENU DES PLIS/).and.match(/planning prévisionnel des travaux\.$/);
    expect(contentLines([{ page: 1, text: 'Règlement de la consultation\nRéfection de la toiture.' }])).to.equal(null);
  });

  it('AWS layout: the pieces of 6.1 only, not those the optional SIRET service or the winner provides', () => {
    expect(codes(AWS_LAYOUT)).to.deep.equal(['dc1', 'dume', 'dc2', 'attestation_assurance', 'qualification', 'acte_engagement', 'dpgf', 'memoire_technique']);
    const items = piecesNamedByRc('RC.pdf', AWS_LAYOUT);
    expect(items.find((i) => i.code === 'acte_engagement')?.origin).to.include({ page: 4 });
    expect(items.find((i) => i.code === 'dc1')?.origin.excerpt).to.match(/^• Formulaire DC1, Lettre de candidature/);
  });

  it('PLACE layout: the required technical and financial answer frames, not the safe offered by the platform nor the winner’s papers', () => {
    expect(codes(PLACE_LAYOUT)).to.deep.equal(['dume', 'dc1', 'dc2', 'attestation_assurance', 'acte_engagement', 'cadre_reponse_technique', 'memoire_technique', 'cadre_reponse_financier', 'bpu', 'dqe', 'planning']);
    const frame = piecesNamedByRc('RC.pdf', PLACE_LAYOUT).find((i) => i.code === 'cadre_reponse_technique');
    expect(frame?.label).to.equal('Cadre de réponse technique');
    expect(frame?.origin).to.include({ kind: 'rc', page: 3 });
    expect(frame?.origin.excerpt).to.match(/^- le cadre de réponse technique fourni au DCE/);
  });

  it('marches-securises layout: « Documents fournis aux candidats » is the DCE, « Composition de l’offre » and « pièces relatives à l’offre » are the bid', () => {
    expect(codes(MARCHES_SECURISES_LAYOUT)).to.deep.equal(['dc1', 'dc2', 'acte_engagement', 'bpu', 'memoire_technique', 'planning']);
  });

  it('adds the answer frames and forms of the DCE the RC does not name, the financial frame told by its name', () => {
    const pieces = [
      { filename: 'Cadre de réponse technique.docx', doc_type: 'cadre_reponse' },
      { filename: 'CRF_lot_1.xlsx', doc_type: 'cadre_reponse' },
      { filename: 'DQE.xlsx', doc_type: 'dqe' },
      { filename: 'DC1.docx', doc_type: 'dc1' },
      { filename: 'Questions-réponses.pdf', doc_type: 'questions_reponses' },
    ];
    expect(formsOfDce(pieces, new Set(['dc1'] as const)).map((f) => f.code)).to.deep.equal(['cadre_reponse_technique', 'cadre_reponse_financier', 'dqe']);
  });
});
