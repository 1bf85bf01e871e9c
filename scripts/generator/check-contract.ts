// Transform: the contract (openapi.yaml joined and filled in, and tools.yaml) into the list
// of its inconsistencies (empty when they agree). It judges the joined document, what
// readers get; the generator refuses to emit anything while this list is not empty.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OperationEntry } from '../../src/contract/types.js';
import { PROFILE_NAMES } from '../../src/contract/types.js';
import { listOperations, type OpenApiDocument, type ToolsDocument } from './contract-source.js';
import { ERROR_RESPONSES } from './error-responses.js';
import { CARD_ADDRESSES } from './tool-entry.js';
import { versionSentence } from './version-sentence.js';

const TOOL_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const OPERATION_NAME = /^[a-z][a-z_]*(\.[a-z][a-z_]*)?$/;

export function checkContract(doc: OpenApiDocument, catalogue: ToolsDocument, operations: Map<string, OperationEntry>): string[] {
  const problems: string[] = [];
  const version = doc.info['x-api-contract-version'];
  if (doc.openapi !== '3.1.0') problems.push(`openapi doit valoir 3.1.0 (trouvé ${doc.openapi})`);
  if (doc.jsonSchemaDialect !== 'https://json-schema.org/draft/2020-12/schema') problems.push('jsonSchemaDialect doit être JSON Schema 2020-12');
  if (typeof version !== 'string') problems.push('info.x-api-contract-version manque');

  const seenOps = new Set<string>();
  for (const { path, method, op } of listOperations(doc)) {
    const where = `opération ${op.operationId ?? path}`;
    if (!op.operationId || !OPERATION_NAME.test(op.operationId)) {
      problems.push(`${where} : operationId absent ou mal formé`);
      continue;
    }
    if (seenOps.has(op.operationId)) problems.push(`${where} : operationId en double`);
    seenOps.add(op.operationId);
    if (path !== `/api/mcp/v1/${op.operationId}`) problems.push(`${where} : le chemin doit être /api/mcp/v1/${op.operationId}`);
    const wanted = op.operationId === 'me' ? 'get' : 'post';
    if (method !== wanted) problems.push(`${where} : méthode ${method}, ${wanted} attendu`);
    if (!['read', 'write'].includes(op['x-effect'] ?? '')) problems.push(`${where} : x-effect doit valoir read ou write`);
    if (!['mcp:read', 'mcp:write'].includes(op['x-scope'] ?? '')) problems.push(`${where} : x-scope doit valoir mcp:read ou mcp:write`);
    if ((op['x-effect'] === 'write') !== (op['x-scope'] === 'mcp:write')) problems.push(`${where} : une écriture exige mcp:write, une lecture mcp:read`);
    if (typeof op['x-paid-only'] !== 'boolean') problems.push(`${where} : x-paid-only doit être un booléen`);
    if (!op['x-mcp-tool']) problems.push(`${where} : x-mcp-tool manque`);
    if (op['x-explicit-write-scope'] !== undefined && (op['x-explicit-write-scope'] !== true || op['x-effect'] !== 'write'))
      problems.push(`${where} : x-explicit-write-scope ne se met (à true) que sur une écriture`);
    if (op['x-effect'] === 'write' && typeof op['x-idempotent'] !== 'boolean') problems.push(`${where} : une écriture déclare x-idempotent (true ou false)`);
    if (op['x-effect'] === 'read' && (op['x-idempotent'] !== undefined || op['x-destructive'] !== undefined))
      problems.push(`${where} : x-idempotent et x-destructive ne se mettent que sur une écriture (une lecture est idempotente et ne détruit rien)`);
    if (op['x-destructive'] !== undefined && op['x-destructive'] !== true) problems.push(`${where} : x-destructive ne se met qu'à true`);
    if (op['x-open-world'] !== undefined && op['x-open-world'] !== true) problems.push(`${where} : x-open-world ne se met qu'à true`);
    if (op['x-eligible-access'] !== undefined && (op['x-eligible-access'] !== true || op['x-paid-only'] !== true))
      problems.push(`${where} : x-eligible-access ne se met (à true) que sur une opération x-paid-only`);
    if (!op.summary) problems.push(`${where} : summary manque`);
    if (typeof version === 'string') {
      const description = (op.description ?? '').trim();
      if (!description.endsWith(versionSentence(version))) problems.push(`${where} : la description doit se terminer par « ${versionSentence(version)} »`);
      // The generator appends the sentence: one more, written in the contract, would be a second.
      else if (description.split('Version du contrat :').length > 2)
        problems.push(`${where} : « Version du contrat » figure deux fois dans la description (le générateur l'ajoute : ne pas l'écrire)`);
    }
    if (!op.responses?.['200']) problems.push(`${where} : réponse 200 manquante`);
    if (method === 'post' && !operations.get(op.operationId)?.inputSchema.properties && !op.requestBody) problems.push(`${where} : corps application/json manquant`);
    for (const [status, component] of Object.entries(ERROR_RESPONSES)) {
      const ref = (op.responses?.[status] as { $ref?: string } | undefined)?.$ref;
      if (ref !== `#/components/responses/${component}`) problems.push(`${where} : la réponse ${status} doit référencer #/components/responses/${component}`);
    }
  }

  const toolNames = new Set<string>();
  const reached = new Set<string>();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormatsModule as unknown as { default: (a: Ajv2020) => void }).default(ajv);
  for (const tool of catalogue.tools) {
    const where = `outil ${tool.name}`;
    if (!TOOL_NAME.test(tool.name ?? '')) problems.push(`${where} : nom mal formé (snake_case attendu)`);
    if (toolNames.has(tool.name)) problems.push(`${where} : nom en double`);
    toolNames.add(tool.name);
    if (!tool.title || !tool.description) problems.push(`${where} : titre ou description manquant`);
    if (!['active', 'alias', 'preparation'].includes(tool.status)) problems.push(`${where} : statut inconnu ${String(tool.status)}`);
    for (const p of tool.profiles ?? []) if (!PROFILE_NAMES.includes(p)) problems.push(`${where} : profil inconnu ${p}`);
    if (Array.isArray(tool.card))
      for (const p of tool.card)
        if (!CARD_ADDRESSES.includes(p) || !(tool.profiles ?? []).includes(p))
          problems.push(`${where} : card nomme ${String(p)}, qui n'est pas une adresse à carte (${CARD_ADDRESSES.join(', ')}) servant l'outil`);
    if (tool.status === 'alias') {
      const target = catalogue.tools.find((t) => t.name === tool.alias_of);
      if (!target || target.status !== 'active') problems.push(`${where} : alias_of doit nommer un outil actif`);
      if (tool.operations?.length) problems.push(`${where} : un nom historique n'a pas d'opérations propres`);
      if (tool.scope !== undefined || tool.profiles !== undefined || tool.recipes !== undefined)
        problems.push(`${where} : un nom historique reprend la portée, les adresses et les recettes de l'outil qu'il remplace`);
      continue;
    }
    if (tool.status === 'preparation') continue;
    if (tool.same_as !== undefined) {
      const twin = catalogue.tools.find((t) => t.name === tool.same_as);
      if (!twin || twin.status !== 'active' || twin.same_as !== undefined || [...(twin.operations ?? [])].sort().join() !== [...(tool.operations ?? [])].sort().join())
        problems.push(`${where} : same_as doit nommer un outil actif aux mêmes opérations`);
    }
    if (!tool.operations?.length) problems.push(`${where} : aucune opération`);
    if (!tool.profiles?.length) problems.push(`${where} : aucun profil`);
    const ops = (tool.operations ?? []).map((name) => {
      const op = operations.get(name);
      if (!op) problems.push(`${where} : opération inconnue ${name}`);
      else if (op.mcpTool !== tool.name && op.mcpTool !== tool.same_as) problems.push(`${where} : l'opération ${name} annonce x-mcp-tool ${op.mcpTool}`);
      reached.add(name);
      return op;
    });
    if (tool.dispatch) {
      const mapped = Object.values(tool.dispatch.operations ?? {});
      if ([...mapped].sort().join() !== [...(tool.operations ?? [])].sort().join())
        problems.push(`${where} : dispatch doit couvrir exactement les opérations de l'outil`);
      for (const op of ops) {
        if (op && Object.hasOwn((op.inputSchema.properties ?? {}) as object, tool.dispatch.argument))
          problems.push(`${where} : l'argument de choix « ${tool.dispatch.argument} » est déjà un argument de ${op.name}`);
      }
    } else if ((tool.operations ?? []).length > 1) {
      problems.push(`${where} : plusieurs opérations exigent un dispatch (argument de choix)`);
    }
    const needsWrite = ops.some((o) => o?.scope === 'mcp:write');
    if (tool.scope !== (needsWrite ? 'mcp:write' : 'mcp:read')) problems.push(`${where} : portée ${String(tool.scope)}, ${needsWrite ? 'mcp:write' : 'mcp:read'} attendue`);
    for (const recipe of tool.recipes ?? []) {
      // A step written with « : » unquoted is a YAML mapping, not a sentence.
      if (!Array.isArray(recipe.steps) || !recipe.steps.every((step: unknown) => typeof step === 'string'))
        problems.push(`${where} : recette « ${String(recipe.title)} » : chaque étape est une phrase (mettre entre guillemets une étape qui contient « : »)`);
      if (recipe.example === undefined) continue;
      // The example of a dispatching tool is checked against the operation it chooses.
      let op = ops[0];
      let args: unknown = recipe.example;
      if (tool.dispatch) {
        const { [tool.dispatch.argument]: choice, ...rest } = recipe.example as Record<string, unknown>;
        op = operations.get(tool.dispatch.operations[String(choice)] ?? '');
        args = rest;
      }
      if (!op) {
        if (tool.dispatch) problems.push(`${where} : l'exemple de la recette « ${recipe.title} » ne choisit aucune opération`);
        continue;
      }
      const validate = ajv.compile(op.inputSchema);
      if (!validate(args)) problems.push(`${where} : l'exemple de la recette « ${recipe.title} » ne respecte pas le schéma d'entrée`);
    }
  }
  for (const name of operations.keys()) {
    if (!reached.has(name)) problems.push(`opération ${name} : aucun outil actif ne l'atteint`);
  }
  problems.push(...boundProblems(doc, operations));
  return problems;
}

/**
 * Formats that fix a string's length, so they bound it as maxLength would: a UUID (36
 * characters, 45 with its optional `urn:uuid:`) and a date (10). Not date-time, whose
 * fraction of a second may be as long as one likes.
 */
const BOUNDED_FORMATS = new Set(['uuid', 'date']);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function types(schema: Record<string, unknown>): string[] {
  return Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : [];
}

/** A `$ref` is judged where its target is written; `visit` gets every other schema with its path (`a.b[].c`). */
function walkSchema(schema: unknown, path: string, visit: (schema: Record<string, unknown>, path: string) => void): void {
  if (!isRecord(schema) || typeof schema.$ref === 'string') return;
  visit(schema, path);
  const join = (name: string) => (path ? `${path}.${name}` : name);
  for (const [name, sub] of Object.entries(isRecord(schema.properties) ? schema.properties : {})) walkSchema(sub, join(name), visit);
  if (isRecord(schema.additionalProperties)) walkSchema(schema.additionalProperties, join('*'), visit);
  if (isRecord(schema.items)) walkSchema(schema.items, `${path}[]`, visit);
  if (Array.isArray(schema.prefixItems)) schema.prefixItems.forEach((sub, i) => walkSchema(sub, `${path}[${i}]`, visit));
  for (const key of ['oneOf', 'anyOf', 'allOf']) if (Array.isArray(schema[key])) for (const sub of schema[key] as unknown[]) walkSchema(sub, path, visit);
}

/** Every schema the document writes, once, named by where it is written (`components`, then each operation's body and 200). */
function writtenSchemas(doc: OpenApiDocument): { site: string; schema: unknown }[] {
  const out: { site: string; schema: unknown }[] = [];
  const contentSchemas = (holder: unknown) => Object.values(isRecord(holder) && isRecord(holder.content) ? holder.content : {}).map((media) => (isRecord(media) ? media.schema : undefined));
  const components = doc.components ?? {};
  for (const [name, schema] of Object.entries(components.schemas ?? {})) out.push({ site: `schéma ${name}`, schema });
  for (const [name, header] of Object.entries(components.headers ?? {})) out.push({ site: `en-tête ${name}`, schema: header.schema });
  for (const [name, body] of Object.entries(components.requestBodies ?? {})) for (const schema of contentSchemas(body)) out.push({ site: `corps ${name}`, schema });
  for (const [name, response] of Object.entries(components.responses ?? {})) for (const schema of contentSchemas(response)) out.push({ site: `réponse ${name}`, schema });
  for (const { op } of listOperations(doc)) {
    for (const schema of contentSchemas(op.requestBody)) out.push({ site: `opération ${op.operationId}, entrée`, schema });
    for (const [status, response] of Object.entries(op.responses ?? {})) for (const schema of contentSchemas(response)) out.push({ site: `opération ${op.operationId}, réponse ${status}`, schema });
  }
  return out;
}

/**
 * Nothing without a bound: every string has a maxLength (or an enum, a const, or a format
 * of fixed length), every list a maxItems, in inputs and outputs alike; every number an
 * operation accepts has a minimum and a maximum (JSON's 1e309 is an infinity). So no valid
 * input can go past what the databases take, and readers know every size in advance.
 */
export function boundProblems(doc: OpenApiDocument, operations: Map<string, OperationEntry>): string[] {
  const problems: string[] = [];
  const named = (site: string, path: string) => (path ? `${site} « ${path} »` : site);
  for (const { site, schema } of writtenSchemas(doc)) {
    walkSchema(schema, '', (s, path) => {
      const bounded = s.enum !== undefined || s.const !== undefined;
      if (types(s).includes('string') && !bounded && typeof s.maxLength !== 'number' && !BOUNDED_FORMATS.has(String(s.format)))
        problems.push(`${named(site, path)} : chaîne sans maxLength (ni enum, const, ni format uuid ou date)`);
      if (types(s).includes('array') && typeof s.maxItems !== 'number') problems.push(`${named(site, path)} : liste sans maxItems`);
    });
  }
  for (const op of operations.values()) {
    walkSchema(op.inputSchema, '', (s, path) => {
      if (!types(s).some((t) => t === 'number' || t === 'integer') || s.enum !== undefined || s.const !== undefined) return;
      const site = named(`opération ${op.name}, entrée`, path);
      if (typeof s.minimum !== 'number' && typeof s.exclusiveMinimum !== 'number') problems.push(`${site} : nombre sans minimum`);
      if (typeof s.maximum !== 'number' && typeof s.exclusiveMaximum !== 'number') problems.push(`${site} : nombre sans maximum`);
    });
  }
  return problems;
}
