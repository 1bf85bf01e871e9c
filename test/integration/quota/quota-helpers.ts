// Helpers of the quota tests: accounts in organisations of their own, raw REST and MCP calls to any address, database snapshots.
import { randomBytes } from 'node:crypto';
import { setOrganisationPlan, type PlanChanges } from '../../../src/auth/store/accounts.js';
import type { Plan } from '../../../src/access/caller.js';
import { expect } from 'chai';
import { kindOf, type Database } from '../../../src/platform/db/database.js';
import type { TestAccount, TestService } from '../../helpers/service.js';

export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

export interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}

/** A REST operation on any address (a second service or process): GET when `method` says so, POST otherwise. */
export async function restAt(base: string, operation: string, token: string | null, body: unknown = {}, method: 'get' | 'post' = operation === 'me' ? 'get' : 'post'): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const res = await fetch(`${base}/api/mcp/v1/${operation}`, { method: method.toUpperCase(), headers, ...(method === 'get' ? {} : { body: JSON.stringify(body) }) });
  return answer(res);
}

let rpcId = 0;

/** One JSON-RPC message posted to an MCP address, as a stateless Streamable HTTP client does. */
export async function mcpPost(url: string, token: string | null, method: string, params?: unknown, notification = false): Promise<Answer> {
  const message = { jsonrpc: '2.0', method, ...(params !== undefined ? { params } : {}), ...(notification ? {} : { id: ++rpcId }) };
  const headers: Record<string, string> = { ...MCP_HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}) };
  return answer(await fetch(url, { method: 'POST', headers, body: JSON.stringify(message) }));
}

/** `tools/call` of one tool on an MCP address. */
export function toolCall(url: string, token: string | null, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
  return mcpPost(url, token, 'tools/call', { name, arguments: args });
}

export interface QuotaAccount {
  account: TestAccount;
  token: string;
  organisation: string;
}

let orgCounter = 0;

/** An account alone in a fresh organisation (free unless told), optionally with negotiated limits, and its token. */
export async function accountInOwnOrganisation(svc: TestService, options: { plan?: Plan; limits?: PlanChanges; scope?: string } = {}): Promise<QuotaAccount> {
  orgCounter += 1;
  const organisation = `Org quota ${orgCounter} ${randomBytes(3).toString('hex')}`;
  const account = await svc.createAccount({ organisation, plan: options.plan ?? 'free' });
  if (options.limits) await setOrganisationPlan(svc.db, organisation, options.limits);
  const token = await svc.tokenFor(account, options.scope ?? 'mcp:read mcp:write');
  return { account, token, organisation };
}

/** Rows of the call log, for one account or all. */
export async function callLogCount(db: Database, accountId?: string): Promise<number> {
  const query = db('call_log');
  if (accountId) query.where('account_id', accountId);
  const row = await query.count<{ n: number | string }[]>('* as n');
  return Number(row[0]?.n ?? 0);
}

/** Every table (but `except`) and every row of the database, in a stable order: equal snapshots mean nothing was written. */
export async function snapshot(db: Database, except: string[] = []): Promise<Record<string, string[]>> {
  const tables =
    kindOf(db) === 'sqlite'
      ? ((await db.raw("select name from sqlite_master where type = 'table' order by name")) as { name: string }[]).map((r) => r.name)
      : ((await db.raw("select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE' order by 1")).rows as { name: string }[]).map((r) => r.name);
  const out: Record<string, string[]> = {};
  for (const table of tables.filter((t) => !except.includes(t))) out[table] = ((await db(table).select('*')) as unknown[]).map((row) => JSON.stringify(row)).sort();
  return out;
}

/** The Paris calendar date (YYYY-MM-DD) and UTC offset (+01:00 or +02:00) of an instant, read from Intl independently of the service's code. */
export function parisDateAndOffset(at: Date): { date: string; offset: string } {
  const f = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Paris', year: 'numeric', month: '2-digit', day: '2-digit', timeZoneName: 'shortOffset' });
  const parts = Object.fromEntries(f.formatToParts(at).map((p) => [p.type, p.value]));
  const hours = /GMT\+(\d+)/.exec(parts.timeZoneName ?? '')?.[1];
  return { date: `${parts.year}-${parts.month}-${parts.day}`, offset: `+${String(hours).padStart(2, '0')}:00` };
}

/** The calendar date following `date` (YYYY-MM-DD). */
export function nextDate(date: string): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** The verdicts of a burst: each answer is admitted, refused by a quota, or something else (a failure of the test). */
export function tally(answers: Answer[]): { admitted: number; refused: number; other: string[] } {
  const out = { admitted: 0, refused: 0, other: [] as string[] };
  for (const a of answers) {
    const isRest = a.json && typeof a.json === 'object' && !('jsonrpc' in a.json);
    if (isRest && a.status === 200) out.admitted += 1;
    else if (isRest && a.status === 429 && a.json.error?.code === 'quota_exceeded') out.refused += 1;
    else if (!isRest && a.status === 200 && a.json.result && !a.json.result.isError) out.admitted += 1;
    else if (!isRest && a.status === 200 && a.json.error?.code === -32004 && a.headers.get('retry-after')) out.refused += 1;
    else out.other.push(`${a.status} ${JSON.stringify(a.json).slice(0, 200)}`);
  }
  return out;
}

export function expectExactly(answers: Answer[], admitted: number): void {
  const t = tally(answers);
  expect(t.other, 'réponses ni admises ni refusées par quota').to.deep.equal([]);
  expect(t.admitted, 'appels admis').to.equal(admitted);
  expect(t.refused, 'appels refusés').to.equal(answers.length - admitted);
}

export const burst = (make: (i: number) => Promise<Answer>, n = 50) => Promise.all(Array.from({ length: n }, (_, i) => make(i)));
