// A published file read in pages: every record counted once (read or not), the records a cursor says are written skipped, the last page always given; a gzip body decompressed as it comes, a plain one passed as it is, a gzip cut short an error.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { gunzipIfGzip, recordPages, type RecordPage } from '../../src/sync/file-pages.js';
import type { RawRecord } from '../../src/import/importer.js';

async function* records(n: number, bad: number[] = []): AsyncGenerator<RawRecord<number>> {
  for (let i = 1; i <= n; i++) yield bad.includes(i) ? { position: i, error: `ligne ${i} illisible` } : { position: i, value: i };
}

async function all(source: AsyncIterable<RecordPage>): Promise<RecordPage[]> {
  const out: RecordPage[] = [];
  for await (const p of source) out.push(p);
  return out;
}

async function text(stream: Readable): Promise<string> {
  const parts: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Buffer>) parts.push(c);
  return Buffer.concat(parts).toString('utf8');
}

/** A body arriving in small chunks, as from the network. */
const chunked = (bytes: Buffer, size = 1000) => Readable.from((function* () {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
})(), { objectMode: false });

describe('sync: reading a file in pages', () => {
  it('pages of pageSize, problems counted with the records, the last page flagged (empty when the file ends on a page)', async () => {
    const pages = await all(recordPages(records(10, [4]), { pageSize: 5, skip: 0 }));
    expect(pages.map((p) => [p.records, p.problems.map((x) => x.position), p.done, p.last])).to.deep.equal([
      [[1, 2, 3, 5], [4], 5, false],
      [[6, 7, 8, 9, 10], [], 10, false],
      [[], [], 10, true],
    ]);
  });

  it('skips the records already written and resumes the count there', async () => {
    const pages = await all(recordPages(records(12), { pageSize: 5, skip: 7 }));
    expect(pages.map((p) => [p.records, p.done, p.last])).to.deep.equal([[[8, 9, 10, 11, 12], 12, false], [[], 12, true]]);
    const beyond = await all(recordPages(records(3), { pageSize: 5, skip: 7 }));
    expect(beyond).to.deep.equal([{ records: [], problems: [], done: 7, last: true }]);
  });

  it('decompresses a gzip body as it comes and passes a plain one unchanged', async () => {
    const csv = 'id_mutation,date_mutation\n'.concat(Array.from({ length: 20_000 }, (_, i) => `2024-${i},2024-01-02`).join('\n'));
    const gz = gzipSync(csv);
    expect(await text(gunzipIfGzip(chunked(gz)))).to.equal(csv);
    expect(await text(gunzipIfGzip(chunked(Buffer.from(csv))))).to.equal(csv);
    expect(await text(gunzipIfGzip(Readable.from([], { objectMode: false })))).to.equal('');
  });

  it('a gzip body cut short, or a body failing, is an error of the stream read', async () => {
    const gz = gzipSync(Array.from({ length: 20_000 }, (_, i) => `2024-${i},${i * 7919}`).join('\n'));
    let error: Error | null = null;
    await text(gunzipIfGzip(chunked(gz.subarray(0, Math.floor(gz.length / 2))))).catch((e: Error) => (error = e));
    expect(error).to.be.an('error');
    const failing = new Readable({
      read() {
        this.push(gz.subarray(0, 500));
        this.destroy(new Error('connexion coupée'));
      },
    });
    error = null;
    await text(gunzipIfGzip(failing)).catch((e: Error) => (error = e));
    expect((error as Error | null)?.message).to.equal('connexion coupée');
  });
});
