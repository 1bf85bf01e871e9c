// Shapes of the generated contract files, shared by the generator (which writes them)
// and the runtime (which reads them), so the two cannot drift apart.

export type JsonSchema = { [key: string]: unknown };
export type Effect = 'read' | 'write';
export type Scope = 'mcp:read' | 'mcp:write';
export type ProfileName = 'full' | 'connectors' | 'assistant';
export type ToolStatus = 'active' | 'alias' | 'preparation';

export const PROFILE_NAMES: readonly ProfileName[] = ['full', 'connectors', 'assistant'];

/** One REST operation as the runtime needs it: annotations and self-contained schemas. */
export interface OperationEntry {
  name: string;
  method: 'get' | 'post';
  path: string;
  summary: string;
  description: string;
  effect: Effect;
  scope: Scope;
  paidOnly: boolean;
  /** A paid-only operation that a granted eligible access opens too (the contract's `x-eligible-access`). */
  eligibleAccess: boolean;
  mcpTool: string;
  /** A write the legacy `mcp:public` scope does not open (the event-subscription mutations). */
  explicitWriteScope: boolean;
  /** Repeating the call with the same arguments changes nothing more (every read; writes as the contract's `x-idempotent`). */
  idempotent: boolean;
  /** A write that deletes or overwrites what the caller had (`x-destructive`). */
  destructive: boolean;
  /** The call reaches outside the service (`x-open-world`). */
  openWorld: boolean;
  /** JSON Schema 2020-12 of the request body (an empty object schema for `GET`). */
  inputSchema: JsonSchema;
  /** JSON Schema 2020-12 of the 200 response. */
  outputSchema: JsonSchema;
}

export interface ToolRecipe {
  title: string;
  steps: string[];
  example?: Record<string, unknown>;
}

/** A tool running several operations, chosen by the value of one argument. */
export interface ToolDispatch {
  argument: string;
  /** Argument value → operation name. */
  operations: Record<string, string>;
}

/** One entry of the MCP catalogue, with the schemas of the operation(s) it runs. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolEntry {
  name: string;
  title: string;
  description: string;
  status: ToolStatus;
  /** For a historic name: the current tool it stands for. */
  aliasOf: string | null;
  operations: string[];
  /** Null when the tool runs one operation. */
  dispatch: ToolDispatch | null;
  profiles: ProfileName[];
  scope: Scope;
  effect: Effect;
  paidOnly: boolean;
  /** The addresses that announce the results card with this tool (never `full`). */
  card: ProfileName[];
  /** MCP tool annotations, from its operations' annotations (every hint given, as strict hosts require). */
  annotations: ToolAnnotations;
  /** Null for a tool in preparation: it is described, not callable. */
  inputSchema: JsonSchema | null;
  outputSchema: JsonSchema | null;
  recipes: ToolRecipe[];
}

export interface ProfileEntry {
  name: ProfileName;
  path: string;
  title: string;
  description: string;
}

export interface Manifest {
  contract_version: string;
  openapi_version: string;
  openapi_document_version: string;
  catalogue_version: string;
  documentation_version: string;
  counts: {
    rest_operations: number;
    mcp_tool_entries: number;
    mcp_tools_active: number;
    mcp_tools_historic: number;
    mcp_tools_in_preparation: number;
  };
  documents: Record<string, string>;
  contract_sha256: string;
}
