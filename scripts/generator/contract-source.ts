// The hand-written contract as the generator reads it, typed loosely: openapi.yaml and the
// files it joins by `$ref` (contract/paths/<domain>.yaml) as one document, its fill-ins done
// (operation paths, error responses, version sentence), and tools.yaml.
import { readFile, readdir } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { parse } from 'yaml';
import type { JsonSchema, ProfileName, Scope, ToolRecipe, ToolStatus } from '../../src/contract/types.js';
import { withErrorResponses } from './error-responses.js';
import { withInputTextRules } from './input-text-rules.js';
import { joinFiles } from './join-files.js';
import { operationPaths } from './operation-paths.js';
import { withVersionSentence } from './version-sentence.js';

export interface OpenApiOperation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: JsonSchema;
  responses: Record<string, JsonSchema>;
  'x-effect'?: string;
  'x-mcp-tool'?: string;
  'x-paid-only'?: boolean;
  'x-scope'?: string;
  'x-explicit-write-scope'?: boolean;
  /** On a paid-only operation: a granted eligible access opens it too. */
  'x-eligible-access'?: boolean;
  /** Writes: whether repeating the call with the same arguments changes nothing more (MCP idempotentHint). */
  'x-idempotent'?: boolean;
  /** Writes that delete or overwrite what the caller had (MCP destructiveHint). */
  'x-destructive'?: boolean;
  /** Calls that reach outside the service (an e-mail sent): MCP openWorldHint. */
  'x-open-world'?: boolean;
}

export interface OpenApiDocument {
  openapi: string;
  jsonSchemaDialect?: string;
  info: { title: string; version: string; 'x-api-contract-version'?: string; [k: string]: unknown };
  paths: Record<string, Record<string, OpenApiOperation>>;
  components?: Record<string, Record<string, JsonSchema>>;
  [k: string]: unknown;
}

export interface ToolSource {
  name: string;
  title: string;
  description: string;
  operations?: string[];
  profiles?: ProfileName[];
  scope?: Scope;
  status: ToolStatus;
  alias_of?: string;
  /** An active tool serving the same operation(s) as this one on other addresses (the operation's x-mcp-tool names that one). */
  same_as?: string;
  /** A tool running several operations: `argument` names the one that chooses. */
  dispatch?: { argument: string; operations: Record<string, string> };
  /** The results card: `true` on every card address the tool is served on, or the card addresses named. */
  card?: boolean | ProfileName[];
  recipes?: ToolRecipe[];
}

export interface ToolsDocument {
  catalogue_version: string;
  documentation_version: string;
  /** `public_url`: the public deployment's origin, published in server.json (a running service uses PUBLIC_URL). */
  service: { name: string; summary: string; public_url: string };
  profiles: Record<ProfileName, { path: string; title: string; description: string }>;
  tools: ToolSource[];
}

export interface ContractSource {
  openapi: OpenApiDocument;
  tools: ToolsDocument;
  /**
   * For the manifest's checksum: every contract file, its path then its raw text, in the
   * order read (openapi.yaml, the files it joins, tools.yaml), so any edit changes it.
   */
  text: string;
}

export async function loadContract(dir: string): Promise<ContractSource> {
  const read = (path: string) => readFile(join(dir, path), 'utf8');
  const { document, files } = await joinFiles('openapi.yaml', read);
  const toolsText = await read('tools.yaml');
  files.push({ path: 'tools.yaml', text: toolsText });
  // A domain file nothing joins would silently drop its operations from the contract.
  const listed = (await readdir(dir, { recursive: true })).map((p) => p.split(sep).join('/')).filter((p) => /\.ya?ml$/.test(p));
  const unjoined = listed.filter((p) => !files.some((f) => f.path === p)).sort();
  if (unjoined.length) throw new Error(`Contrat : aucun $ref ne joint ${unjoined.join(', ')} (à référencer depuis openapi.yaml ou à supprimer)`);
  return {
    openapi: fillIn(document as OpenApiDocument),
    tools: parse(toolsText) as ToolsDocument,
    text: files.map((f) => `${f.path}\n${f.text}`).join('\n'),
  };
}

/**
 * What the generator writes instead of the contract: each operation's path, common error
 * responses and version sentence, and the rules of every text it accepts.
 */
function fillIn(source: OpenApiDocument): OpenApiDocument {
  const doc: OpenApiDocument = { ...source, paths: operationPaths(source.paths ?? {}) };
  const version = doc.info?.['x-api-contract-version'];
  for (const { op } of listOperations(doc)) {
    op.responses = withErrorResponses(op.responses);
    if (typeof version === 'string') op.description = withVersionSentence(op.description, version);
  }
  withInputTextRules(listOperations(doc).map(({ op }) => op), doc);
  return doc;
}

/** Every operation of the document, in path order, with its path and method. */
export function listOperations(doc: OpenApiDocument): { path: string; method: string; op: OpenApiOperation }[] {
  const out: { path: string; method: string; op: OpenApiOperation }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) out.push({ path, method, op });
    }
  }
  return out;
}
