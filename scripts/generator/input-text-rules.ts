// Transform: the rules every text an operation accepts keeps, written into its request
// schema so that readers and generated clients see them: no NUL character (U+0000) and no
// unpaired UTF-16 surrogate (src/contract/text-rules.ts), and on a search text marked
// `x-query-syntax: true` the query syntax's limits as a pattern (queryPattern). Strings
// bounded by an enum, a const or a format (uuid, date) need nothing; a pattern made of
// explicit characters only already excludes both; a pattern that admits any character gets
// the rule as a lookahead after its `^`.
import { TEXT_LOOKAHEAD, TEXT_PATTERN } from '../../src/contract/text-rules.js';
import type { JsonSchema } from '../../src/contract/types.js';
import { queryPattern } from '../../src/platform/search/query-syntax.js';
import { resolvePointer } from './deref-schema.js';

/** Whether a pattern may match a character it does not name: a negated class, `.`, or \S \W \D \P. */
export function admitsAnyCharacter(pattern: string): boolean {
  return /\[\^|(?<!\\)\.|\\[SWDP]/.test(pattern);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function withTextRule(schema: Record<string, unknown>, where: string): void {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema['x-query-syntax'] === true) {
    if (schema.pattern !== undefined) throw new Error(`${where} : x-query-syntax donne le motif, ne pas en écrire un`);
    schema.pattern = queryPattern();
  }
  if (!types.includes('string') || schema.enum !== undefined || schema.const !== undefined || schema.format !== undefined) return;
  const pattern = schema.pattern;
  if (pattern === undefined) schema.pattern = TEXT_PATTERN;
  else if (typeof pattern === 'string' && pattern !== TEXT_PATTERN && admitsAnyCharacter(pattern) && !pattern.includes(TEXT_LOOKAHEAD)) {
    if (!pattern.startsWith('^')) throw new Error(`${where} : un motif qui admet tout caractère commence par ^ (la règle des textes s'y ajoute)`);
    schema.pattern = `^${TEXT_LOOKAHEAD}${pattern.slice(1)}`;
  }
}

const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf'];
const SUBSCHEMAS = ['items', 'additionalProperties', 'then', 'else', 'contains'];

/**
 * Applies the rules in place to `schema` and to the components it references (each once,
 * `seen`): the joined document is what every output is made from.
 */
export function applyInputTextRules(schema: unknown, doc: unknown, where: string, seen = new Set<string>()): void {
  if (!isRecord(schema)) return;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return;
    seen.add(schema.$ref);
    applyInputTextRules(resolvePointer(doc, schema.$ref), doc, where, seen);
    return;
  }
  withTextRule(schema, where);
  for (const sub of Object.values(isRecord(schema.properties) ? schema.properties : {})) applyInputTextRules(sub, doc, where, seen);
  for (const key of SUBSCHEMAS) applyInputTextRules(schema[key], doc, where, seen);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) for (const sub of schema[key] as unknown[]) applyInputTextRules(sub, doc, where, seen);
  // A request body's media types.
  if (isRecord(schema.content)) for (const media of Object.values(schema.content)) if (isRecord(media)) applyInputTextRules(media.schema, doc, where, seen);
}

/** The document's request bodies with the rules applied (in place; returned for chaining). */
export function withInputTextRules<T extends { requestBody?: JsonSchema; operationId: string }>(ops: readonly T[], doc: unknown): void {
  const seen = new Set<string>();
  for (const op of ops) applyInputTextRules(op.requestBody, doc, `opération ${op.operationId}`, seen);
}
