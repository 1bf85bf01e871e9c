// Transform: versions and counts of the contract into agents/manifest.json.
import { createHash } from 'node:crypto';
import type { Manifest, ToolEntry } from '../../src/contract/types.js';

export function manifest(input: {
  contractVersion: string;
  openapiVersion: string;
  documentVersion: string;
  catalogueVersion: string;
  documentationVersion: string;
  operationCount: number;
  tools: ToolEntry[];
  contractText: string;
}): Manifest {
  const count = (status: ToolEntry['status']) => input.tools.filter((t) => t.status === status).length;
  return {
    contract_version: input.contractVersion,
    openapi_version: input.openapiVersion,
    openapi_document_version: input.documentVersion,
    catalogue_version: input.catalogueVersion,
    documentation_version: input.documentationVersion,
    counts: {
      rest_operations: input.operationCount,
      mcp_tool_entries: count('active') + count('alias'),
      mcp_tools_active: count('active'),
      mcp_tools_historic: count('alias'),
      mcp_tools_in_preparation: count('preparation'),
    },
    documents: {
      openapi: '/openapi.json',
      llms_index: '/docs/llms.txt',
      llms_full: '/llms-full.txt',
      manifest: '/agents/manifest.json',
    },
    contract_sha256: createHash('sha256').update(input.contractText).digest('hex'),
  };
}
