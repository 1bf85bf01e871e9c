// manifest.json copies the contract's versions, counts tools by status (MCP entries = active + historic names) and carries the SHA-256 of the contract text.
import { expect } from 'chai';
import { manifest } from '../../../scripts/generator/manifest.js';
import type { Manifest, ToolEntry, ToolStatus } from '../../../src/contract/types.js';

type Input = Parameters<typeof manifest>[0];

interface Case {
  name: string;
  given: Input;
  want: Manifest;
}

function tool(name: string, status: ToolStatus): ToolEntry {
  return {
    name,
    title: name,
    description: name,
    status,
    aliasOf: status === 'alias' ? 'actif_a' : null,
    dispatch: null,
    operations: [],
    profiles: [],
    scope: 'mcp:read',
    effect: 'read',
    paidOnly: false,
    card: [],
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    inputSchema: null,
    outputSchema: null,
    recipes: [],
  };
}

const SHA256_EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const SHA256_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
const DOCUMENTS = { openapi: '/openapi.json', llms_index: '/docs/llms.txt', llms_full: '/llms-full.txt', manifest: '/agents/manifest.json' };

const input = (overrides: Partial<Input> = {}): Input => ({
  contractVersion: '3.0.0',
  openapiVersion: '3.1.0',
  documentVersion: '1.0.0',
  catalogueVersion: '1.2.0',
  documentationVersion: '1.1.0',
  operationCount: 0,
  tools: [],
  contractText: '',
  ...overrides,
});

const cases: Case[] = [
  {
    name: 'no tool: every count is zero, versions copied, sha256 of the empty text',
    given: input(),
    want: {
      contract_version: '3.0.0',
      openapi_version: '3.1.0',
      openapi_document_version: '1.0.0',
      catalogue_version: '1.2.0',
      documentation_version: '1.1.0',
      counts: { rest_operations: 0, mcp_tool_entries: 0, mcp_tools_active: 0, mcp_tools_historic: 0, mcp_tools_in_preparation: 0 },
      documents: DOCUMENTS,
      contract_sha256: SHA256_EMPTY,
    },
  },
  {
    name: 'counts by status: MCP entries are active + alias, preparation counted apart',
    given: input({
      operationCount: 5,
      tools: [tool('actif_a', 'active'), tool('actif_b', 'active'), tool('actif_c', 'active'), tool('ancien', 'alias'), tool('bientot_a', 'preparation'), tool('bientot_b', 'preparation')],
      contractText: 'abc',
    }),
    want: {
      contract_version: '3.0.0',
      openapi_version: '3.1.0',
      openapi_document_version: '1.0.0',
      catalogue_version: '1.2.0',
      documentation_version: '1.1.0',
      counts: { rest_operations: 5, mcp_tool_entries: 4, mcp_tools_active: 3, mcp_tools_historic: 1, mcp_tools_in_preparation: 2 },
      documents: DOCUMENTS,
      contract_sha256: SHA256_ABC,
    },
  },
  {
    name: 'every version is copied from its own source',
    given: input({ contractVersion: '4.1.0', openapiVersion: '3.1.1', documentVersion: '2.0.0', catalogueVersion: '0.9.0', documentationVersion: '7.0.0', operationCount: 1, tools: [tool('actif_a', 'active')], contractText: 'abc' }),
    want: {
      contract_version: '4.1.0',
      openapi_version: '3.1.1',
      openapi_document_version: '2.0.0',
      catalogue_version: '0.9.0',
      documentation_version: '7.0.0',
      counts: { rest_operations: 1, mcp_tool_entries: 1, mcp_tools_active: 1, mcp_tools_historic: 0, mcp_tools_in_preparation: 0 },
      documents: DOCUMENTS,
      contract_sha256: SHA256_ABC,
    },
  },
  {
    name: 'the checksum is of the UTF-8 text',
    given: input({ contractText: 'é' }),
    want: {
      contract_version: '3.0.0',
      openapi_version: '3.1.0',
      openapi_document_version: '1.0.0',
      catalogue_version: '1.2.0',
      documentation_version: '1.1.0',
      counts: { rest_operations: 0, mcp_tool_entries: 0, mcp_tools_active: 0, mcp_tools_historic: 0, mcp_tools_in_preparation: 0 },
      documents: DOCUMENTS,
      contract_sha256: '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c',
    },
  },
];

describe('manifest', () => {
  for (const c of cases) it(c.name, () => expect(manifest(c.given)).to.deep.equal(c.want));
});
