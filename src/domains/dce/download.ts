// What a download link answers: the piece, streamed from the object store, or the whole file
// as a zip built on the fly (the pieces streamed into it one after the other); a forged link
// 403, an expired one 410, a link used by another signed-in account 403, each with a French
// page and no file. Never indexed, never cached, no referrer.
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Database } from '../../platform/db/database.js';
import { ObjectMissingError, type ObjectStore } from '../../platform/files/object-store.js';
import { verifyLink } from './links.js';
import { piecesOf } from './store.js';

export interface DownloadAnswer {
  status: number;
  headers: Record<string, string>;
  /** The bytes, or the French explanation (a refusal). */
  body: Readable | { title: string; message: string };
}

const PRIVATE = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer' };

/** `attachment` with the name in ASCII (for old clients) and in UTF-8 (RFC 6266). */
function disposition(filename: string): string {
  const base = filename.split('/').pop() as string;
  const ascii = base.normalize('NFD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '_') || 'piece';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(base)}`;
}

const refusal = (status: number, title: string, message: string): DownloadAnswer => ({ status, headers: PRIVATE, body: { title, message } });

/** The store lost the object (410), or could not be reached (503, try again in a moment): said before any byte is sent. */
function storeRefusal(err: unknown): DownloadAnswer {
  if (err instanceof ObjectMissingError) return refusal(410, 'Pièce indisponible', 'Une pièce de ce dossier n’est plus dans le stockage du service : demander un nouveau lien plus tard.');
  return { ...refusal(503, 'Stockage momentanément indisponible', 'Le stockage des dossiers ne répond pas : réessayer dans un moment.'), headers: { ...PRIVATE, 'Retry-After': '30' } };
}

export function dceDownloads(deps: { db: Database; store: ObjectStore; key: string; now: () => Date }) {
  return async (token: string, signedInAccount: string | null): Promise<DownloadAnswer> => {
    const link = verifyLink(deps.key, token, deps.now().getTime());
    if (link === 'forged') return refusal(403, 'Lien invalide', 'Ce lien de téléchargement n’est pas valide (modifié ou incomplet). Demander un nouveau lien.');
    if (link === 'expired') return refusal(410, 'Lien expiré', 'Ce lien de téléchargement a expiré. Demander un nouveau lien (il vaut dix minutes).');
    if (signedInAccount && signedInAccount !== link.account) return refusal(403, 'Lien d’un autre compte', 'Ce lien a été donné à un autre compte : le demander depuis le vôtre.');
    const pieces = await piecesOf(deps.db, link.dce);
    if (!pieces.length) return refusal(410, 'Dossier indisponible', 'Ce dossier de consultation n’est plus disponible.');
    if (link.piece !== null) {
      const piece = pieces.find((p) => p.position === link.piece);
      if (!piece) return refusal(410, 'Pièce indisponible', 'Cette pièce a été remplacée par une nouvelle version du dossier : demander un nouveau lien.');
      let body: Readable;
      try {
        body = await deps.store.open(piece.object_key);
      } catch (err) {
        return storeRefusal(err);
      }
      return { status: 200, headers: { ...PRIVATE, 'Content-Type': piece.content_type, 'Content-Length': String(piece.size), 'Content-Disposition': disposition(piece.filename) }, body };
    }
    // Every piece checked before the archive starts: once bytes are sent, a missing one could only cut it short.
    try {
      const present = await Promise.all(pieces.map((p) => deps.store.has(p.object_key)));
      if (present.includes(false)) return storeRefusal(new ObjectMissingError());
    } catch (err) {
      return storeRefusal(err);
    }
    const zip = new yazl.ZipFile();
    for (const p of pieces) {
      zip.addReadStreamLazy(p.filename, { size: p.size, compress: !/\.(zip|pdf|docx|xlsx|odt|ods|jpe?g|png)$/i.test(p.filename) }, (done) => {
        deps.store.open(p.object_key).then(
          (stream) => done(null, stream),
          (err: unknown) => done(err as Error, undefined as never),
        );
      });
    }
    zip.end();
    return { status: 200, headers: { ...PRIVATE, 'Content-Type': 'application/zip', 'Content-Disposition': disposition(`dce-${link.dce}.zip`) }, body: zip.outputStream as Readable };
  };
}
