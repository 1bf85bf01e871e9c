// The service's own permalinks (`url` of every record): a plain French page of the record
// for a signed-in account (the account settings' sign-in). The call goes through the same
// call path as REST and MCP, so scopes, plans and quotas apply alike.
import type { Middleware } from 'koa';
import { SESSION_COOKIE } from '../auth/account-pages.js';
import { escapeHtml, page } from '../auth/pages.js';
import type { CallPath } from '../call-path.js';
import { callerOf } from '../access/caller.js';
import { loadAccount } from '../auth/store/accounts.js';
import type { Database } from '../platform/db/database.js';
import { webSessionUser } from '../auth/store/web-sessions.js';
import { asServiceError } from '../errors.js';
import { noteCall } from './access-log.js';
import { companyPage, PAGE_AWARDS, type AwardRecord, type CompanyAwards, type CompanyRecord } from './company-page.js';
import { brandReportPage, type BrandReport } from './brand-report-page.js';

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

/**
 * The page of one record: `operation` run through the call path with the arguments `args`
 * makes of the identifier in the address (the route's capture); `render`, when given, makes
 * the page, else the generic table of the record's fields.
 */
export function createPermalinkPages(deps: { db: Database; callPath: CallPath; now: () => Date }) {
  return (operation: string, args: (id: string) => Record<string, unknown>, render?: RecordPageRenderer): Middleware =>
    async (ctx) => {
      const id = decodeURIComponent((ctx.captures as string[])[0] as string);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Frame-Options', 'DENY');
      // The pages are plain HTML and inline CSS (the chart is inline SVG): nothing else may load or run.
      ctx.set('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'");
      const userId = await webSessionUser(deps.db, ctx.cookies.get(SESSION_COOKIE), deps.now());
      const account = userId ? await loadAccount(deps.db, userId) : undefined;
      if (!account) {
        ctx.redirect(`/compte/connexion?suite=${encodeURIComponent(ctx.path)}`);
        ctx.status = 303;
        return;
      }
      // The web pages' access: reads only, as a token with mcp:read would.
      const caller = callerOf(account, { scopes: ['mcp:read'], clientId: 'pages-web', grantId: null, address: 'rest' });
      noteCall(ctx, { operation: operation, accountId: caller.accountId });
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
        const known = asServiceError(err);
        ctx.status = known.status;
        ctx.body = page('Erreur', `<h1>La fiche n’a pas pu être affichée</h1><p class="error">${escapeHtml(known.message)}</p>`);
      }
    };
}
