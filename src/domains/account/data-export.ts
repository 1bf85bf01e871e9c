// Export of an account's data (GDPR art. 20): a temporary signed link
// `{base_url}/compte/export/<token>` (the account and the expiry, signed with the service's
// link key under a label of its own, like the response files' export links) to a zip of JSON
// files: the account, its organisation, and the organisation's workspace it can read (alerts,
// event subscriptions, follow-ups, response files with their documents, drafts, e-mails sent),
// its AI accesses and its own activity. Never another organisation's rows.
import type { Readable } from 'node:stream';
import yazl from 'yazl';
import type { Database } from '../../platform/db/database.js';
import type { ObjectStore } from '../../platform/files/object-store.js';
import { openToken, signToken } from '../../platform/signed-tokens.js';
import { safeName } from '../response-files/export.js';

export const ACCOUNT_EXPORT_TTL_SECONDS = 600;
export const ACCOUNT_EXPORT_PATH = '/compte/export/';
const USE = 'compte-export.';

export function signAccountExport(key: string, account: string, expires: number): string {
  return signToken(key, USE, JSON.stringify([account, expires]));
}

export function verifyAccountExport(key: string, token: string, nowMs: number): { account: string; expires: number } | 'forged' | 'expired' {
  const payload = openToken(key, USE, token, 500);
  if (payload === null) return 'forged';
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return 'forged';
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || !Number.isInteger(parsed[1])) return 'forged';
  if ((parsed[1] as number) * 1000 <= nowMs) return 'expired';
  return { account: parsed[0], expires: parsed[1] as number };
}

type Row = Record<string, unknown>;

/** Columns given back as the JSON they hold. */
const JSON_COLUMNS = new Set(['recipients_to', 'recipients_cc', 'tags', 'items', 'criteria', 'checks', 'source', 'counters']);

function clean(rows: Row[]): Row[] {
  return rows.map((r) =>
    Object.fromEntries(
      Object.entries(r).map(([k, v]) => {
        if (JSON_COLUMNS.has(k) && typeof v === 'string') {
          try {
            return [k, JSON.parse(v) as unknown];
          } catch {
            return [k, v];
          }
        }
        return [k, v];
      }),
    ),
  );
}

export interface AccountExport {
  files: { name: string; content: unknown }[];
  documents: { path: string; objectKey: string; size: number }[];
}

/** Everything the export holds, read at once (the zip is then written from it). */
export async function collectAccountData(db: Database, userId: string, grants: unknown[]): Promise<AccountExport | null> {
  const user = await db('users').where('id', userId).first('id', 'email', 'created_at', 'last_sign_in_at');
  if (!user) return null;
  const membership = await db('memberships').where('user_id', userId).first('organisation_id', 'role', 'created_at');
  const orgId = (membership?.organisation_id as string | undefined) ?? null;
  const files: AccountExport['files'] = [];
  const documents: AccountExport['documents'] = [];
  files.push({ name: 'compte.json', content: { ...user, role: membership?.role ?? null, membre_depuis: membership?.created_at ?? null } });
  files.push({ name: 'acces-ia.json', content: grants });
  files.push({
    name: 'journal.json',
    content: await db('activity_log').where((w) => w.where('actor_id', userId).orWhere('subject_id', userId)).orderBy('at').select('at', 'kind', 'detail', 'network', 'ip'),
  });
  if (orgId) {
    const org = await db('organisations').where('id', orgId).first('id', 'name', 'plan', 'created_at');
    files.push({ name: 'organisation.json', content: org });
    const of = (table: string) => db(table).where('organisation_id', orgId);
    files.push({ name: 'alertes.json', content: clean(await of('alerts').select()) });
    files.push({ name: 'abonnements-evenements.json', content: clean(await of('event_subscriptions').select()) });
    files.push({ name: 'suivis.json', content: clean(await of('follow_ups').select()) });
    const drafts = clean(await of('drafts').select());
    const versions = drafts.length ? clean(await db('draft_versions').whereIn('draft_id', drafts.map((d) => d.id as string)).orderBy(['draft_id', 'version']).select()) : [];
    files.push({ name: 'brouillons.json', content: drafts.map((d) => ({ ...d, versions: versions.filter((v) => v.draft_id === d.id) })) });
    const responseFiles = clean(await of('response_files').select());
    const docs = responseFiles.length ? clean(await db('response_file_documents').whereIn('response_file_id', responseFiles.map((f) => f.id as string)).select()) : [];
    const used = new Set<string>();
    for (const d of docs) {
      let path = `documents/${safeName(String(d.response_file_id), 'dossier')}/${safeName(String(d.filename ?? ''), 'document')}`;
      for (let n = 2; used.has(path.toLowerCase()); n++) path = path.replace(/( \(\d+\))?(\.[^./]*)?$/, (_m, _n, ext: string | undefined) => ` (${n})${ext ?? ''}`);
      used.add(path.toLowerCase());
      documents.push({ path, objectKey: d.object_key as string, size: Number(d.size) });
      d.fichier_dans_l_export = path;
    }
    files.push({ name: 'dossiers.json', content: responseFiles.map((f) => ({ ...f, documents: docs.filter((d) => d.response_file_id === f.id) })) });
    const emails = clean(await of('email_messages').whereNull('purpose').orderBy('created_at').select());
    files.push({ name: 'courriels.json', content: emails.map((m) => ({ ...m, html_body: undefined, purpose: undefined })) });
  }
  return { files, documents };
}

/** The zip of an export, written as it is read. */
export function zipAccountExport(data: AccountExport, store: ObjectStore): Readable {
  const zip = new yazl.ZipFile();
  for (const f of data.files) zip.addBuffer(Buffer.from(`${JSON.stringify(f.content, null, 2)}\n`, 'utf8'), f.name);
  for (const d of data.documents) {
    zip.addReadStreamLazy(d.path, { size: d.size }, (done) => {
      store.open(d.objectKey).then(
        (stream) => done(null, stream),
        (err: unknown) => done(err as Error, undefined as never),
      );
    });
  }
  zip.end();
  return zip.outputStream as Readable;
}
