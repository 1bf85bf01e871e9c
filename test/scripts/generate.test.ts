// generated/ is exactly what the contract gives, and the real contract is consistent.
import { expect } from 'chai';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGeneratedFiles } from '../../scripts/generate.js';
import { checkContract } from '../../scripts/generator/check-contract.js';
import { listOperations, loadContract } from '../../scripts/generator/contract-source.js';
import { operationEntry } from '../../scripts/generator/operation-entry.js';
import type { Manifest, OperationEntry, ToolEntry } from '../../src/contract/types.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const generatedDir = join(root, 'generated');
const readJson = async <T>(name: string): Promise<T> => JSON.parse(await readFile(join(generatedDir, name), 'utf8')) as T;

describe('generate', () => {
  let files: Map<string, string>;
  before(async () => {
    files = await buildGeneratedFiles(join(root, 'contract'));
  });

  it('the real contract has no inconsistency', async () => {
    const source = await loadContract(join(root, 'contract'));
    const operations = new Map(listOperations(source.openapi).map(({ path, method, op }) => [op.operationId, operationEntry(path, method, op, source.openapi)]));
    expect(checkContract(source.openapi, source.tools, operations)).to.deep.equal([]);
  });

  it('every produced file equals the one in generated/ (else run npm run generate)', async () => {
    expect(files.size).to.be.greaterThan(0);
    for (const [name, content] of files) {
      const onDisk = await readFile(join(generatedDir, name), 'utf8').catch(() => null);
      expect(onDisk, `generated/${name}`).to.equal(content);
    }
  });

  it('generated/ holds no other file', async () => {
    expect((await readdir(generatedDir)).sort()).to.deep.equal([...files.keys()].sort());
  });

  it("the manifest's counts match operations.json and tools.json", async () => {
    const { counts } = await readJson<Manifest>('manifest.json');
    const { operations } = await readJson<{ operations: OperationEntry[] }>('operations.json');
    const { tools } = await readJson<{ tools: ToolEntry[] }>('tools.json');
    const withStatus = (status: ToolEntry['status']) => tools.filter((t) => t.status === status).length;
    expect(counts).to.deep.equal({
      rest_operations: operations.length,
      mcp_tool_entries: withStatus('active') + withStatus('alias'),
      mcp_tools_active: withStatus('active'),
      mcp_tools_historic: withStatus('alias'),
      mcp_tools_in_preparation: withStatus('preparation'),
    });
    expect(counts.mcp_tools_active + counts.mcp_tools_historic + counts.mcp_tools_in_preparation).to.equal(tools.length);
  });
});
