// The service's own permalinks (`url` of every record): a plain French page of the record
// for a signed-in account (the account settings' sign-in). The call goes through the same
// call path as REST and MCP, so scopes, plans and quotas apply alike.
import type { Middleware, ParameterizedContext } from 'koa';
import { SESSION_COOKIE } from '../auth/account-pages.js';
import { escapeHtml, page } from '../auth/pages.js';
import type { CallPath } from '../call-path.js';
import { callerOf, type Caller } from '../access/caller.js';
import { loadAccount } from '../auth/store/accounts.js';
import type { Database } from '../platform/db/database.js';
import { webSessionUser } from '../auth/store/web-sessions.js';
import { asServiceError, InvalidArgumentsError } from '../errors.js';
import { noteCall } from './access-log.js';
import { companyPage, PAGE_AWARDS, type AwardRecord, type CompanyAwards, type CompanyRecord } from './company-page.js';
import { brandReportPage, type BrandReport } from './brand-report-page.js';
import {
  announcementPage,
  awardPage,
  dceReadingPage,
  noticePage,
  PAGE_NOTICE_AWARDS,
  permitPage,
  salePage,
  type AnnouncementRecord,
  type DceContents,
  type NoticeRecord,
  type PermitRecord,
  type Read,
  type SaleRecord,
} from './record-pages.js';

/** A record as every `*.get` operation answers it. */
export interface PageRecord {
  id: string;
  titre: string;
  resume: string;
  fields: Record<string, unknown>;
}

/**
 * A route's own page instead of the generic table: the record's whole HTML document.
 * `read` runs another operation through the call path as the same caller (quota and
 * scopes apply); it throws the service's error when refused.
 */
export type RecordPageRenderer = (record: PageRecord, read: (operation: string, args: Record<string, unknown>) => Promise<unknown>) => Promise<string>;

/**
 * The company's page: its record and the most recent awards it won (the SIRET's for an
 * establishment's page). A refused awards read leaves the record shown, with the reason.
 */
export const companyRecordPage: RecordPageRenderer = async (record, read) => {
  let awards: CompanyAwards;
  try {
    const found = (await read('attributions.search', { titulaire: record.id, limit: PAGE_AWARDS })) as { results: AwardRecord[]; next_cursor: string | null };
    awards = { read: true, records: found.results, more: found.next_cursor !== null };
  } catch (err) {
    awards = { read: false, reason: asServiceError(err).message };
  }
  return companyPage(record as unknown as CompanyRecord, awards);
};

/** The brand report's printable page. */
export const brandReportRecordPage: RecordPageRenderer = async (record) => brandReportPage(record as unknown as BrandReport);

/** Another read of a page: its answer, or the service's refusal said on the page. */
async function attempt<T>(run: () => Promise<T>): Promise<Read<T>> {
  try {
    return { read: true, value: await run() };
  } catch (err) {
    return { read: false, reason: asServiceError(err).message };
  }
}

/**
 * A notice's page: its record, its consultation file's contents (free of file units; none
 * imported is no error) and the awards published for it. Each read refused leaves the rest shown.
 */
export const noticeRecordPage: RecordPageRenderer = async (record, read) => {
  const dce = await attempt(async () => {
    try {
      return (await read('dce.read', { marche_id: record.id, type: 'sommaire' })) as DceContents;
    } catch (err) {
      if (asServiceError(err).code === 'not_found') return null;
      throw err;
    }
  });
  const awards = await attempt(async () => {
    const found = (await read('attributions.search', { avis: record.id, limit: PAGE_NOTICE_AWARDS })) as { results: AwardRecord[]; next_cursor: string | null };
    return { records: found.results, more: found.next_cursor !== null };
  });
  return noticePage(record as unknown as NoticeRecord, dce, awards);
};

export const awardRecordPage: RecordPageRenderer = async (record) => awardPage(record as unknown as AwardRecord);
export const announcementRecordPage: RecordPageRenderer = async (record) => announcementPage(record as unknown as AnnouncementRecord);
export const permitRecordPage: RecordPageRenderer = async (record) => permitPage(record as unknown as PermitRecord);
export const saleRecordPage: RecordPageRenderer = async (record) => salePage(record as unknown as SaleRecord);

function valueText(value: unknown): string {
  if (value === null || value === undefined || (Array.isArray(value) && !value.length)) return '—';
  if (typeof value === 'boolean') return value ? 'oui' : 'non';
  if (Array.isArray(value)) return value.map((v) => (v && typeof v === 'object' ? Object.values(v).filter((x) => x !== null).join(' · ') : String(v))).join(' ; ');
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k.replace(/_/g, ' ')} : ${valueText(v)}`).join(' · ');
  return String(value);
}

const isRecordList = (value: unknown): value is Record<string, unknown>[] =>
  Array.isArray(value) && value.length > 0 && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v));

/** A cell: a list of objects (a report's tallies) prints as a table of its own, anything else as text. */
function cellHtml(value: unknown): string {
  if (!isRecordList(value)) return escapeHtml(valueText(value));
  const keys = Object.keys(value[0] as object);
  const head = keys.map((k) => `<th>${escapeHtml(k.replace(/_/g, ' '))}</th>`).join('');
  const body = value.map((row) => `<tr>${keys.map((k) => `<td>${escapeHtml(valueText(row[k]))}</td>`).join('')}</tr>`).join('');
  return `<table><tr>${head}</tr>${body}</table>`;
}

/** The headers of every record page: never cached, never framed, nothing loaded or run but inline CSS (and inline SVG). */
function securePage(ctx: ParameterizedContext): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
}

/**
 * The signed-in account's caller for the web pages (reads only, as a token with mcp:read
 * would), noted in the access log; a visitor is sent to sign in and back (undefined).
 */
async function pageCaller(deps: { db: Database; now: () => Date }, ctx: ParameterizedContext, operation: string): Promise<Caller | undefined> {
  const userId = await webSessionUser(deps.db, ctx.cookies.get(SESSION_COOKIE), deps.now());
  const account = userId ? await loadAccount(deps.db, userId) : undefined;
  if (!account) {
    ctx.redirect(`/compte/connexion?suite=${encodeURIComponent(ctx.originalUrl.startsWith('/') ? ctx.originalUrl : ctx.path)}`);
    ctx.status = 303;
    return undefined;
  }
  const caller = callerOf(account, { scopes: ['mcp:read'], clientId: 'pages-web', grantId: null, address: 'rest' });
  noteCall(ctx, { operation, accountId: caller.accountId });
  return caller;
}

function failurePage(ctx: ParameterizedContext, err: unknown): void {
  const known = asServiceError(err);
  ctx.status = known.status;
  ctx.type = 'html';
  ctx.body = page('Erreur', `<h1>La fiche n’a pas pu être affichée</h1><p class="error">${escapeHtml(known.message)}</p>`);
}

/**
 * The page of one record: `operation` run through the call path with the arguments `args`
 * makes of the identifier in the address (the route's capture); `render`, when given, makes
 * the page, else the generic table of the record's fields.
 */
export function createPermalinkPages(deps: { db: Database; callPath: CallPath; now: () => Date }) {
  return (operation: string, args: (id: string) => Record<string, unknown>, render?: RecordPageRenderer): Middleware =>
    async (ctx) => {
      const id = decodeURIComponent((ctx.captures as string[])[0] as string);
      securePage(ctx);
      const caller = await pageCaller(deps, ctx, operation);
      if (!caller) return;
      ctx.type = 'html';
      try {
        const result = (await deps.callPath.call(operation, caller, () => args(id))) as { results: PageRecord[] };
        const record = result.results[0];
        if (!record) {
          ctx.status = 404;
          ctx.body = page('Introuvable', `<h1>Fiche introuvable</h1><p>Aucune fiche ne correspond à « ${escapeHtml(id)} ».</p>`);
          return;
        }
        if (render) {
          ctx.body = await render(record, (next, nextArgs) => deps.callPath.call(next, caller, () => nextArgs));
          return;
        }
        const rows = Object.entries(record.fields)
          .filter(([key]) => key !== 'url')
          .map(([key, value]) => `<tr><th>${escapeHtml(key.replace(/_/g, ' '))}</th><td>${cellHtml(value)}</td></tr>`)
          .join('\n');
        ctx.body = page(record.titre, `<h1>${escapeHtml(record.titre)}</h1><p>${escapeHtml(record.resume)}</p><table>${rows}</table>`, true);
      } catch (err) {
        failurePage(ctx, err);
      }
    };
}

/** A query parameter given once, or undefined. */
function single(ctx: ParameterizedContext, name: string): string | undefined {
  const value = ctx.query[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A notice's consultation file from its page: a piece read page by page (`dce.read`), and a
 * piece or the whole archive downloaded (`dce.download`, then its signed link). Both run as
 * the signed-in account through the call path: its call quota and file units apply; the
 * arguments go through the contract's checks like any call.
 */
export function createDcePages(deps: { db: Database; callPath: CallPath; now: () => Date }) {
  const reading: Middleware = async (ctx) => {
    const id = decodeURIComponent((ctx.captures as string[])[0] as string);
    securePage(ctx);
    const caller = await pageCaller(deps, ctx, 'dce.read');
    if (!caller) return;
    ctx.type = 'html';
    try {
      const pageArg = single(ctx, 'page');
      const args = { marche_id: id, type: single(ctx, 'type') ?? 'autre', filename: single(ctx, 'piece') ?? '', ...(pageArg === undefined ? {} : { page: /^\d{1,6}$/.test(pageArg) ? Number(pageArg) : pageArg }) };
      const result = (await deps.callPath.call('dce.read', caller, () => args)) as DceContents;
      if (result.action !== 'lecture_dce') throw new InvalidArgumentsError('Cette adresse lit une pièce : donner « piece » et « type » comme les liens de la fiche de l’avis.');
      ctx.body = dceReadingPage(result.marche_id ?? id, result);
    } catch (err) {
      failurePage(ctx, err);
    }
  };
  const download: Middleware = async (ctx) => {
    const id = decodeURIComponent((ctx.captures as string[])[0] as string);
    securePage(ctx);
    const caller = await pageCaller(deps, ctx, 'dce.download');
    if (!caller) return;
    try {
      const piece = single(ctx, 'piece');
      const result = (await deps.callPath.call('dce.download', caller, () => ({ marche_id: id, ...(piece === undefined ? {} : { filename: piece }) }))) as { download_url: string };
      // The signed link is the service's own, valid a few minutes for this account only.
      ctx.status = 303;
      ctx.redirect(result.download_url);
    } catch (err) {
      failurePage(ctx, err);
    }
  };
  return { reading, download };
}
