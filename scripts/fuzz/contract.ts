// What the fuzzer knows of the service, read from the generated contract only: each REST
// operation of generated/openapi.json with its request schema ($refs resolved), and the
// MCP tool that runs it (generated/tools.json), so the fuzzer follows the contract as it changes.
import { readFileSync } from 'node:fs';

/** The part of JSON Schema the generator reads; anything else passes through untouched. */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  maxProperties?: number;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  enum?: unknown[];
  const?: unknown;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  [keyword: string]: unknown;
}

export interface FuzzTool {
  name: string;
  /** The MCP addresses serving the tool. */
  paths: string[];
  /** For a tool choosing its operation by an argument: that argument and the value naming this operation. */
  dispatch: { argument: string; value: string; operations: Record<string, string> } | null;
}

export interface FuzzOperation {
  name: string;
  method: 'get' | 'post';
  effect: 'read' | 'write';
  schema: JsonSchema;
  tool: FuzzTool;
}

export interface FuzzContract {
  version: string;
  operations: FuzzOperation[];
  /** The REST error body (components.schemas.ErrorBody). */
  errorBody: JsonSchema;
  /** Every tool and operation name, for the arguments that name one (aide.outil). */
  names: string[];
}

interface ToolsFile {
  profiles: { name: string; path: string }[];
  tools: { name: string; status: string; operations: string[]; profiles: string[]; dispatch: { argument: string; operations: Record<string, string> } | null }[];
}

const generated = new URL('../../generated/', import.meta.url);
const readJson = (name: string): unknown => JSON.parse(readFileSync(new URL(name, generated), 'utf8'));

/** `node` with every local `$ref` replaced by what it points to (siblings such as `description` kept). */
export function resolveRefs(node: unknown, root: unknown, depth = 0): unknown {
  if (depth > 50) throw new Error('$ref chain too deep (recursive schema?)');
  if (Array.isArray(node)) return node.map((n) => resolveRefs(n, root, depth + 1));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (typeof $ref === 'string') {
    if (!$ref.startsWith('#/')) throw new Error(`non-local $ref ${$ref}`);
    let target: unknown = root;
    for (const part of $ref.slice(2).split('/')) target = (target as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (target === undefined) throw new Error(`dangling $ref ${$ref}`);
    Object.assign(out, resolveRefs(target, root, depth + 1));
  }
  for (const [key, value] of Object.entries(rest)) out[key] = resolveRefs(value, root, depth + 1);
  return out;
}

export function loadFuzzContract(): FuzzContract {
  const openapi = readJson('openapi.json') as { info: Record<string, unknown>; paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, unknown> } };
  const tools = readJson('tools.json') as ToolsFile;
  const profilePath = new Map(tools.profiles.map((p) => [p.name, p.path]));
  const active = tools.tools.filter((t) => t.status === 'active');
  const operations: FuzzOperation[] = [];
  for (const item of Object.values(openapi.paths)) {
    for (const [method, raw] of Object.entries(item)) {
      if (method !== 'get' && method !== 'post') continue;
      const op = resolveRefs(raw, openapi) as Record<string, unknown>;
      const name = op.operationId as string;
      const body = op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined;
      // A GET operation (me) takes no body: its tool's arguments are an empty object.
      const schema: JsonSchema = body?.content?.['application/json']?.schema ?? { type: 'object', additionalProperties: false, maxProperties: 0 };
      const tool = active.find((t) => t.operations.includes(name));
      if (!tool) throw new Error(`no active tool runs ${name}`);
      const dispatch = tool.dispatch ? { argument: tool.dispatch.argument, value: Object.entries(tool.dispatch.operations).find(([, o]) => o === name)?.[0] as string, operations: tool.dispatch.operations } : null;
      operations.push({
        name,
        method,
        effect: op['x-effect'] === 'write' ? 'write' : 'read',
        schema,
        tool: { name: tool.name, paths: tool.profiles.map((p) => profilePath.get(p) as string), dispatch },
      });
    }
  }
  operations.sort((a, b) => a.name.localeCompare(b.name));
  const errorBody = resolveRefs(openapi.components.schemas.ErrorBody, openapi) as JsonSchema;
  const names = [...tools.tools.map((t) => t.name), ...operations.map((o) => o.name)];
  return { version: String(openapi.info['x-api-contract-version']), operations, errorBody, names };
}
