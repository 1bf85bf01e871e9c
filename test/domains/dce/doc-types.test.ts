// A piece's kind is read from its name, else from its first page, else `autre`; its lot from its path; its content type from its extension.
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
