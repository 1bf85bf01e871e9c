// The import formats written in the contract (components/schemas/<Name>Line of
// generated/openapi.json), their `#/components/schemas/…` references inlined, for the
// importers that validate each record against its format.
import { readFileSync } from 'node:fs';

type Schemas = Record<string, unknown>;
let schemas: Schemas | null = null;

function inline(node: unknown, all: Schemas, depth = 0): unknown {
  if (depth > 20) throw new Error('Référence de schéma trop profonde.');
  if (Array.isArray(node)) return node.map((n) => inline(n, all, depth));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/([A-Za-z0-9_]+)$/.exec(ref)?.[1];
    if (!name || !(name in all)) throw new Error(`Référence de schéma inconnue : ${ref}`);
    return inline(all[name], all, depth + 1);
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v, all, depth)]));
}

/** The JSON Schema of an import format of the contract (`DeliberationLine`, …), self-contained. */
export function importFormat(name: string): object {
  schemas ??= (JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as { components: { schemas: Schemas } }).components.schemas;
  if (!(name in schemas)) throw new Error(`Format d'import inconnu : ${name}`);
  return inline(schemas[name], schemas) as object;
}
