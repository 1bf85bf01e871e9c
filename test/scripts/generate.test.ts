// generated/ is exactly what the contract gives, the real contract is consistent, and its source writes only what is each operation's own.
import { expect } from 'chai';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildGeneratedFiles } from '../../scripts/generate.js';
import { checkContract } from '../../scripts/generator/check-contract.js';
import { type OpenApiDocument, listOperations, loadContract } from '../../scripts/generator/contract-source.js';
import { ERROR_RESPONSES } from '../../scripts/generator/error-responses.js';
import { joinFiles } from '../../scripts/generator/join-files.js';
import { operationEntry } from '../../scripts/generator/operation-entry.js';
import { operationPaths } from '../../scripts/generator/operation-paths.js';
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

  it("the contract's source writes no path, common error response or version sentence (the generator adds them)", async () => {
    const { document } = await joinFiles('openapi.yaml', (path) => readFile(join(root, 'contract', path), 'utf8'));
    const source = (document as OpenApiDocument).paths;
    expect(Object.keys(source).filter((key) => !key.startsWith('x-')), 'paths written out').to.deep.equal([]);
    const written = Object.entries(operationPaths(source)).flatMap(([path, item]) =>
      Object.values(item).flatMap((op) => [
        ...Object.keys(op.responses ?? {})
          .filter((status) => Object.hasOwn(ERROR_RESPONSES, status))
          .map((status) => `${path} : ${status}`),
        ...((op.description ?? '').includes('Version du contrat') ? [`${path} : Version du contrat`] : []),
      ]),
    );
    expect(written).to.deep.equal([]);
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
