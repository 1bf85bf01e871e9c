// A piece's kind is read from its file name first (as buyers name their pieces), then its folders, then the title at the start of its text (a Q&A register quoting the CCTP stays a Q&A register), else `autre`; its lot from its path; its content type from its extension.
import { expect } from 'chai';
import { contentTypeOf, docTypeOf, lotOf, type DocType } from '../../../src/domains/dce/doc-types.js';

describe('consultation file pieces', () => {
  it('reads the kind from the name, then the first page', () => {
    const cases: [string, string, DocType][] = [
      ['RC.pdf', '', 'rc'],
      ['01_Reglement_de_consultation.pdf', '', 'rc'],
      ['CCAP.docx', '', 'ccap'],
      ['cctp-lot-2-couverture.pdf', '', 'cctp'],
      ['BPU.xlsx', '', 'bpu'],
      ['DPGF lot 3.ods', '', 'dpgf'],
      ['AE.pdf', '', 'ae'],
      ['ATRI1.pdf', '', 'ae'],
      ['Plan masse.dwg', '', 'plan'],
      ['Annexe 2 - amiante.pdf', '', 'annexe'],
      ['piece-04.pdf', 'CAHIER DES CLAUSES TECHNIQUES PARTICULIÈRES\nLot 1', 'cctp'],
      ['document.pdf', 'Acte d’engagement', 'ae'],
      ['photo.jpg', 'Façade nord', 'autre'],
      ['traceur.pdf', 'Les ordres de service', 'autre'],
    ];
    for (const [name, text, want] of cases) expect(docTypeOf(name, text), name).to.equal(want);
  });

  it('reads the kinds of the pieces as buyers name them', () => {
    const cases: [string, DocType][] = [
      ['00_RC_Refection_toiture.pdf', 'rc'],
      ['01-AE_ATTRI1.pdf', 'ae'],
      ['ATTRI1 lot 3.docx', 'ae'],
      ['DC1-2019.docx', 'dc1'],
      ['DC2_Declaration_du_candidat.docx', 'dc2'],
      ['DUME.xml', 'dume'],
      ['Questions-Réponses n°2.pdf', 'questions_reponses'],
      ['QR_CCTP_lot_2.pdf', 'questions_reponses'],
      ['Reponses aux questions des candidats - CCTP.pdf', 'questions_reponses'],
      ['Cadre de réponse technique.docx', 'cadre_reponse'],
      ['CRT_lot2.docx', 'cadre_reponse'],
      ['Cadre_de_reponse_financier.xlsx', 'cadre_reponse'],
      ['Cadre de réponse financier - BPU.xlsx', 'bpu'],
      ['DQE_lot_3.xlsx', 'dqe'],
      ['Détail quantitatif estimatif.ods', 'dqe'],
      ['Annexe 1 au CCAP - pénalités.pdf', 'ccap'],
      ['Plans/Facade Nord.pdf', 'plan'],
      ['Pièces graphiques/Plans/R+1.pdf', 'plan'],
      ['Lot 2/CCTP.pdf', 'cctp'],
    ];
    for (const [name, want] of cases) expect(docTypeOf(name, ''), name).to.equal(want);
  });

  it('reads the kind from the title at the start of the text: the kind named first, full names only', () => {
    const cases: [string, string, DocType][] = [
      ['document-5.pdf', 'REGISTRE DES QUESTIONS / RÉPONSES\nQuestion n°1 : l’article 3.2 du CCTP (cahier des clauses techniques particulières) impose-t-il…', 'questions_reponses'],
      ['piece-07.docx', 'CADRE DE RÉPONSE TECHNIQUE\nLe candidat répond point par point au CCTP.', 'cadre_reponse'],
      ['piece-08.pdf', 'DÉCOMPOSITION DU PRIX GLOBAL ET FORFAITAIRE\nLot 1', 'dpgf'],
      ['piece-09.pdf', 'Attestation d’assurance RC décennale en cours de validité, AE n°12', 'autre'],
    ];
    for (const [name, text, want] of cases) expect(docTypeOf(name, text), name).to.equal(want);
  });

  it('reads the lot from the path', () => {
    const cases: [string, number | null][] = [
      ['Lot 2/CCTP.pdf', 2],
      ['CCTP_lot_02.pdf', 2],
      ['DCE/LOT-11 Plomberie/DPGF.xlsx', 11],
      ['lot n°3 - CCTP.pdf', 3],
      ['Pilote.pdf', null],
      ['Ballot.pdf', null],
    ];
    for (const [path, want] of cases) expect(lotOf(path), path).to.equal(want);
  });

  it('gives the content type by extension, octet-stream otherwise', () => {
    expect(contentTypeOf('RC.PDF')).to.equal('application/pdf');
    expect(contentTypeOf('DPGF.xlsx')).to.equal('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(contentTypeOf('x.bin')).to.equal('application/octet-stream');
  });
});
