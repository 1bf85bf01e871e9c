// A price schedule (DPGF, BPU, DQE) as Excel saves it reads as its cells show: a formula's cached result, 0 included, a shared formula's followers with their own result, a merged title once; never « [object Object] ».
import { expect } from 'chai';
import { extractDocument } from '../../../src/platform/extract/document-text.js';
import { DPGF_SHEET, excelWorkbook } from './fixtures/excel-workbook.js';

describe('XLSX as Excel writes it', () => {
  it('shows formula results (0 and shared formulas included), a merged title once, numbers as displayed', async () => {
    const { pages } = await extractDocument(await excelWorkbook(DPGF_SHEET), 'xlsx');
    expect(pages).to.have.length(1);
    const text = pages[0]?.text ?? '';
    expect(text).not.to.contain('[object Object]');
    expect(text.split('\n')).to.deep.equal([
      'Feuille « DPGF Lot 02 »',
      '',
      'LOT 02 - COUVERTURE ZINGUERIE - DECOMPOSITION DU PRIX GLOBAL ET FORFAITAIRE',
      'N° | Désignation | U | Qté | PU HT | Total HT',
      '2.1 | Installation de chantier | ens | 1 |  | 0',
      '2.2 | Dépose de la couverture existante | m² | 412.5 | 18.4 | 7590',
      'TOTAL HT LOT 02 |  |  |  |  | 7590',
      ' |  |  |  | TVA 20 % | 1518',
      ' |  |  |  | 1 | 0',
    ]);
  });

  it('shows nothing for a formula never computed (no cached result), rather than a guess', async () => {
    const sheet = { name: 'BPU', strings: ['Prix'], rows: '<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><f>A2*3</f></c></row>' };
    const { pages } = await extractDocument(await excelWorkbook(sheet), 'xlsx');
    expect(pages[0]?.text).to.equal('Feuille « BPU »\n\nPrix');
  });
});
