// The national company register's daily changes (RNE, INPI): after signing in
// (`POST /sso/login` with INPI_USERNAME / INPI_PASSWORD → a bearer token), the companies whose
// record changed on each day (`GET /companies/diff?from=<day before>&to=<day>`: `from` is
// excluded, `to` included, as the INPI's technical documentation says), 100 a page, in SIREN
// order; the next page starts after the last SIREN (`searchAfter`, given back in the
// `pagination-search-after` header); an empty page ends the day. The answer is a list of
// `{"company": {"id", "siren", "updatedAt", "formality"}}`: each company goes through the RNE
// importer as an imported one (officers: name, first names, role and year of birth only, never
// an address). The quota is the account's: a 429 waits, an expired token (401) signs in again
// once, then the run stops.
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import type { Importer } from '../../import/importer.js';
import { addDays, isDay } from '../../sync/days.js';
import { SyncHttpError, type JsonAnswer } from '../../sync/http.js';
import { parisDay } from '../../platform/paris-time.js';
import { rne } from './import-rne.js';

/** Companies per page (the API's largest `pageSize`). */
export const RNE_PAGE_SIZE = 100;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null);

/** An item of `/companies/diff` (`{"company": {…}}`) as the RNE importer reads a company. */
export function diffItemToCompany(item: unknown): unknown {
  const o = obj(item);
  return obj(o?.company) ?? item;
}

/** The SIREN of a diff item, for the next page when the header does not give it. */
function sirenOf(item: unknown): string | null {
  const company = obj(diffItemToCompany(item));
  const siren = company?.siren ?? obj(company?.formality)?.siren;
  return typeof siren === 'string' && /^\d{9}$/.test(siren) ? siren : null;
}

export interface RneCursor {
  /** The last day read to its end. */
  done: string | null;
  /** The next day of the pass in progress; null once a pass ends. */
  next: string | null;
  /** The day being read and the last SIREN of it written. */
  day: string | null;
  searchAfter: string | null;
}

function readCursor(value: unknown): RneCursor {
  const c = obj(value) ?? {};
  const day = (v: unknown) => (typeof v === 'string' && isDay(v) ? v : null);
  return { done: day(c.done), next: day(c.next), day: day(c.day), searchAfter: typeof c.searchAfter === 'string' && /^\d{9}$/.test(c.searchAfter) ? c.searchAfter : null };
}

/** The run's sign-in: one token, renewed once when the API refuses it (401). */
class InpiSession {
  private token: string | null = null;
  constructor(private readonly ctx: SyncContext) {}

  private async login(): Promise<string> {
    const username = this.ctx.setting('INPI_USERNAME');
    const password = this.ctx.setting('INPI_PASSWORD');
    try {
      const { body } = await this.ctx.http.postJson<{ token?: unknown }>(`${this.ctx.baseUrl}/sso/login`, { username, password }, { headers: { accept: 'application/json' } });
      if (typeof body?.token !== 'string' || !body.token) throw new SyncHttpError('connexion à l’INPI : réponse sans jeton', null);
      return body.token;
    } catch (err) {
      if (err instanceof SyncHttpError && (err.status === 401 || err.status === 403)) {
        throw new SyncHttpError(`connexion à l’INPI refusée (HTTP ${err.status}) : vérifier INPI_USERNAME et INPI_PASSWORD`, err.status);
      }
      throw err;
    }
  }

  async get<T>(url: string): Promise<JsonAnswer<T>> {
    this.token ??= await this.login();
    const once = () => this.ctx.http.getJson<T>(url, { headers: { authorization: `Bearer ${this.token as string}`, accept: 'application/json' } });
    try {
      return await once();
    } catch (err) {
      if (!(err instanceof SyncHttpError && err.status === 401)) throw err;
    }
    // The token expired: sign in again, once; a second refusal ends the run.
    this.token = await this.login();
    try {
      return await once();
    } catch (err) {
      if (err instanceof SyncHttpError && err.status === 401) throw new SyncHttpError('l’INPI refuse le jeton obtenu à la connexion (HTTP 401) : reprise au prochain passage', 401);
      throw err;
    }
  }
}

/** Every page of the companies changed since the cursor, one day at a time. */
export async function* rnePages(ctx: SyncContext): AsyncGenerator<SyncPage> {
  const session = new InpiSession(ctx);
  const cursor = readCursor(ctx.cursor);
  const yesterday = addDays(parisDay(ctx.now()), -1);
  const explicit = ctx.since !== null || ctx.until !== null;
  // The account's daily quota: a day read to its end is not read again.
  const first = explicit ? ((ctx.since ?? ctx.until) as string) : (cursor.day ?? cursor.next ?? (cursor.done ? addDays(cursor.done, 1) : yesterday));
  const last = ctx.until ?? (ctx.since && ctx.since > yesterday ? ctx.since : yesterday);
  let state: RneCursor = { ...cursor };
  for (let day = first; day <= last; day = addDays(day, 1)) {
    let after = state.day === day ? state.searchAfter : null;
    for (;;) {
      const params = new URLSearchParams({ from: addDays(day, -1), to: day, pageSize: String(RNE_PAGE_SIZE) });
      if (after) params.set('searchAfter', after);
      const { body, headers } = await session.get<unknown>(`${ctx.baseUrl}/companies/diff?${params}`);
      if (!Array.isArray(body)) throw new SyncHttpError(`réponse de l’INPI qui n’est pas une liste d’entreprises pour le ${day}`, null);
      const given = headers.get('pagination-search-after')?.trim();
      const following = given && /^\d{9}$/.test(given) ? given : body.length ? sirenOf(body[body.length - 1]) : null;
      // An empty page ends the day; so does a page that does not move the SIREN forward (never a loop).
      const end = body.length === 0 || following === null || following === after;
      state = end ? { done: state.done && state.done > day ? state.done : day, next: addDays(day, 1), day: null, searchAfter: null } : { ...state, day, searchAfter: following };
      yield { records: body.map(diffItemToCompany), cursor: state };
      if (end) break;
      after = following;
    }
  }
  yield { records: [], cursor: { ...state, next: null, day: null, searchAfter: null } };
}

export const rneConnector: Connector = {
  name: 'rne',
  label: 'dirigeants et capital du registre national des entreprises (INPI)',
  alertSource: 'entreprise',
  importers: { rne: rne as unknown as Importer<never, never> },
  baseUrl: { setting: 'RNE_API_URL', default: 'https://registre-national-entreprises.inpi.fr/api' },
  credentials: ['INPI_USERNAME', 'INPI_PASSWORD'],
  // Daily, the day before (Paris time).
  schedule: ['0 7 * * *'],
  staleAfterHours: 30,
  pages: rnePages,
};
