// The rules every answer keeps, whatever the input: no 5xx (nor the MCP rendering of one,
// -32603), the error shapes of the contract, no stack trace, SQL or path, the refusal the
// oracle expects; and REST and MCP answering the same arguments alike.
import type { ValidateFunction } from 'ajv';
import type { FuzzCase } from './generate.js';
import type { Expectation } from './oracle.js';
import type { Answer } from './transport.js';

/** A broken rule: its kind (to group failures) and what was seen. */
export interface Problem {
  kind: string;
  detail: string;
}

/** What leaks look like in an answer: none may appear unless the input itself carried it (an echoed argument). */
const LEAKS: [string, RegExp][] = [
  ['pile d’appels', / {4}at |\bat [^\s()]+ \([^)]*:\d+:\d+\)/],
  ['SQL', /select /i],
  ['SQL', /insert into/i],
  ['SQL', /SQLITE_/],
  ['SQL', /syntax error at/i],
  ['chemin', /\/work\//],
  ['chemin', /\/tmp\//],
  ['chemin', /node_modules/],
];

/** The HTTP statuses each REST error code may carry. */
const CODE_STATUSES: Record<string, number[]> = {
  invalid_arguments: [400], invalid_cursor: [400], invalid_json: [400], invalid_body: [400, 408, 413], unauthenticated: [401],
  insufficient_scope: [403], access_denied: [403], user_required: [403], organization_required: [403], role_denied: [403], origin_denied: [403],
  not_found: [404], method_not_allowed: [405], conflict: [409], unsupported_media_type: [415], quota_exceeded: [429],
  unavailable: [503], quota_unavailable: [503], timeout: [504],
};

/** Ordinary refusals of a schema-valid input: for its meaning, never for its body. */
const MEANING_STATUSES = [400, 404, 409];
const BODY_CODES = ['invalid_json', 'invalid_body', 'unsupported_media_type'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function leaks(answer: Answer, request: string): Problem[] {
  const out: Problem[] = [];
  for (const [what, re] of LEAKS) {
    if (re.test(answer.text) && !re.test(request)) out.push({ kind: 'fuite', detail: `${what} dans la réponse (${re.source})` });
  }
  return out;
}

export interface RestView {
  ok: boolean;
  code: string | null;
  message: string | null;
}

export function restView(answer: Answer): RestView {
  const body = answer.json as { error?: { code?: unknown; message?: unknown } } | undefined;
  const ok = answer.status === 200;
  return { ok, code: ok ? null : typeof body?.error?.code === 'string' ? body.error.code : null, message: ok ? null : typeof body?.error?.message === 'string' ? body.error.message : null };
}

export function checkRest(answer: Answer, expected: Expectation, errorBody: ValidateFunction, request: string): Problem[] {
  if (answer.status === 0) return [{ kind: 'sans réponse', detail: answer.failure ?? 'aucune réponse' }];
  const problems: Problem[] = leaks(answer, request);
  if (answer.status >= 500) problems.push({ kind: '5xx', detail: `statut ${answer.status}` });
  if (answer.json === undefined) return [...problems, { kind: 'forme', detail: `réponse qui n'est pas du JSON (statut ${answer.status})` }];
  const view = restView(answer);
  if (view.ok) {
    if (!isObject(answer.json)) problems.push({ kind: 'forme', detail: 'réponse 200 qui n’est pas un objet JSON' });
    if (expected.kind !== 'any' && expected.kind !== 'ok') problems.push({ kind: 'accepté à tort', detail: `200 alors qu'un refus était attendu (${describe(expected)})` });
    return problems;
  }
  if (!errorBody(answer.json)) problems.push({ kind: 'forme', detail: `corps d'erreur hors du contrat : ${JSON.stringify(errorBody.errors?.slice(0, 2))}` });
  const code = view.code ?? '?';
  if (!CODE_STATUSES[code]?.includes(answer.status)) problems.push({ kind: 'forme', detail: `code ${code} avec le statut ${answer.status}` });
  // A 5xx is reported once, as such: what the input deserved is beside the point.
  if (answer.status >= 500) return problems;
  const refusal = `${answer.status} ${code}`;
  const want = (ok: boolean, what: string) => {
    if (!ok) problems.push({ kind: 'refus inattendu', detail: `${refusal} alors que ${what} était attendu` });
  };
  switch (expected.kind) {
    case 'ok':
      want(false, '200');
      break;
    case 'unsupported-media':
      want(answer.status === 415 && code === 'unsupported_media_type', '415 unsupported_media_type');
      break;
    case 'too-large':
      want(answer.status === 413 && code === 'invalid_body', '413 invalid_body');
      break;
    case 'invalid-json':
      want(answer.status === 400 && code === 'invalid_json', '400 invalid_json');
      break;
    case 'not-object':
      want(answer.status === 400 && code === 'invalid_body', '400 invalid_body');
      break;
    case 'refused':
      want(answer.status === 400 && ['invalid_json', 'invalid_body', 'invalid_arguments'].includes(code), `un refus 400 (${expected.why})`);
      break;
    case 'invalid-arguments':
      want(answer.status === 400 && code === 'invalid_arguments', `400 invalid_arguments (${expected.why})`);
      break;
    case 'any':
      if (answer.status < 500) want(MEANING_STATUSES.includes(answer.status) && !BODY_CODES.includes(code), 'un succès ou un refus pour le sens des arguments (400, 404, 409)');
      break;
  }
  return problems;
}

export interface McpView {
  ok: boolean;
  /** The refusal's text: the tool error's, or the JSON-RPC error's message. */
  message: string | null;
  rpcCode: number | null;
}

export function mcpView(answer: Answer): McpView {
  const body = answer.json as { result?: { isError?: boolean; content?: { text?: unknown }[] }; error?: { code?: unknown; message?: unknown } } | undefined;
  if (body?.result) {
    const text = body.result.content?.[0]?.text;
    return body.result.isError === true ? { ok: false, message: typeof text === 'string' ? text : null, rpcCode: null } : { ok: true, message: null, rpcCode: null };
  }
  return { ok: false, message: typeof body?.error?.message === 'string' ? body.error.message : null, rpcCode: typeof body?.error?.code === 'number' ? body.error.code : null };
}

export function checkMcp(answer: Answer, expected: Expectation, c: FuzzCase, request: string): Problem[] {
  if (answer.status === 0) return [{ kind: 'sans réponse', detail: answer.failure ?? 'aucune réponse' }];
  const problems: Problem[] = leaks(answer, request);
  if (answer.status >= 500) problems.push({ kind: '5xx', detail: `statut HTTP ${answer.status}` });
  const body = answer.json;
  if (!isObject(body) || body.jsonrpc !== '2.0') return [...problems, { kind: 'forme', detail: `pas une réponse JSON-RPC 2.0 (statut ${answer.status})` }];
  const hasResult = 'result' in body;
  const hasError = 'error' in body;
  if (hasResult === hasError) problems.push({ kind: 'forme', detail: 'ni result ni error, ou les deux' });
  if (hasResult && body.id !== c.mcp.id) problems.push({ kind: 'forme', detail: `id ${JSON.stringify(body.id)} au lieu de ${c.mcp.id}` });
  if (hasError && body.id !== null && body.id !== c.mcp.id) problems.push({ kind: 'forme', detail: `id ${JSON.stringify(body.id)} au lieu de ${c.mcp.id}` });
  let isToolError = false;
  if (hasResult) {
    const result = body.result;
    const first = isObject(result) && Array.isArray(result.content) ? result.content[0] : undefined;
    if (!isObject(first) || first.type !== 'text' || typeof first.text !== 'string') problems.push({ kind: 'forme', detail: 'result sans content[0] textuel' });
    if (answer.status !== 200) problems.push({ kind: 'forme', detail: `result avec le statut HTTP ${answer.status}` });
    isToolError = isObject(result) && result.isError === true;
    if (isToolError && !(isObject(first) && typeof first.text === 'string' && first.text)) problems.push({ kind: 'forme', detail: 'erreur d’outil sans texte' });
    if (!isToolError && !(isObject(result) && isObject(result.structuredContent))) problems.push({ kind: 'forme', detail: 'succès sans structuredContent' });
    if (isToolError && c.mcp.path === '/api/mcp/connectors') {
      const meta = isObject(result) && isObject(result._meta) ? result._meta['service/error'] : undefined;
      if (!isObject(meta) || typeof meta.code !== 'string') problems.push({ kind: 'forme', detail: 'erreur d’outil sans _meta « service/error » sur /api/mcp/connectors' });
      else if (expected.kind === 'invalid-arguments' && meta.code !== 'invalid_arguments') problems.push({ kind: 'refus inattendu', detail: `code ${String(meta.code)} au lieu de invalid_arguments` });
    }
  }
  let rpcCode: number | null = null;
  if (hasError) {
    const error = body.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string' || !error.message) problems.push({ kind: 'forme', detail: 'error sans code entier ou sans message' });
    else rpcCode = error.code as number;
    // -32603 is how MCP renders what REST answers 503/504: the same defect as a 5xx.
    if (rpcCode === -32603) problems.push({ kind: '5xx', detail: `erreur interne JSON-RPC -32603 : ${String(isObject(error) ? error.message : '')}` });
  }
  if (rpcCode === -32603) return problems;
  const seen = hasResult ? (isToolError ? 'une erreur d’outil' : 'un succès') : `l'erreur JSON-RPC ${rpcCode} (HTTP ${answer.status})`;
  const want = (ok: boolean, what: string) => {
    if (!ok) problems.push({ kind: hasResult && !isToolError ? 'accepté à tort' : 'refus inattendu', detail: `${seen} alors que ${what} était attendu` });
  };
  switch (expected.kind) {
    case 'ok':
    case 'any':
      want(hasResult, 'un résultat (succès ou erreur d’outil)');
      break;
    case 'unsupported-media':
      want(rpcCode === -32600 && answer.status === 415, '-32600 en HTTP 415');
      break;
    case 'too-large':
      want(rpcCode === -32600 && answer.status === 413, '-32600 en HTTP 413');
      break;
    case 'invalid-json':
      want(rpcCode === -32700 && answer.status === 400, '-32700 en HTTP 400');
      break;
    case 'not-object':
      want(isToolError, 'une erreur d’outil');
      break;
    case 'refused':
      want(isToolError || [-32700, -32600, -32602].includes(rpcCode ?? 0), `un refus (${expected.why})`);
      break;
    case 'invalid-arguments': {
      want(isToolError, `une erreur d’outil (${expected.why})`);
      const text = mcpView(answer).message ?? '';
      if (isToolError && expected.mentions && !text.includes(expected.mentions)) problems.push({ kind: 'refus inattendu', detail: `le message ne nomme pas ${expected.mentions} : ${text}` });
      break;
    }
  }
  return problems;
}

/**
 * Operations whose two answers legitimately differ from one call to the next: counters, a
 * window ending at the call (the alert preview), a link signed to the second (downloads).
 */
const VOLATILE = new Set(['quotas.get', 'me', 'alertes.preview', 'dce.download', 'dossiers.export']);

/** Canonical JSON (keys sorted), to compare two answers. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v));
}

export function checkAgreement(c: FuzzCase, rest: Answer, mcp: Answer): Problem[] {
  if (rest.status === 0 || mcp.status === 0) return [];
  const r = restView(rest);
  const m = mcpView(mcp);
  const restSide = r.ok ? 'succès' : `${rest.status} ${r.code ?? '?'} « ${r.message ?? ''} »`;
  const mcpSide = m.ok ? 'succès' : m.rpcCode !== null ? `JSON-RPC ${m.rpcCode} « ${m.message ?? ''} »` : `erreur d’outil « ${m.message ?? ''} »`;
  if (r.ok !== m.ok) return [{ kind: 'désaccord REST/MCP', detail: `REST : ${restSide} ; MCP : ${mcpSide}` }];
  if (!r.ok && c.sameMessage && r.message !== m.message) return [{ kind: 'désaccord REST/MCP', detail: `messages différents — REST : ${restSide} ; MCP : ${mcpSide}` }];
  if (r.ok && c.operation.effect === 'read' && !VOLATILE.has(c.operation.name)) {
    const structured = (mcp.json as { result?: { structuredContent?: unknown } }).result?.structuredContent;
    if (canonical(rest.json) !== canonical(structured)) return [{ kind: 'désaccord REST/MCP', detail: 'deux succès de contenus différents' }];
  }
  return [];
}

function describe(e: Expectation): string {
  if (e.kind === 'refused' || e.kind === 'invalid-arguments') return `${e.kind} : ${e.why}`;
  return e.kind;
}
