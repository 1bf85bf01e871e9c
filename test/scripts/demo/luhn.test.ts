// Helpers the demo data relies on: Luhn keys of SIREN/SIRET and the tests' RFC 4180 reader.
import { expect } from 'chai';
import { luhnKey, luhnValid, nicFor, sirenForIndex, sirenFromBody } from '../../../scripts/demo/luhn.js';
import { parseCsv } from './csv.js';

describe('demo data: Luhn keys and CSV reader', () => {
  it('computes and checks Luhn keys', () => {
    expect(luhnValid('79927398713')).to.equal(true);
    expect(luhnValid('79927398710')).to.equal(false);
    expect(luhnKey('7992739871')).to.equal('3');
    const siren = sirenFromBody('21290232');
    expect(siren).to.have.length(9);
    expect(luhnValid(siren)).to.equal(true);
    for (let seq = 1; seq < 50; seq++) expect(luhnValid(siren + nicFor(siren, seq))).to.equal(true);
    expect(luhnValid('12345678a')).to.equal(false);
  });

  it('gives distinct SIRENs to distinct company indexes', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(sirenForIndex(i, 12345));
    expect(seen.size).to.equal(20_000);
  });

  it('reads quoted fields with commas, doubled quotes and line breaks', () => {
    const rows = parseCsv('a,b,c\r\n"DUPONT, FILS ET CIE","ATELIER ""LE BOIS""","ligne 1\nligne 2"\n,,\n');
    expect(rows).to.deep.equal([
      ['a', 'b', 'c'],
      ['DUPONT, FILS ET CIE', 'ATELIER "LE BOIS"', 'ligne 1\nligne 2'],
      ['', '', ''],
    ]);
    expect(() => parseCsv('"open')).to.throw();
  });
});
