// Checks a JSON-RPC message before the SDK sees it, so every refusal is the spec's code
// with a French message (the SDK would accept batches and answer its own English errors).
// A tools/call is resolved to its tool here, once: the rest of the request uses that entry,
// and the arguments as read here (the SDK's copy loses a `__proto__` key, which must reach
// validation as on REST).
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { Contract } from '../contract/runtime.js';
import { echoed } from '../contract/text-rules.js';
import type { ProfileName, ToolEntry } from '../contract/types.js';
import { MODERN_METHODS, modernRequestProblem } from './revision-2026.js';

export type EnvelopeVerdict =
  | { kind: 'pass'; id: unknown; method: string }
  /** A tools/call of a tool this address serves, for the SDK to answer; `arguments` as in the body. */
  | { kind: 'tool-call'; id: unknown; method: 'tools/call'; tool: ToolEntry; arguments: Record<string, unknown> | undefined }
  /** A tools/call whose arguments are not an object: answered as a tool error, not by the SDK. */
  | { kind: 'tool-arguments'; id: unknown; tool: ToolEntry; arguments: unknown }
  | { kind: 'refuse'; status: number; code: number; message: string; id: unknown; data?: unknown };

/** Methods this server answers; anything else is -32601 (notifications pass to the SDK). */
const METHODS = new Set(['initialize', 'ping', 'tools/list', 'tools/call', 'resources/list', 'resources/templates/list', 'resources/read']);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function paramsProblem(method: string, params: Record<string, unknown>): { code: number; message: string } | null {
  const cursor = params.cursor;
  switch (method) {
    case 'initialize':
      if (typeof params.protocolVersion !== 'string') return { code: -32600, message: 'Requête invalide : « params.protocolVersion » manque.' };
      if (!isObject(params.capabilities)) return { code: -32600, message: 'Requête invalide : « params.capabilities » doit être un objet.' };
      if (!isObject(params.clientInfo) || typeof params.clientInfo.name !== 'string' || typeof params.clientInfo.version !== 'string')
        return { code: -32600, message: 'Requête invalide : « params.clientInfo » doit porter « name » et « version ».' };
      return null;
    case 'tools/list':
    case 'resources/list':
    case 'resources/templates/list':
      return cursor === undefined || typeof cursor === 'string' ? null : { code: -32600, message: 'Requête invalide : « params.cursor » doit être une chaîne.' };
    case 'resources/read':
      return typeof params.uri === 'string' && params.uri ? null : { code: -32602, message: 'Ressource absente : « params.uri » manque.' };
    case 'tools/call':
      return typeof params.name === 'string' ? null : { code: -32600, message: 'Requête invalide : « params.name » (le nom de l’outil) manque.' };
    default:
      return null;
  }
}

/**
 * The MCP-Protocol-Version header, checked as the SDK's transport would (on every message
 * but initialize, when present), with its code and status but a French message.
 */
export function protocolVersionProblem(header: string | undefined, method: string): { status: number; code: number; message: string } | null {
  if (!header || method === 'initialize' || SUPPORTED_PROTOCOL_VERSIONS.includes(header)) return null;
  return {
    status: 400,
    code: -32000,
    message: `Version du protocole MCP non prise en charge : « ${echoed(header)} » (en-tête MCP-Protocol-Version). Versions acceptées : ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
  };
}

/**
 * `modern` (a 2026-07-28 request, see revision-2026.ts) adds that revision's checks of
 * `_meta` and headers before the method is looked up, and its method table: no
 * initialize or ping, server/discover, an unknown method answered 404.
 */
export function checkEnvelope(body: unknown, profile: ProfileName, contract: Contract, modern?: { header: (name: string) => string | undefined }): EnvelopeVerdict {
  if (Array.isArray(body))
    return { kind: 'refuse', status: 400, code: -32600, message: 'Requête invalide : les lots JSON-RPC (batch) ne sont pas acceptés ; envoyer un message à la fois.', id: null };
  if (!isObject(body)) return { kind: 'refuse', status: 400, code: -32600, message: 'Requête invalide : le corps doit être un objet JSON-RPC.', id: null };
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  const refuse = (code: number, message: string) => ({ kind: 'refuse' as const, status: 400, code, message, id });
  if (body.jsonrpc !== '2.0') return refuse(-32600, 'Requête invalide : « jsonrpc » doit valoir "2.0".');
  if (typeof body.method !== 'string' || !body.method) return refuse(-32600, 'Requête invalide : « method » manque.');
  if ('id' in body && id === null) return refuse(-32600, 'Requête invalide : « id » doit être une chaîne ou un nombre.');
  if (body.params !== undefined && !isObject(body.params)) return refuse(-32600, 'Requête invalide : « params » doit être un objet.');
  const method = body.method;
  if (method.startsWith('notifications/')) return { kind: 'pass', id, method };
  if (!('id' in body)) return refuse(-32600, 'Requête invalide : « id » manque.');
  const params = (body.params ?? {}) as Record<string, unknown>;
  if (modern) {
    const problem = modernRequestProblem(method, params, modern.header);
    if (problem) return { kind: 'refuse', ...problem, id };
  }
  if (!(modern ? MODERN_METHODS : METHODS).has(method)) return { kind: 'refuse', status: modern ? 404 : 200, code: -32601, message: `Méthode inconnue : « ${echoed(method)} ».`, id };
  const problem = paramsProblem(method, params);
  if (problem) return { kind: 'refuse', status: problem.code === -32602 ? 200 : 400, ...problem, id };
  if (method === 'tools/call') {
    const name = params.name as string;
    const tool = contract.callableTool(profile, name);
    if (!tool) return { kind: 'refuse', status: 200, code: -32601, message: `Outil inconnu à cette adresse : « ${echoed(name)} ».`, id };
    // An argument error is a tool error, never a protocol error.
    if (params.arguments !== undefined && !isObject(params.arguments)) return { kind: 'tool-arguments', id, tool, arguments: params.arguments };
    return { kind: 'tool-call', id, method, tool, arguments: params.arguments as Record<string, unknown> | undefined };
  }
  return { kind: 'pass', id, method };
}
