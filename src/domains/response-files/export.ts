// The export of a response file: a temporary link `{base_url}/dossiers/export/<token>` (the
// token carries the account, the organisation, the file and the expiry, signed with the
// service's link key under a label of its own, so that a consultation file's link never
// passes for an export link nor the reverse) to one zip built on the fly: the checklist as
// an HTML page and the attached documents, one folder per item. Never indexed, never
// cached, no referrer; refusals are French pages, like the consultation files' links.
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Database } from '../../platform/db/database.js';
import { longDateTime } from '../../platform/french-dates.js';
import { parisIsoOf } from '../../platform/paris-time.js';
import { openToken, signToken } from '../../platform/signed-tokens.js';
import { ObjectMissingError, type ObjectStore } from '../../platform/files/object-store.js';
import { isMember } from '../follow-ups/store.js';
import { documentsOf, responseFileById, type DocumentRecord, type ResponseFileRecord } from './store.js';

export const EXPORT_LINK_TTL_SECONDS = 600;
export const EXPORT_LINK_PATH = '/dossiers/export/';

export interface ExportLink {
  account: string;
  organisation: string;
  file: string;
  /** Expiry, seconds since the epoch. */
  expires: number;
}

const USE = 'dossier-export.';

export function signExportLink(key: string, link: ExportLink): string {
  return signToken(key, USE, JSON.stringify([link.account, link.organisation, link.file, link.expires]));
}

/** The link's content, or why it is refused: `forged` (bad form or signature), `expired`. */
export function verifyExportLink(key: string, token: string, nowMs: number): ExportLink | 'forged' | 'expired' {
  const payload = openToken(key, USE, token, 1000);
  if (payload === null) return 'forged';
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return 'forged';
  }
  if (!Array.isArray(parsed) || parsed.length !== 4) return 'forged';
  const [account, organisation, file, expires] = parsed as unknown[];
  if (typeof account !== 'string' || typeof organisation !== 'string' || typeof file !== 'string' || !Number.isInteger(expires)) return 'forged';
  if ((expires as number) * 1000 <= nowMs) return 'expired';
  return { account, organisation, file, expires: expires as number };
}

export interface ExportAnswer {
  status: number;
  headers: Record<string, string>;
  /** The bytes, or the French explanation (a refusal). */
  body: Readable | { title: string; message: string };
}

const PRIVATE = { 'Cache-Control': 'no-store', 'X-Robots-Tag': 'noindex, nofollow', 'Referrer-Policy': 'no-referrer' };
const refusal = (status: number, title: string, message: string): ExportAnswer => ({ status, headers: PRIVATE, body: { title, message } });

/** `attachment` with the name in ASCII (for old clients) and in UTF-8 (RFC 6266). */
function disposition(filename: string): string {
  const ascii = filename.normalize('NFD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '_') || 'dossier.zip';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A name safe in a zip and on any disk: no folder separators, no control or reserved characters. */
export function safeName(name: string, fallback: string): string {
  const clean = [...name]
    .map((c) => (c.charCodeAt(0) < 32 ? ' ' : c))
    .join('')
    .replace(/[\\/:*?"<>|]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[.\s]+/, '')
    .slice(0, 120)
    .trim();
  return clean || fallback;
}

export const STATUS_LABELS: Record<string, string> = { a_fournir: 'à fournir', en_cours: 'en cours', pret: 'prête', sans_objet: 'sans objet' };

/** Where each document goes in the zip: `NN <item label>/<document name>`, a name met twice numbered. */
export function zipPaths(file: ResponseFileRecord, documents: readonly DocumentRecord[]): Map<string, string> {
  const folders = new Map(file.items.map((item, i) => [item.id, `${String(i + 1).padStart(2, '0')} ${safeName(item.label, item.id)}`]));
  const used = new Set<string>();
  const out = new Map<string, string>();
  // In the checklist's order, then the order of attachment.
  const ordered = file.items.flatMap((item) => documents.filter((d) => d.itemId === item.id));
  for (const d of ordered) {
    const folder = folders.get(d.itemId) as string;
    const name = safeName(d.filename, 'document');
    let path = `${folder}/${name}`;
    for (let n = 2; used.has(path.toLowerCase()); n++) path = `${folder}/${name.replace(/(\.[^.]*)?$/, (ext) => ` (${n})${ext}`)}`;
    used.add(path.toLowerCase());
    out.set(d.id, path);
  }
  return out;
}

/** The checklist as a standalone HTML page (French), with each item's status, origin and documents. */
export function checklistPage(file: ResponseFileRecord, documents: readonly DocumentRecord[], paths: Map<string, string>, notice: { objet: string | null; date_limite: string | null } | null): string {
  const rows = file.items
    .map((item, i) => {
      const origin =
        item.origin.kind === 'rc'
          ? `RC « ${item.origin.piece ?? ''} », page ${item.origin.page ?? '?'}${item.origin.excerpt ? ` : « ${item.origin.excerpt} »` : ''}`
          : item.origin.kind === 'dce'
            ? `Pièce du DCE « ${item.origin.piece ?? ''} »`
            : item.origin.kind === 'defaut'
              ? 'Liste par défaut'
              : "Ajoutée par l'équipe";
      const docs = documents
        .filter((d) => d.itemId === item.id)
        .map((d) => {
          const path = paths.get(d.id);
          return path ? `<li><a href="${escapeHtml(path.split('/').map(encodeURIComponent).join('/'))}">${escapeHtml(d.filename)}</a> (${d.size} octets)</li>` : '';
        })
        .join('');
      return `<tr><td>${i + 1}</td><td>${escapeHtml(item.label)}</td><td>${escapeHtml(STATUS_LABELS[item.status] ?? item.status)}</td><td>${escapeHtml(origin)}</td><td>${docs ? `<ul>${docs}</ul>` : '—'}</td></tr>`;
    })
    .join('\n');
  const subject = notice?.objet ? `<p>Avis : ${escapeHtml(notice.objet)}${notice.date_limite ? ` — date limite : ${escapeHtml(longDateTime(parisIsoOf(notice.date_limite) as string))} (heure de Paris)` : ''}</p>` : '';
  return `<!doctype html>
<html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(file.title)}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #999;padding:.3em .6em;vertical-align:top;text-align:left}</style></head>
<body><h1>${escapeHtml(file.title)}</h1>
${subject}<p>Liste des pièces à fournir, version ${file.version}.</p>
<table><thead><tr><th>N°</th><th>Pièce</th><th>Statut</th><th>Origine</th><th>Documents joints</th></tr></thead><tbody>
${rows}
</tbody></table></body></html>
`;
}

export function responseFileExports(deps: { db: Database; store: ObjectStore; key: string; now: () => Date }) {
  return async (token: string, signedInAccount: string | null): Promise<ExportAnswer> => {
    const link = verifyExportLink(deps.key, token, deps.now().getTime());
    if (link === 'forged') return refusal(403, 'Lien invalide', 'Ce lien d’export n’est pas valide (modifié ou incomplet). Demander un nouveau lien.');
    if (link === 'expired') return refusal(410, 'Lien expiré', 'Ce lien d’export a expiré. Demander un nouveau lien (il vaut dix minutes).');
    if (signedInAccount && signedInAccount !== link.account) return refusal(403, 'Lien d’un autre compte', 'Ce lien a été donné à un autre compte : le demander depuis le vôtre.');
    const file = await responseFileById(deps.db, link.file);
    // A file removed, or an account that has since left the organisation: the same answer.
    if (!file || file.organisationId !== link.organisation || !(await isMember(deps.db, link.organisation, link.account)))
      return refusal(410, 'Dossier indisponible', 'Ce dossier de réponse n’est plus disponible.');
    const documents = await documentsOf(deps.db, [file.id]);
    // Every document checked before the archive starts: once bytes are sent, a missing one could only cut it short.
    try {
      const present = await Promise.all(documents.map((d) => deps.store.has(d.objectKey)));
      if (present.includes(false)) return refusal(410, 'Document indisponible', 'Un document joint n’est plus dans le stockage du service : le joindre de nouveau.');
    } catch (err) {
      if (err instanceof ObjectMissingError) return refusal(410, 'Document indisponible', 'Un document joint n’est plus dans le stockage du service : le joindre de nouveau.');
      return { ...refusal(503, 'Stockage momentanément indisponible', 'Le stockage des documents ne répond pas : réessayer dans un moment.'), headers: { ...PRIVATE, 'Retry-After': '30' } };
    }
    const notice = (await deps.db('notices').where('marche_id', file.marcheId).first(['objet', 'date_limite'])) as { objet: string | null; date_limite: string | null } | undefined;
    const paths = zipPaths(file, documents);
    const zip = new yazl.ZipFile();
    zip.addBuffer(Buffer.from(checklistPage(file, documents, paths, notice ?? null), 'utf8'), 'liste-des-pieces.html');
    for (const [id, path] of paths) {
      const d = documents.find((x) => x.id === id) as DocumentRecord;
      zip.addReadStreamLazy(path, { size: d.size, compress: !/\.(zip|pdf|docx|xlsx|odt|ods|jpe?g|png)$/i.test(d.filename) }, (done) => {
        deps.store.open(d.objectKey).then(
          (stream) => done(null, stream),
          (err: unknown) => done(err as Error, undefined as never),
        );
      });
    }
    zip.end();
    return { status: 200, headers: { ...PRIVATE, 'Content-Type': 'application/zip', 'Content-Disposition': disposition(`${safeName(file.title, 'dossier')}.zip`) }, body: zip.outputStream as Readable };
  };
}
