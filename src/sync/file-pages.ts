// Reading a published file (a DVF department file, a Sitadel list) through its importer's
// `read`, as it downloads, in pages of records: memory stays bounded whatever the file's
// size, and a page is written while the rest of the file is still on its way. A file read
// again (a retry after a body cut short, a run resuming a file it had begun) skips the
// records its cursor says are written: the publishers' files have a fixed order.
import { PassThrough, pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { RawRecord } from '../import/importer.js';

export interface RecordPage {
  /** Records in the shape the importer's `map` reads. */
  records: unknown[];
  /** Records that could not be read, with their place in the file. */
  problems: { position: number; reason: string }[];
  /** Records of the file consumed once this page is written (skipped ones included). */
  done: number;
  /** The file is read to its end with this page (which may be empty). */
  last: boolean;
}

/**
 * The records of `source` in pages of `pageSize`, the first `skip` passed over. Every record
 * (read or not) counts one: `done` is what a cursor keeps to resume the same file there. A
 * record that stops the reading (`stop`) ends the file with its reason as a problem.
 */
export async function* recordPages(source: AsyncIterable<RawRecord<unknown>>, options: { pageSize: number; skip: number }): AsyncGenerator<RecordPage> {
  let done = 0;
  let page: RecordPage = { records: [], problems: [], done: 0, last: false };
  for await (const record of source) {
    done += 1;
    if (done <= options.skip) continue;
    if ('error' in record) {
      page.problems.push({ position: record.position, reason: record.error });
      if (record.stop) break;
    } else page.records.push(record.value);
    if (page.records.length + page.problems.length >= options.pageSize) {
      yield { ...page, done };
      page = { records: [], problems: [], done, last: false };
    }
  }
  yield { ...page, done: Math.max(done, options.skip), last: true };
}

/**
 * The body as its bytes of data: a gzip file (`.csv.gz`, served as it is stored, without
 * `Content-Encoding`) is decompressed as it comes, told by its first two bytes; anything else
 * passes unchanged (the HTTP client has already undone a `Content-Encoding: gzip`). Errors of
 * the body (cut short, stalled) and of a broken gzip end the returned stream.
 */
export function gunzipIfGzip(body: Readable): Readable {
  const out = new PassThrough();
  const early = (err: Error) => out.destroy(err);
  body.once('error', early);
  body.once('readable', () => {
    body.off('error', early);
    const head = body.read() as Buffer | null;
    if (head) body.unshift(head);
    const gzip = head !== null && head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
    if (gzip) pipeline(body, createGunzip(), out, () => undefined);
    else pipeline(body, out, () => undefined);
  });
  // The reader gave up (a page's write failed, the run was stopped): the download stops too.
  out.once('close', () => {
    if (!body.destroyed) body.destroy();
  });
  return out;
}
