// The hand-written contract as the generator reads it: the two YAML files, typed loosely.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { JsonSchema, ProfileName, Scope, ToolRecipe, ToolStatus } from '../../src/contract/types.js';

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
  /** A tool running several operations: `argument` names the one that chooses. */
  dispatch?: { argument: string; operations: Record<string, string> };
  card?: boolean;
  recipes?: ToolRecipe[];
}

export interface ToolsDocument {
  catalogue_version: string;
  documentation_version: string;
  service: { name: string; summary: string };
  profiles: Record<ProfileName, { path: string; title: string; description: string }>;
  tools: ToolSource[];
}

export interface ContractSource {
  openapi: OpenApiDocument;
  tools: ToolsDocument;
  /** The raw text of both files, for the manifest's checksum. */
  text: string;
}

export async function loadContract(dir: string): Promise<ContractSource> {
  const openapiText = await readFile(`${dir}/openapi.yaml`, 'utf8');
  const toolsText = await readFile(`${dir}/tools.yaml`, 'utf8');
  return {
    openapi: parse(openapiText) as OpenApiDocument,
    tools: parse(toolsText) as ToolsDocument,
    text: openapiText + '\n' + toolsText,
  };
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
