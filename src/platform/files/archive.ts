// Reads a zip archive entry by entry, streamed (never loaded whole), refusing what a hostile
// or broken archive holds before anything is kept: entry names climbing out (`..`) or
// absolute, encrypted entries, too many entries, too large a total, compression ratios of a
// zip bomb, a zip inside a zip inside a zip. The limits are documented in the README.
import type { Readable } from 'node:stream';
import yauzl from 'yauzl';

export interface ArchiveLimits {
  /** Entries (files and folders) of one archive. */
  maxEntries: number;
  /** Uncompressed bytes of one entry. */
  maxEntryBytes: number;
  /** Uncompressed bytes of the whole archive. */
  maxTotalBytes: number;
  /** Uncompressed / compressed size of an entry, checked above 1 MiB uncompressed. */
  maxRatio: number;
}

export const ARCHIVE_LIMITS: Readonly<ArchiveLimits> = {
  maxEntries: 2000,
  maxEntryBytes: 200 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
  maxRatio: 200,
};

const RATIO_FLOOR_BYTES = 1024 * 1024;

/** Why an archive is refused, in French, naming the entry at fault. */
export class ArchiveError extends Error {}

export interface ArchiveEntry {
  /** The entry's path in the archive, with `/`. */
  name: string;
  /** Declared uncompressed size (checked while reading: a lying entry fails its stream). */
  size: number;
  open(): Promise<Readable>;
}

/** A name that stays inside the archive's folder: relative, no `..` segment, no drive letter. */
export function safeEntryName(name: string): boolean {
  const normal = name.replace(/\\/g, '/');
  if (!normal || normal.startsWith('/') || /^[a-z]:/i.test(normal)) return false;
  return !normal.split('/').some((segment) => segment === '..');
}

/** yauzl's own refusals, in French (it checks names and sizes before we see the entry). */
function yauzlReason(err: Error, file: string): string {
  const m = err.message;
  if (/invalid relative path|absolute path|invalid characters in fileName/i.test(m)) return `${file} : une entrée de l'archive sort de son dossier (${m.split(':').slice(1).join(':').trim() || 'chemin interdit'})`;
  if (/encrypted/i.test(m)) return `${file} : archive chiffrée, illisible sans mot de passe`;
  if (/end of central directory|not a zip|invalid signature|multi-disk/i.test(m)) return `${file} : archive zip illisible (corrompue ou tronquée)`;
  return `${file} : archive zip illisible`;
}

/**
 * The entries of the zip at `path` (files only), each checked against the limits before it
 * is given; the whole central directory is checked first (count and total size), so a
 * refused archive is refused before any entry is read. `label` names the archive in messages.
 */
export async function readArchive(path: string, label: string, limits: ArchiveLimits = ARCHIVE_LIMITS): Promise<{ entries: ArchiveEntry[]; close: () => void }> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: false, validateEntrySizes: true }, (err, z) =>
      err || !z ? reject(new ArchiveError(yauzlReason(err ?? new Error(''), label))) : resolve(z),
    ),
  );
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw new ArchiveError(`${label} : ${zip.entryCount} entrées, plus que les ${limits.maxEntries} admises`);
  }
  const entries: ArchiveEntry[] = [];
  try {
    let total = 0;
    await new Promise<void>((resolve, reject) => {
      zip.on('error', (err: Error) => reject(new ArchiveError(yauzlReason(err, label))));
      zip.on('end', () => resolve());
      zip.on('entry', (entry: yauzl.Entry) => {
        const name = entry.fileName.replace(/\\/g, '/');
        if (!safeEntryName(name)) return reject(new ArchiveError(`${label} : l'entrée « ${name} » sort du dossier de l'archive`));
        if (name.endsWith('/')) return zip.readEntry();
        if ((entry.generalPurposeBitFlag & 1) !== 0) return reject(new ArchiveError(`${label} : l'entrée « ${name} » est chiffrée, illisible sans mot de passe`));
        if (entry.uncompressedSize > limits.maxEntryBytes)
          return reject(new ArchiveError(`${label} : l'entrée « ${name} » fait ${entry.uncompressedSize} octets décompressée, plus que les ${limits.maxEntryBytes} admis`));
        if (entry.uncompressedSize > RATIO_FLOOR_BYTES && entry.uncompressedSize > limits.maxRatio * Math.max(entry.compressedSize, 1))
          return reject(new ArchiveError(`${label} : l'entrée « ${name} » est compressée plus de ${limits.maxRatio} fois (bombe zip ?)`));
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes) return reject(new ArchiveError(`${label} : plus de ${limits.maxTotalBytes} octets une fois décompressée`));
        entries.push({
          name,
          size: entry.uncompressedSize,
          open: () =>
            new Promise<Readable>((ok, ko) =>
              zip.openReadStream(entry, (err, stream) => (err || !stream ? ko(new ArchiveError(`${label} : l'entrée « ${name} » est illisible`)) : ok(stream))),
            ),
        });
        zip.readEntry();
      });
      zip.readEntry();
    });
  } catch (err) {
    zip.close();
    throw err;
  }
  return { entries, close: () => zip.close() };
}
