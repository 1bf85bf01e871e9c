// Rule: a JSON document's records are what JSON.parse makes of them, whatever the chunks the file arrives in; a stop says where and why the same way for any chunking; a broken element is never held whole in memory.
import { Readable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { jsonRecords, JsonScanner } from '../../src/import/json-records.js';
import type { RawRecord } from '../../src/import/importer.js';

const SAMPLES = '../shared/real-samples';

async function read(bytes: Buffer, chunk: number, nonFiniteAsNull = false): Promise<RawRecord<unknown>[]> {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += chunk) parts.push(bytes.subarray(i, i + chunk));
  const out: RawRecord<unknown>[] = [];
  for await (const record of jsonRecords(Readable.from(parts), { nonFiniteAsNull })) out.push(record);
  return out;
}

const values = (records: RawRecord<unknown>[]) => records.map((r) => ('value' in r ? r.value : r));
const errorOf = (record: RawRecord<unknown> | undefined) => (record && 'error' in record ? record.error : null);
const CHUNKS = [1, 3, 64, 65536];

describe('JSON documents read record by record', () => {
  const layouts: [string, string, unknown[]][] = [
    ['a top-level array, records of every kind', '[{"a": 1, "b": [{"c": 2}]}, {"a": [1, [2, [3]]]}, 3, "x", null, [1, 2]]', [{ a: 1, b: [{ c: 2 }] }, { a: [1, [2, [3]]] }, 3, 'x', null, [1, 2]]],
    ['Opendatasoft v2.1, other lists around', '{"links": [{"href": "u"}], "results": [{"a": {"b": [{"c": 1}]}}, {"d": "]}\\"["}], "facets": [[1], {"e": 2}], "total_count": 2}', [{ a: { b: [{ c: 1 }] } }, { d: ']}"[' }]],
    ['Opendatasoft v1, read in its fields', '{"nhits": 2, "records": [{"recordid": "r1", "fields": {"a": 1}}, {"x": 1}]}', [{ a: 1 }, { x: 1 }]],
    ['DECP 2024, two lists', '{"marches": {"marche": [{"id": "1", "titulaires": [{"titulaire": {"id": "s"}}]}, {"id": "2"}], "contrat-concession": [{"id": "c"}]}}', [{ id: '1', titulaires: [{ titulaire: { id: 's' } }] }, { id: '2' }, { id: 'c' }]],
    ['escapes, multi-byte characters, a byte-order mark', '\uFEFF[{"k\\"ey": "va]}lue", "é": "\\u00e9\\ud83d\\ude00 😀"}, {"__proto__": {"x": 1}}]', [{ 'k"ey': 'va]}lue', é: 'é😀 😀' }, JSON.parse('{"__proto__": {"x": 1}}')]],
  ];
  for (const [what, text, expected] of layouts) {
    it(`${what}: the same records in any chunks`, async () => {
      for (const chunk of CHUNKS) {
        const records = await read(Buffer.from(text), chunk);
        expect(values(records), `chunks of ${chunk}`).to.deep.equal(expected);
        expect(records.map((r) => r.position)).to.deep.equal(expected.map((_, i) => i + 1));
      }
    });
  }

  it('the real samples: each record deep-equal to the same record of JSON.parse of the whole file', async () => {
    const files: [string, (whole: any) => unknown[]][] = [
      [`${SAMPLES}/boamp/boamp-explore-v2.1-records-limit5-jpbenga.json`, (w) => w.results],
      [`${SAMPLES}/decp/decp-2019-official-example-paquet.json`, (w) => w.marches],
      [`${SAMPLES}/decp/decp-2024-megalis-59920013600241-2024-07-09-01.json`, (w) => [...(w.marches.marche ?? []), ...(w.marches['contrat-concession'] ?? [])]],
    ];
    for (const [path, list] of files) {
      const bytes = readFileSync(path);
      const expected = list(JSON.parse(bytes.toString('utf8')));
      expect(expected.length).to.be.greaterThan(0);
      for (const chunk of [7, 4096, 65536]) expect(values(await read(bytes, chunk)), `${path} in chunks of ${chunk}`).to.deep.equal(expected);
    }
  });

  it('NaN and Infinity read as null when asked, counted once each', async () => {
    const text = '{"marches": [{"a": NaN, "b": [-Infinity, 1]}, {"c": Infinity}]}';
    for (const chunk of CHUNKS) {
      const records = await read(Buffer.from(text), chunk, true);
      expect(values(records)).to.deep.equal([{ a: null, b: [null, 1] }, { c: null }]);
      expect(records.reduce((n, r) => n + (r.nulls ?? 0), 0)).to.equal(3);
    }
  });

  it('a syntax error in a record: the records before kept, the same position and offset for any chunking', async () => {
    const good = '[{"a": {"b": 1}}, {"a": 2}, ';
    const text = `${good}{"a": {"b": 3}, "c": tru}, {"a": 4}]`;
    const after = Buffer.byteLength(`${good}{"a": {"b": 3}`);
    for (const chunk of CHUNKS) {
      const records = await read(Buffer.from(text), chunk);
      expect(values(records.slice(0, 2))).to.deep.equal([{ a: { b: 1 } }, { a: 2 }]);
      expect(records[2]).to.deep.include({ position: 3, stop: true, error: `lecture arrêtée à l'enregistrement 3, après l'octet ${after} : syntaxe JSON invalide ; les 2 enregistrements lus avant sont gardés` });
      expect(records).to.have.length(3);
    }
  });

  it('a file cut inside a record is said to be truncated; one with a quote missing inside is said to be broken', async () => {
    const text = '{"results": [{"a": "x"}, {"b": {"c": "yy", "d": [1, 2]}}, {"e": 5}]}';
    for (let cut = text.indexOf('{"b"') + 1; cut < text.indexOf('}}, {"e"') + 2; cut++) {
      const records = await read(Buffer.from(text.slice(0, cut)), 5);
      expect(errorOf(records.at(-1)), `cut at ${cut}`).to.match(/^lecture arrêtée à l'enregistrement 2, .* : fichier tronqué/);
    }
    const broken = text.replace('"c"', 'c"');
    for (const chunk of CHUNKS) {
      const records = await read(Buffer.from(broken), chunk);
      expect(errorOf(records.at(-1))).to.match(/^lecture arrêtée à l'enregistrement 2, après l'octet 23 : syntaxe JSON invalide/);
    }
  });

  it('an element that never ends (a quote missing early) goes to the parser as it comes, not held whole', () => {
    const scanner = new JsonScanner(false, true);
    let handed = scanner.push(Buffer.from('[{"a": "x", "b: "'), false).reduce((n, p) => n + p.length, 0);
    const filler = Buffer.from(`, "k": "${'v'.repeat(1000)}"`);
    const chunk = Buffer.concat(Array.from({ length: 64 }, () => filler));
    let pushed = 0;
    for (let i = 0; i < 200; i++) {
      handed += scanner.push(chunk, false).reduce((n, p) => n + p.length, 0);
      pushed += chunk.length;
    }
    // 13 MB pushed: all but the last chunk's worth handed on past the 8 MB limit.
    expect(pushed).to.be.greaterThan(12 * 1024 * 1024);
    expect(handed).to.be.greaterThan(pushed - 2 * chunk.length);
    expect(scanner.nextElement()).to.equal(null);
  });
});
