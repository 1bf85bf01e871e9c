// Transform: one OpenAPI operation into the runtime's operation entry (annotations and
// self-contained input and output schemas).
import type { Effect, OperationEntry, Scope } from '../../src/contract/types.js';
import type { OpenApiDocument, OpenApiOperation } from './contract-source.js';
import { derefSchema } from './deref-schema.js';

const EMPTY_OBJECT = { type: 'object', additionalProperties: false, maxProperties: 0 };

export function operationEntry(path: string, method: string, op: OpenApiOperation, doc: OpenApiDocument): OperationEntry {
  const body = op.requestBody ? derefSchema(op.requestBody, doc) : null;
  const content = (body?.content ?? {}) as Record<string, { schema?: unknown }>;
  const input = content['application/json']?.schema;
  const ok = derefSchema(op.responses['200'] ?? {}, doc);
  const okContent = (ok.content ?? {}) as Record<string, { schema?: unknown }>;
  return {
    name: op.operationId,
    method: method as 'get' | 'post',
    path,
    summary: op.summary ?? '',
    description: (op.description ?? '').trim(),
    effect: op['x-effect'] as Effect,
    scope: op['x-scope'] as Scope,
    paidOnly: op['x-paid-only'] === true,
    eligibleAccess: op['x-paid-only'] === true && op['x-eligible-access'] === true,
    mcpTool: op['x-mcp-tool'] ?? '',
    explicitWriteScope: op['x-explicit-write-scope'] === true,
    idempotent: op['x-effect'] !== 'write' || op['x-idempotent'] === true,
    destructive: op['x-effect'] === 'write' && op['x-destructive'] === true,
    openWorld: op['x-open-world'] === true,
    inputSchema: input ? derefSchema(input, doc) : EMPTY_OBJECT,
    outputSchema: derefSchema(okContent['application/json']?.schema ?? {}, doc),
  };
}
