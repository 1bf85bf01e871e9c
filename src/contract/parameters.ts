// Turns an input JSON Schema into a French list of parameters, for the help tools and
// llms-full.txt alike, so both describe a tool the same way.
import { NOT_BLANK_PATTERN, TEXT_LOOKAHEAD, TEXT_PATTERN } from './text-rules.js';
import type { JsonSchema } from './types.js';

/**
 * A pattern as a reader wants it: the text rule every text keeps is said once in the
 * contract, not on each parameter; the query syntax and « not only spaces » in words.
 */
export function patternConstraint(pattern: string, schema: JsonSchema): string | null {
  if (schema['x-query-syntax'] === true) return 'syntaxe de recherche (mots, "expressions", alternatives séparées par des virgules)';
  if (pattern === TEXT_PATTERN) return null;
  const own = pattern.replace(TEXT_LOOKAHEAD, '');
  if (own === NOT_BLANK_PATTERN) return 'pas seulement des espaces';
  return `motif : ${own}`;
}

export interface ParameterDescription {
  nom: string;
  type: string;
  requis: boolean;
  description: string | null;
  contraintes: string[];
}

function typeLabel(schema: JsonSchema): string {
  const type = schema.type;
  if (Array.isArray(type)) return type.map(String).join(' ou ');
  if (type === 'array') {
    const items = (schema.items ?? {}) as JsonSchema;
    return `array<${typeLabel(items)}>`;
  }
  if (typeof type === 'string') return type;
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))].join(' ou ');
  return 'any';
}

function constraints(schema: JsonSchema): string[] {
  const out: string[] = [];
  const items = schema.type === 'array' ? ((schema.items ?? {}) as JsonSchema) : null;
  const values = (schema.enum ?? items?.enum) as unknown[] | undefined;
  if (values) out.push(`valeurs : ${values.map((v) => String(v)).join(', ')}`);
  if (typeof schema.minLength === 'number') out.push(`${schema.minLength} caractère(s) au moins`);
  if (typeof schema.maxLength === 'number') out.push(`${schema.maxLength} caractères au plus`);
  if (typeof schema.minimum === 'number') out.push(`minimum ${schema.minimum}`);
  if (typeof schema.maximum === 'number') out.push(`maximum ${schema.maximum}`);
  if (typeof schema.minItems === 'number') out.push(`${schema.minItems} élément(s) au moins`);
  if (typeof schema.maxItems === 'number') out.push(`${schema.maxItems} éléments au plus`);
  const pattern = schema.pattern ?? items?.pattern;
  const said = typeof pattern === 'string' ? patternConstraint(pattern, schema.pattern !== undefined ? schema : (items ?? {})) : null;
  if (said) out.push(said);
  if (schema.format) out.push(`format : ${String(schema.format)}`);
  if (schema.default !== undefined) out.push(`défaut : ${JSON.stringify(schema.default)}`);
  return out;
}

/** Flattens the properties of an object schema (nested objects with dotted names). */
export function describeParameters(schema: JsonSchema | null, prefix = '', parent: { name: string; required: boolean } | null = null): ParameterDescription[] {
  if (!schema || typeof schema.properties !== 'object' || schema.properties === null) return [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const out: ParameterDescription[] = [];
  for (const [name, raw] of Object.entries(schema.properties as Record<string, JsonSchema>)) {
    const nom = prefix + name;
    // Required inside an optional object means: required when that object is given.
    const requiredHere = required.has(name);
    const requis = requiredHere && (parent === null || parent.required);
    const contraintes = constraints(raw);
    if (requiredHere && !requis && parent) contraintes.unshift(`obligatoire quand « ${parent.name} » est donné`);
    out.push({ nom, type: typeLabel(raw), requis, description: typeof raw.description === 'string' ? raw.description : null, contraintes });
    if (raw.type === 'object') out.push(...describeParameters(raw, `${nom}.`, { name: nom, required: requis }));
  }
  return out;
}
