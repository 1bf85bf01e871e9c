// MCP transport on the three addresses: stateless Streamable HTTP with the SDK's
// low-level Server, a new server and transport per request. It checks the JSON-RPC
// envelope first (the SDK would accept a batch), then lets the SDK answer; tools/call
// ends in the same call path as REST.
import type { Context, Middleware } from 'koa';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallPath } from '../call-path.js';
import { toolVisible } from '../access/rules.js';
import { bearerChallenge, type BearerAuthenticator } from '../auth/bearer.js';
import type { Caller } from '../access/caller.js';
import type { Contract } from '../contract/runtime.js';
import type { ProfileName, ToolEntry } from '../contract/types.js';
import { API_CONTRACT_VERSION, InvalidArgumentsError, MethodNotAllowedError, asServiceError, type ServiceError } from '../errors.js';
import { readJsonBody, type BodyLimits } from '../platform/read-body.js';
import type { Logger } from '../log.js';
import { listCardResources, readCardResource, toolCardMeta } from './card.js';
import { checkEnvelope } from './envelope.js';
import { readableText } from './readable-text.js';

export const MCP_ADDRESSES: Record<string, ProfileName> = {
  '/api/mcp': 'full',
  '/api/mcp/connectors': 'connectors',
  '/api/mcp/assistant': 'assistant',
};

const INSTRUCTIONS =
  "Données des marchés publics et du bâtiment. Les coordonnées (téléphone, courriel, site web) des fiches publiques ne sont jamais renvoyées. Un message d'erreur n'est pas une donnée. Ne jamais boucler sur un appel refusé. Le catalogue et la fiche de chaque outil sont donnés par aide_outils et aide_outil.";

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

/** A JSON-RPC error answered by us before the SDK (envelope, body or transport errors). */
function renderRpcError(ctx: Context, status: number, code: number, message: string, id: unknown = null, data?: unknown): void {
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
    annotations: { title: tool.title, readOnlyHint: tool.effect === 'read', destructiveHint: false, openWorldHint: false },
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

/**
 * The SDK answers every JSON-RPC error with HTTP 200; a scope refusal must be HTTP 403 with
 * its challenge. The tools/call handler leaves the status here and writeHead applies it.
 */
function allowStatusOverride(ctx: Context): void {
  const res = ctx.res;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    const override = ctx.state.httpOverride as { status: number; headers: Record<string, string> } | undefined;
    if (!override) return writeHead(status, ...rest);
    for (const [name, value] of Object.entries(override.headers)) res.setHeader(name, value);
    return writeHead(override.status, ...rest);
  }) as typeof res.writeHead;
}

function buildServer(profile: ProfileName, deps: McpDeps, ctx: Context, caller: Caller): Server {
  const { contract, callPath } = deps;
  const server = new Server(
    { name: 'batidata-api', title: contract.profile(profile).title, version: API_CONTRACT_VERSION },
    { capabilities: { tools: { listChanged: false }, resources: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: contract
      .listedTools(profile)
      .filter((t) => toolVisible(t, contract.operations, caller))
      .map((t) => toolDefinition(t, profile)),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = contract.callableTool(profile, request.params.name);
    if (!tool) throw new RpcError(-32601, `Outil inconnu à cette adresse : « ${request.params.name} ».`);
    ctx.state.operation = tool.name;
    try {
      // An unresolvable choice still counts as a call of the tool: refused as its first operation's.
      let resolved: { operation: string; args: Record<string, unknown> } | { operation: string; error: unknown };
      try {
        resolved = contract.resolveToolCall(tool, request.params.arguments ?? {});
      } catch (error) {
        resolved = { operation: tool.operations[0] as string, error };
      }
      const structured = await callPath.call(resolved.operation, caller, () => {
        if ('error' in resolved) throw resolved.error;
        return resolved.args;
      });
      return { content: [{ type: 'text', text: readableText(structured) }], structuredContent: structured };
    } catch (err) {
      const known = asServiceError(err);
      const challenge = bearerChallenge(known, deps.publicUrl);
      if (known.mcp.kind === 'protocol') {
        const headers: Record<string, string> = {};
        if (challenge) headers['WWW-Authenticate'] = challenge;
        if (known.retryAfterSeconds !== null) headers['Retry-After'] = String(known.retryAfterSeconds);
        ctx.state.httpOverride = { status: known.mcp.httpStatus, headers };
      }
      if (known.mcp.kind === 'protocol') throw new RpcError(known.mcp.code, known.message, { retry_after_seconds: known.retryAfterSeconds });
      return toolError(known, profile);
    }
  });
  // The results card: listed and readable on the card addresses only (empty on /api/mcp).
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listCardResources(profile, contract.listedTools(profile)) }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const card = readCardResource(profile, contract.listedTools(profile), request.params.uri);
    if (!card) throw new RpcError(-32602, `Ressource inconnue : « ${request.params.uri} ».`);
    return card;
  });
  return server;
}

export function createMcpRouter(deps: McpDeps): Middleware {
  return async (ctx, next) => {
    const profile = MCP_ADDRESSES[ctx.path];
    if (!profile) return next();
    ctx.state.address = profile;
    if (ctx.method !== 'POST') {
      const err = new MethodNotAllowedError(`Méthode ${ctx.method} non autorisée : le connecteur MCP s'appelle en POST (HTTP sans état).`);
      return renderRpcError(ctx, 405, err.mcp.kind === 'protocol' ? err.mcp.code : -32000, err.message);
    }
    const accept = String(ctx.get('accept'));
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      return renderRpcError(ctx, 406, -32600, 'En-tête Accept invalide : le client doit accepter application/json et text/event-stream (MCP Streamable HTTP).');
    }
    let caller: Caller;
    let body: unknown;
    try {
      caller = await deps.authenticator.authenticate(ctx.get('authorization') || undefined, profile);
      ctx.state.caller = caller;
      body = await readJsonBody(ctx.req, deps.limits);
    } catch (err) {
      const known = asServiceError(err);
      const rendering = known.mcp.kind === 'protocol' ? known.mcp : { code: -32600, httpStatus: 400 };
      const challenge = bearerChallenge(known, deps.publicUrl);
      if (challenge) ctx.set('WWW-Authenticate', challenge);
      if (known.retryAfterSeconds !== null) ctx.set('Retry-After', String(known.retryAfterSeconds));
      return renderRpcError(ctx, rendering.httpStatus === 200 ? 503 : rendering.httpStatus, rendering.code, known.message);
    }
    const verdict = checkEnvelope(body, profile, deps.contract);
    if (verdict.kind === 'refuse') return renderRpcError(ctx, verdict.status, verdict.code, verdict.message, verdict.id);
    if (verdict.kind === 'tool-arguments') {
      // The SDK would refuse these arguments itself: run the call path here, so the call
      // is counted and refused like any argument error, as a tool error.
      const tool = deps.contract.callableTool(profile, verdict.tool) as ToolEntry;
      ctx.state.operation = tool.name;
      let result: CallToolResult;
      try {
        await deps.callPath.call(tool.operations[0] as string, caller, () => {
          throw new InvalidArgumentsError('Les arguments de l’outil doivent former un objet JSON.');
        });
        throw new Error('arguments non objet acceptés');
      } catch (err) {
        const known = asServiceError(err);
        if (known.mcp.kind === 'protocol') {
          if (known.retryAfterSeconds !== null) ctx.set('Retry-After', String(known.retryAfterSeconds));
          return renderRpcError(ctx, known.mcp.httpStatus, known.mcp.code, known.message, verdict.id, { retry_after_seconds: known.retryAfterSeconds });
        }
        result = toolError(known, profile);
      }
      ctx.status = 200;
      ctx.body = { jsonrpc: '2.0', id: verdict.id, result };
      return;
    }
    ctx.state.rpcMethod = verdict.method;
    const message = body as { id?: unknown };

    allowStatusOverride(ctx);
    const server = buildServer(profile, deps, ctx, caller);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(ctx.req, ctx.res, body);
    } catch (err) {
      deps.logger.error({ err: (err as Error).message, address: ctx.path }, 'échec du transport MCP');
      if (!ctx.res.headersSent) {
        ctx.res.writeHead(500, { 'content-type': 'application/json' });
        ctx.res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id ?? null, error: { code: -32603, message: 'Erreur interne du service.' } }));
      }
    }
  };
}
