// MCP transport on the three addresses: stateless Streamable HTTP with the SDK's
// low-level Server, a new server and transport per request. It checks the JSON-RPC
// envelope first (the SDK would accept a batch), then lets the SDK answer through its
// web-standard transport and writes that answer through Koa; tools/call ends in the same
// call path as REST. It translates only: every rule is the call path's.
import type { Context, Middleware } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type ReadResourceResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallPath } from '../call-path.js';
import { toolVisible } from '../access/rules.js';
import { instructionsFor } from './instructions.js';
import { bearerChallenge, type BearerAuthenticator } from '../auth/bearer.js';
import type { Caller } from '../access/caller.js';
import type { Contract } from '../contract/runtime.js';
import { echoed } from '../contract/text-rules.js';
import type { ProfileName, ToolEntry } from '../contract/types.js';
import { API_CONTRACT_VERSION, InvalidArgumentsError, MethodNotAllowedError, asServiceError, type ServiceError } from '../errors.js';
import { noteCall } from '../http/access-log.js';
import { whileReadingBody } from '../http/deadline.js';
import { readJsonBody, type BodyLimits } from '../platform/read-body.js';
import type { Logger } from '../log.js';
import { listCardResources, readCardResource, toolCardMeta } from './card.js';
import { checkEnvelope, protocolVersionProblem, type EnvelopeVerdict } from './envelope.js';
import { CACHE_TTL_MS, META_SERVER_INFO, SUPPORTED_REVISIONS, speaksModernRevision, type CacheScope } from './revision-2026.js';
import { readableText } from './readable-text.js';

export const MCP_ADDRESSES: Record<string, ProfileName> = {
  '/api/mcp': 'full',
  '/api/mcp/connectors': 'connectors',
  '/api/mcp/assistant': 'assistant',
};

/** A JSON-RPC error thrown to the SDK: its message goes out as written (McpError would prefix it). */
class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The HTTP side of a refusal: its status and headers. */
interface HttpSide {
  status: number;
  headers: Record<string, string>;
}

/** The headers a refusal carries: the bearer challenge, the delay before retrying. */
function refusalHeaders(err: ServiceError, publicUrl: string, profile: ProfileName): Record<string, string> {
  const headers: Record<string, string> = {};
  const challenge = bearerChallenge(err, publicUrl, profile);
  if (challenge) headers['WWW-Authenticate'] = challenge;
  if (err.retryAfterSeconds !== null) headers['Retry-After'] = String(err.retryAfterSeconds);
  return headers;
}

/** A JSON-RPC error answered by us, without the SDK (envelope, body or transport errors). */
function renderRpcError(
  ctx: Context,
  error: { status: number; code: number; message: string; id?: unknown; data?: unknown; headers?: Record<string, string> },
): void {
  const { status, code, message, id = null, data } = error;
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  ctx.status = status;
  if (status === 405) ctx.set('Allow', 'POST');
  if (status === 408 || status === 413) ctx.set('Connection', 'close');
  ctx.body = { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } };
}

/** A tool of tools/list; a card tool on a card address also links its results card (see card.ts). */
function toolDefinition(tool: ToolEntry, profile: ProfileName): Tool {
  const meta = toolCardMeta(tool, profile);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
    ...(meta ? { _meta: meta } : {}),
  };
}

function toolError(err: ServiceError, profile: ProfileName): CallToolResult {
  const result: CallToolResult = { content: [{ type: 'text', text: err.message }], isError: true };
  if (profile === 'connectors') {
    result._meta = { 'service/error': { code: err.code, message: err.message, retry_after_seconds: err.retryAfterSeconds } };
  }
  return result;
}

interface McpDeps {
  contract: Contract;
  callPath: CallPath;
  authenticator: BearerAuthenticator;
  limits: BodyLimits;
  logger: Logger;
  publicUrl: string;
}

/** How a tools/call ended: a tool result (errors included), or a JSON-RPC refusal with its HTTP side. */
type ToolCallOutcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'refusal'; code: number; message: string; data: { retry_after_seconds: number | null }; http: HttpSide };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * One tools/call through the call path. Arguments that are not an object, or a choice
 * that cannot be resolved, still count as a call of the tool: refused as its first
 * operation's.
 */
async function callTool(deps: McpDeps, profile: ProfileName, caller: Caller, tool: ToolEntry, args: unknown): Promise<ToolCallOutcome> {
  let resolved: { operation: string; args: Record<string, unknown> } | { operation: string; error: unknown };
  try {
    if (!isObject(args)) throw new InvalidArgumentsError('Les arguments de l’outil doivent former un objet JSON.');
    resolved = deps.contract.resolveToolCall(tool, args);
  } catch (error) {
    resolved = { operation: tool.operations[0] as string, error };
  }
  try {
    const structured = await deps.callPath.call(resolved.operation, caller, () => {
      if ('error' in resolved) throw resolved.error;
      return resolved.args;
    });
    return { kind: 'result', result: { content: [{ type: 'text', text: readableText(structured) }], structuredContent: structured } };
  } catch (err) {
    const known = asServiceError(err);
    if (known.mcp.kind === 'tool') return { kind: 'result', result: toolError(known, profile) };
    return {
      kind: 'refusal',
      code: known.mcp.code,
      message: known.message,
      data: { retry_after_seconds: known.retryAfterSeconds },
      http: { status: known.mcp.httpStatus, headers: refusalHeaders(known, deps.publicUrl, profile) },
    };
  }
}

/** The one tools/call of a request: the tool the envelope resolved, and what its handler hands back. */
interface ToolCall {
  readonly tool: ToolEntry;
  /** As read from the body, not the SDK's parsed copy (see envelope.ts). */
  readonly arguments: Record<string, unknown> | undefined;
  /** The handler ran (the SDK may refuse the request before): the call is logged under the tool. */
  ran: boolean;
  /** The HTTP side of a JSON-RPC refusal, which the SDK would answer with 200 and no header. */
  refusal: HttpSide | null;
}

/** The tools of tools/list at this address, as the caller may see them (both revisions). */
function listedTools(deps: McpDeps, profile: ProfileName, caller: Caller): Tool[] {
  const { contract } = deps;
  return contract
    .listedTools(profile)
    .filter((t) => toolVisible(t, contract.operations, caller))
    .map((t) => toolDefinition(t, profile));
}

/** resources/read of a card; an unknown URI is -32602 with the URI in `data` (both revisions). */
function readResource(deps: McpDeps, profile: ProfileName, uri: string): ReadResourceResult {
  const card = readCardResource(profile, deps.contract.listedTools(profile), uri);
  if (!card) throw new RpcError(-32602, `Ressource inconnue : « ${echoed(uri)} ».`, { uri });
  return card;
}

function serverInfo(deps: McpDeps, profile: ProfileName): { name: string; title: string; version: string } {
  return { name: 'batidata-api', title: deps.contract.profile(profile).title, version: API_CONTRACT_VERSION };
}

const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false } };

/** The server of one request; it answers tools/call only when the envelope found a tool to call. */
function buildServer(profile: ProfileName, deps: McpDeps, caller: Caller, toolCall: ToolCall | null): Server {
  const { contract } = deps;
  const server = new Server(serverInfo(deps, profile), { capabilities: CAPABILITIES, instructions: instructionsFor(contract.listedTools(profile)) });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listedTools(deps, profile, caller) }));
  if (toolCall) {
    // The arguments are the body's, as the envelope read them, not the SDK's copy of them.
    server.setRequestHandler(CallToolRequestSchema, async () => {
      toolCall.ran = true;
      const outcome = await callTool(deps, profile, caller, toolCall.tool, toolCall.arguments ?? {});
      if (outcome.kind === 'result') return outcome.result;
      toolCall.refusal = outcome.http;
      throw new RpcError(outcome.code, outcome.message, outcome.data);
    });
  }
  // The results card: listed and readable on the card addresses only (empty on /api/mcp).
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listCardResources(profile, contract.listedTools(profile)) }));
  // The resources capability is declared, so its template list answers: the cards are fixed URIs, no template.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(deps, profile, request.params.uri));
  return server;
}

/**
 * A 2026-07-28 request, answered without the SDK (its 1.x line predates the revision): the
 * envelope and the revision's checks passed, so this is a known method with valid
 * parameters. Every result says it is complete and names the server; lists and cards
 * carry their cache hints.
 */
async function answerModern(ctx: Context, deps: McpDeps, profile: ProfileName, caller: Caller, verdict: Extract<EnvelopeVerdict, { kind: 'pass' | 'tool-call' | 'tool-arguments' }>, body: unknown): Promise<void> {
  const { contract } = deps;
  const reply = (result: Record<string, unknown>, cache?: CacheScope) => {
    const meta = { ...(result._meta as Record<string, unknown> | undefined), [META_SERVER_INFO]: serverInfo(deps, profile) };
    ctx.status = 200;
    ctx.body = { jsonrpc: '2.0', id: verdict.id, result: { ...result, resultType: 'complete', ...(cache ? { ttlMs: CACHE_TTL_MS, cacheScope: cache } : {}), _meta: meta } };
  };
  if (verdict.kind !== 'pass') {
    noteCall(ctx, { operation: verdict.tool.name });
    const outcome = await callTool(deps, profile, caller, verdict.tool, verdict.arguments ?? {});
    if (outcome.kind === 'refusal') return renderRpcError(ctx, { ...outcome.http, code: outcome.code, message: outcome.message, id: verdict.id, data: outcome.data });
    return reply({ ...outcome.result });
  }
  noteCall(ctx, { rpcMethod: verdict.method });
  if (verdict.method.startsWith('notifications/')) {
    // The revision defines no client notification over HTTP: accepted and dropped, as the transport says.
    ctx.body = null; // before the status: Koa would make a null body 204
    ctx.status = 202;
    return;
  }
  const params = ((body as { params?: Record<string, unknown> }).params ?? {}) as Record<string, unknown>;
  try {
    switch (verdict.method) {
      case 'server/discover':
        return reply({ supportedVersions: SUPPORTED_REVISIONS, capabilities: CAPABILITIES, instructions: instructionsFor(contract.listedTools(profile)) }, 'public');
      case 'tools/list':
        return reply({ tools: listedTools(deps, profile, caller) }, 'private');
      case 'resources/list':
        return reply({ resources: listCardResources(profile, contract.listedTools(profile)) }, 'public');
      case 'resources/templates/list':
        return reply({ resourceTemplates: [] }, 'public');
      case 'resources/read':
        return reply({ ...readResource(deps, profile, params.uri as string) }, 'public');
      default:
        // The envelope passes only the methods above.
        throw new RpcError(-32601, `Méthode inconnue : « ${echoed(verdict.method)} ».`);
    }
  } catch (err) {
    if (!(err instanceof RpcError)) throw err;
    return renderRpcError(ctx, { status: 200, code: err.code, message: err.message, id: verdict.id, data: err.data });
  }
}

/** The request as the SDK's transport reads it (method, URL, headers); its body is handed over already read. */
function sdkRequest(ctx: Context, publicUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined) headers.append(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(ctx.originalUrl, publicUrl), { method: ctx.method, headers });
}

/** The SDK's answer, written through Koa; a refused tools/call gives its own status and adds its headers. */
async function writeAnswer(ctx: Context, answer: Response, refusal: HttpSide | null): Promise<void> {
  answer.headers.forEach((value, name) => ctx.set(name, value));
  for (const [name, value] of Object.entries(refusal?.headers ?? {})) ctx.set(name, value);
  const text = await answer.text();
  // An empty answer (202 to a notification) has no body: Koa would write the status text
  // for an unset body, and make a null one 204 unless the status is set after it.
  ctx.body = text === '' ? null : text;
  ctx.status = refusal?.status ?? answer.status;
}

/**
 * Lets the SDK answer the message on a server and transport of this request. In JSON
 * mode the transport's answer is complete when handleRequest returns, so both are closed
 * right after: nothing outlives the request.
 */
async function answerThroughSdk(
  ctx: Context,
  deps: McpDeps,
  profile: ProfileName,
  caller: Caller,
  verdict: Extract<EnvelopeVerdict, { kind: 'pass' | 'tool-call' }>,
  body: unknown,
): Promise<void> {
  const toolCall: ToolCall | null = verdict.kind === 'tool-call' ? { tool: verdict.tool, arguments: verdict.arguments, ran: false, refusal: null } : null;
  const server = buildServer(profile, deps, caller, toolCall);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const answer = await transport.handleRequest(sdkRequest(ctx, deps.publicUrl), { parsedBody: body });
    await writeAnswer(ctx, answer, toolCall?.refusal ?? null);
  } catch (err) {
    deps.logger.error({ err: (err as Error).message, address: ctx.path }, 'échec du transport MCP');
    ctx.set('Content-Type', 'application/json'); // as the SDK's own answers
    renderRpcError(ctx, { status: 500, code: -32603, message: 'Erreur interne du service.', id: verdict.id });
  } finally {
    if (toolCall?.ran) noteCall(ctx, { operation: toolCall.tool.name });
    await server.close(); // closes the transport too
  }
}

export function createMcpRouter(deps: McpDeps): Middleware {
  return async (ctx, next) => {
    const profile = MCP_ADDRESSES[ctx.path];
    if (!profile) return next();
    noteCall(ctx, { address: profile });
    if (ctx.method !== 'POST') {
      const err = new MethodNotAllowedError(`Méthode ${ctx.method} non autorisée : le connecteur MCP s'appelle en POST (HTTP sans état).`);
      return renderRpcError(ctx, { status: 405, code: err.mcp.kind === 'protocol' ? err.mcp.code : -32000, message: err.message });
    }
    const accept = String(ctx.get('accept'));
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return renderRpcError(ctx, { status: 406, code: -32600, message: 'En-tête Accept invalide : le client doit accepter application/json et text/event-stream (MCP Streamable HTTP).' });
    }
    let caller: Caller;
    let body: unknown;
    try {
      caller = await deps.authenticator.authenticate(ctx.get('authorization') || undefined, profile, { method: ctx.method, path: ctx.path, dpop: ctx.get('dpop') || undefined });
      noteCall(ctx, { accountId: caller.accountId });
      body = await whileReadingBody(ctx, () => readJsonBody(ctx.req, deps.limits));
    } catch (err) {
      const known = asServiceError(err);
      const rendering = known.mcp.kind === 'protocol' ? known.mcp : { code: -32600, httpStatus: 400 };
      const status = rendering.httpStatus === 200 ? 503 : rendering.httpStatus;
      return renderRpcError(ctx, { status, code: rendering.code, message: known.message, headers: refusalHeaders(known, deps.publicUrl, profile) });
    }
    const header = (name: string) => ctx.get(name) || undefined;
    const modern = speaksModernRevision(body, header('mcp-protocol-version'));
    const verdict = checkEnvelope(body, profile, deps.contract, modern ? { header } : undefined);
    if (verdict.kind === 'refuse') return renderRpcError(ctx, verdict);
    if (modern) return answerModern(ctx, deps, profile, caller, verdict, body);
    const method = verdict.kind === 'tool-arguments' ? 'tools/call' : verdict.method;
    const badVersion = protocolVersionProblem(ctx.get('mcp-protocol-version') || undefined, method);
    if (badVersion) {
      noteCall(ctx, { rpcMethod: method });
      return renderRpcError(ctx, { ...badVersion, id: verdict.id });
    }
    if (verdict.kind === 'tool-arguments') {
      // The SDK would refuse these arguments itself: the call path runs here, so the call
      // is counted and refused like any argument error, as a tool error.
      noteCall(ctx, { operation: verdict.tool.name });
      const outcome = await callTool(deps, profile, caller, verdict.tool, verdict.arguments);
      if (outcome.kind === 'refusal') {
        return renderRpcError(ctx, { ...outcome.http, code: outcome.code, message: outcome.message, id: verdict.id, data: outcome.data });
      }
      ctx.status = 200;
      ctx.body = { jsonrpc: '2.0', id: verdict.id, result: outcome.result };
      return;
    }
    noteCall(ctx, { rpcMethod: verdict.method });
    await answerThroughSdk(ctx, deps, profile, caller, verdict, body);
  };
}
