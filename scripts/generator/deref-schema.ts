// Transform: a schema with local `$ref`s into a self-contained one (MCP tool schemas and
// the runtime validators must stand alone).
import type { JsonSchema } from '../../src/contract/types.js';

export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`référence non locale : ${ref}`);
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) throw new Error(`référence introuvable : ${ref}`);
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function derefSchema(schema: unknown, doc: unknown, seen: string[] = []): JsonSchema {
  return deref(schema, doc, seen) as JsonSchema;
}

function deref(node: unknown, doc: unknown, seen: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => deref(n, doc, seen));
  if (node === null || typeof node !== 'object') return node;
  const obj = node as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (seen.includes(ref)) throw new Error(`référence circulaire : ${ref}`);
    const target = deref(resolvePointer(doc, ref), doc, [...seen, ref]) as Record<string, unknown>;
    const { $ref: _ignored, ...siblings } = obj;
    return { ...target, ...(deref(siblings, doc, seen) as Record<string, unknown>) };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = deref(v, doc, seen);
  return out;
}
