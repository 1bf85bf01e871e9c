// Opens an input file as a stream of its (decompressed) bytes: plain, gzip (.gz) or zip
// (the first .csv/.json entry, or every JSON entry one after the other for the sources
// distributed as a zip of JSON files: the RNE stock). Progress is counted on the bytes read from disk.
import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';

export class ImportInputError extends Error {}

export interface Input {
  stream: Readable;
  /** Bytes of the file on disk, for a percentage. */
  totalBytes: number;
  /** Bytes read from disk so far. */
  readBytes: () => number;
  /** The name of what is read (the zip entry for a zip). */
  name: string;
}

/** A transform that counts what passes (a 'data' listener would start the flow too early). */
function counter(): { stream: Transform; readBytes: () => number } {
  let read = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      read += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, readBytes: () => read };
}

function counted(path: string): { stream: Readable; readBytes: () => number } {
  const file = createReadStream(path);
  const count = counter();
  file.on('error', (e) => count.stream.destroy(e));
  file.pipe(count.stream);
  return count;
}

function openZipEntry(path: string): Promise<{ stream: Readable; name: string; readBytes: () => number }> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(new ImportInputError(`archive zip illisible : ${path}`));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/\/$/.test(entry.fileName) || !/\.(csv|json|jsonl|ndjson|txt)$/i.test(entry.fileName)) return zip.readEntry();
        zip.openReadStream(entry, (e, raw) => {
          if (e || !raw) return reject(new ImportInputError(`entrée illisible dans ${path} : ${entry.fileName}`));
          const count = counter();
          raw.on('error', (error) => count.stream.destroy(error));
          raw.pipe(count.stream);
          // Only this entry is read: the archive's own hold on the file is let go now, and a
          // reader giving up early (a run stopped) lets go of the entry's, so that the file is
          // closed (a deleted multi-gigabyte download frees its disk space) in a long-lived process.
          zip.close();
          count.stream.once('close', () => {
            if (!raw.destroyed) raw.destroy();
          });
          // Progress on the uncompressed size, scaled to the compressed file's.
          const ratio = entry.uncompressedSize ? entry.compressedSize / entry.uncompressedSize : 1;
          resolve({ stream: count.stream, name: entry.fileName, readBytes: () => Math.round(count.readBytes() * ratio) });
        });
      });
      zip.on('end', () => reject(new ImportInputError(`aucun fichier .csv ou .json dans l'archive ${path}`)));
      zip.on('error', () => reject(new ImportInputError(`archive zip illisible : ${path}`)));
      zip.readEntry();
    });
  });
}

/** Which entries of a zip are read: the first data file, or every JSON file in the archive's order. */
export type ZipEntries = 'first' | 'all-json';

/**
 * Every .json entry of the archive, one after the other, a line break between two: the
 * reader then sees a sequence of JSON documents. Entries are read one at a time (streamed).
 */
function openZipJsonEntries(path: string): Promise<{ stream: Readable; name: string; readBytes: () => number }> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: true }, (err, zip) => {
      if (err || !zip) return reject(new ImportInputError(`archive zip illisible : ${path}`));
      const out = new PassThrough();
      let read = 0;
      let started = false;
      let finished = false;
      const fail = (message: string) => {
        if (!started) reject(new ImportInputError(message));
        else out.destroy(new ImportInputError(message));
      };
      zip.on('entry', (entry: yauzl.Entry) => {
        if (/\/$/.test(entry.fileName) || !/\.(json|jsonl|ndjson)$/i.test(entry.fileName)) return zip.readEntry();
        zip.openReadStream(entry, (e, raw) => {
          if (e || !raw) return fail(`entrée illisible dans ${path} : ${entry.fileName}`);
          if (!started) {
            started = true;
            resolve({ stream: out, name: `${path} (fichiers JSON de l'archive)`, readBytes: () => read });
          } else out.write('\n');
          raw.pipe(out, { end: false });
          raw.on('end', () => {
            read += entry.compressedSize;
            zip.readEntry();
          });
          raw.on('error', () => fail(`entrée illisible dans ${path} : ${entry.fileName}`));
        });
      });
      zip.on('end', () => {
        if (finished) return;
        finished = true;
        if (!started) reject(new ImportInputError(`aucun fichier .json dans l'archive ${path}`));
        else out.end();
      });
      zip.on('error', () => fail(`archive zip illisible : ${path}`));
      zip.readEntry();
    });
  });
}

export async function openInput(path: string, zipEntries: ZipEntries = 'first'): Promise<Input> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    await access(path, constants.R_OK);
    size = info.size;
  } catch {
    throw new ImportInputError(`fichier introuvable ou illisible : ${path}`);
  }
  if (/\.zip$/i.test(path)) {
    const entry = zipEntries === 'all-json' ? await openZipJsonEntries(path) : await openZipEntry(path);
    return { stream: entry.stream, totalBytes: size, readBytes: entry.readBytes, name: entry.name };
  }
  const { stream, readBytes } = counted(path);
  if (/\.gz$/i.test(path)) {
    const gunzip = createGunzip();
    stream.pipe(gunzip);
    stream.on('error', (e) => gunzip.destroy(e));
    return { stream: gunzip, totalBytes: size, readBytes, name: path.replace(/\.gz$/i, '') };
  }
  return { stream, totalBytes: size, readBytes, name: path };
}
