// Opens an input file as a stream of its (decompressed) bytes: plain, gzip (.gz) or zip
// (the first .csv/.json entry). Progress is counted on the bytes read from disk.
import { constants, createReadStream } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
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

export async function openInput(path: string): Promise<Input> {
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
    const entry = await openZipEntry(path);
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
