// The CSV reader of the importers: RFC 4180 quoting, the portals' habits (quotes inside an
// unquoted field, CRLF, BOM, empty lines), bad records reported on their line without
// stopping the reading, and the same records whatever the chunks the file arrives in.
import { Readable } from 'node:stream';
import { expect } from 'chai';
import { CsvSplitter, MAX_QUOTED_FIELD, type CsvRecord } from '../../src/import/csv.js';
import { csvRecords, rowBuilder } from '../../src/import/records.js';

function split(chunks: string[], delimiter = ','): CsvRecord[] {
  const splitter = new CsvSplitter(delimiter);
  const out: CsvRecord[] = [];
  for (const chunk of chunks) splitter.push(chunk, out);
  splitter.end(out);
  return out;
}

/** Every way of cutting `text` in two, and one character at a time. */
function cuts(text: string): string[][] {
  const ways: string[][] = [[text], [...text]];
  for (let i = 1; i < text.length; i++) ways.push([text.slice(0, i), text.slice(i)]);
  return ways;
}

describe('CSV reader', () => {
  it('cuts plain lines, LF or CRLF, skipping empty lines but counting them', () => {
    expect(split(['a,b,c\n1,2,3\r\n\n4,,6\n'])).to.deep.equal([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['1', '2', '3'] },
      { line: 4, fields: ['4', '', '6'] },
    ]);
    expect(split(['a;b\nx;y'], ';')).to.deep.equal([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, fields: ['x', 'y'] },
    ]);
  });

  it('reads quoted fields: delimiters, doubled quotes, line breaks inside (a record on its first line)', () => {
    const text = 'siren,nom\n"732829320","Charpentes du Léon, SARL"\n419223004,"Couverture ""Le Goff"""\n383474814,"Deux\nlignes"\r\n552100554,fin\n';
    expect(split([text])).to.deep.equal([
      { line: 1, fields: ['siren', 'nom'] },
      { line: 2, fields: ['732829320', 'Charpentes du Léon, SARL'] },
      { line: 3, fields: ['419223004', 'Couverture "Le Goff"'] },
      { line: 4, fields: ['383474814', 'Deux\nlignes'] },
      { line: 6, fields: ['552100554', 'fin'] },
    ]);
  });

  it('keeps a quote inside an unquoted field, and an empty quoted field', () => {
    expect(split(['a,l"ecole b,""\n'])).to.deep.equal([{ line: 1, fields: ['a', 'l"ecole b', ''] }]);
    expect(split(['""\n'])).to.deep.equal([{ line: 1, fields: [''] }]);
  });

  it('drops a UTF-8 BOM', () => {
    expect(split(['\uFEFFsiren,nom\n1,2\n'])).to.deep.equal([
      { line: 1, fields: ['siren', 'nom'] },
      { line: 2, fields: ['1', '2'] },
    ]);
  });

  it('reports a record it cannot read on its line and goes on with the next line', () => {
    expect(split(['a,b\n"x"y,z\n1,2\n"jamais fermé,3\n'])).to.deep.equal([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, error: 'caractères après un guillemet fermant' },
      { line: 3, fields: ['1', '2'] },
      { line: 4, error: 'guillemet ouvrant jamais fermé' },
    ]);
  });

  it('gives up a quoted field longer than its limit instead of holding the file in memory', () => {
    const splitter = new CsvSplitter(',');
    const out: CsvRecord[] = [];
    splitter.push('a,b\n"', out);
    const line = `${'x'.repeat(999)}\n`;
    for (let i = 0; i * line.length <= MAX_QUOTED_FIELD + line.length; i++) splitter.push(line, out);
    expect(out[1]).to.deep.equal({ line: 2, error: 'guillemet ouvrant jamais fermé' });
    splitter.end(out);
    // The lines after the bad one are read again as records of their own.
    expect(out.length).to.be.greaterThan(1000);
    expect(out[2]).to.deep.equal({ line: 3, fields: ['x'.repeat(999)] });
  });

  it('gives the same records whatever the chunks', () => {
    const text = 'siren,nom,ville\r\n1,"a, ""b""\r\nc",Brest\r\n\r\n2,l"x,"y"\r\n"3","",\n4,"z"w,q\n5,e,"f"';
    const whole = split([text]);
    expect(whole.map((r) => r.line)).to.deep.equal([1, 2, 5, 6, 7, 8]);
    for (const chunks of cuts(text)) expect(split(chunks), JSON.stringify(chunks)).to.deep.equal(whole);
  });

  it('makes rows by the header, counting the columns of each line', async () => {
    const stream = Readable.from([Buffer.from('\xEF\xBB\xBFsiren, nom \n1,a\n2\n3,"c,d"\n', 'latin1')]);
    const records = [];
    for await (const r of csvRecords(stream, ',')) records.push(r);
    expect(records).to.deep.equal([
      { position: 2, value: { siren: '1', nom: 'a' } },
      { position: 3, error: 'nombre de colonnes incorrect (1 au lieu de 2)' },
      { position: 4, value: { siren: '3', nom: 'c,d' } },
    ]);
  });

  it('decodes UTF-8 characters cut between two chunks', async () => {
    const bytes = Buffer.from('nom\nÉlectricité Armoricaine\n');
    const stream = Readable.from([bytes.subarray(0, 5), bytes.subarray(5, 6), bytes.subarray(6)]);
    const records = [];
    for await (const r of csvRecords(stream, ',')) records.push(r);
    expect(records).to.deep.equal([{ position: 2, value: { nom: 'Électricité Armoricaine' } }]);
  });

  it('builds rows from any header text without running it', () => {
    const header = ['siren', 'a"b', "c'd", '`e${1}`', '\u2028', '__proto__', 'siren'];
    const row = rowBuilder(header)(['1', '2', '3', '4', '5', '6', '7']);
    expect(row.siren).to.equal('7');
    expect(row['a"b']).to.equal('2');
    expect(row["c'd"]).to.equal('3');
    expect(row['`e${1}`']).to.equal('4');
    expect(row['\u2028']).to.equal('5');
    expect(Object.getOwnPropertyDescriptor(row, '__proto__')?.value).to.equal('6');
    const plain = rowBuilder(['x', 'y'])(['1', '2']);
    expect(plain).to.deep.equal({ x: '1', y: '2' });
  });
});
