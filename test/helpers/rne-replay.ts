// The INPI's RNE API replayed: `POST /api/sso/login` ({"username", "password"} → {"token",
// "user"}), and `GET /api/companies/diff?from&to&pageSize&searchAfter` with the bearer token:
// a list of `{"company": {"id", "siren", "updatedAt", "formality"}}` changed after `from` (excluded)
// up to `to` (included), in SIREN order, at most 100 a page, the last SIREN in the
// `pagination-search-after` header, an empty list past the end, 401 on an expired token, as
// the INPI's technical documentation describes them. The companies are written in the
// documented formality layout (test/helpers/company-sources.ts: no real RNE file is published).
import { randomUUID } from 'node:crypto';
import type { ReplayHandler } from './replay-server.js';

type Json = Record<string, unknown>;

export interface RneDataset {
  username: string;
  password: string;
  /** Companies as `/companies/{siren}` answers them (`updatedAt` says the day they changed). */
  companies: Json[];
}

export interface RneReplay {
  handler: ReplayHandler;
  /** Every token given so far stops being accepted (they expired). */
  expireTokens: () => void;
  /** Sign-ins accepted. */
  logins: () => number;
}

const error = (status: number, message: string) => ({ status, json: { code: status, message } });

export function rneReplay(data: () => RneDataset): RneReplay {
  const valid = new Set<string>();
  let logins = 0;
  const handler: ReplayHandler = (req) => {
    const dataset = data();
    if (req.path.endsWith('/sso/login')) {
      if (req.method !== 'POST') return error(405, 'Method Not Allowed');
      let body: { username?: unknown; password?: unknown } = {};
      try {
        body = JSON.parse(req.body.toString('utf8')) as typeof body;
      } catch {
        return error(400, 'Invalid JSON.');
      }
      if (body.username !== dataset.username || body.password !== dataset.password) return error(401, 'Invalid credentials.');
      const token = `eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.${randomUUID()}`;
      valid.add(token);
      logins += 1;
      return { json: { token, user: { id: 1, email: dataset.username, hasCompany: false, roles: ['ROLE_USER'] } } };
    }
    if (!req.path.endsWith('/companies/diff')) return error(404, 'Not Found');
    const auth = String(req.headers.authorization ?? '');
    if (!auth.startsWith('Bearer ') || !valid.has(auth.slice(7))) return error(401, 'Expired JWT Token');
    const from = req.query.get('from');
    const to = req.query.get('to');
    const pageSize = Number(req.query.get('pageSize') ?? 20);
    if (!from || !to || !/^\d{4}-\d{2}-\d{2}$/.test(from) || !/^\d{4}-\d{2}-\d{2}$/.test(to)) return error(400, 'Les paramètres from et to sont obligatoires (AAAA-MM-JJ).');
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) return error(400, 'pageSize doit être compris entre 1 et 100.');
    const after = req.query.get('searchAfter');
    const page = dataset.companies
      .filter((c) => {
        const day = String(c.updatedAt).slice(0, 10);
        return day > from && day <= to && (!after || String(c.siren) > after);
      })
      .sort((a, b) => String(a.siren).localeCompare(String(b.siren)))
      .slice(0, pageSize);
    const headers: Record<string, string> = page.length ? { 'pagination-search-after': String(page[page.length - 1]?.siren) } : {};
    return { headers, json: page.map((company) => ({ company })) };
  };
  return { handler, expireTokens: () => valid.clear(), logins: () => logins };
}
