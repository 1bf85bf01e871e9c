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
 * makes of the identifier in the address (the route's capture).
 */
export function createPermalinkPages(deps: { db: Database; callPath: CallPath; now: () => Date }) {
  return (operation: string, args: (id: string) => Record<string, unknown>): Middleware =>
    async (ctx) => {
      const id = decodeURIComponent((ctx.captures as string[])[0] as string);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('X-Frame-Options', 'DENY');
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
        const result = (await deps.callPath.call(operation, caller, () => args(id))) as { results: { titre: string; resume: string; fields: Record<string, unknown> }[] };
        const record = result.results[0];
        if (!record) {
          ctx.status = 404;
          ctx.body = page('Introuvable', `<h1>Fiche introuvable</h1><p>Aucune fiche ne correspond à « ${escapeHtml(id)} ».</p>`);
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
