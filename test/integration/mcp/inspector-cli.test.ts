// The README's MCP Inspector CLI recipe works on each address: list the tools, call one, read the card (where the address has one).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startTestService, type TestService } from '../../helpers/service.js';

const INSPECTOR = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/inspector-cli/build/cli.js', import.meta.url));
/**
 * inspector-cli 1.0.3 reads its own package.json through `../package.json` tested against
 * the working directory: it runs from a folder of the repository (as the README says).
 */
const CWD = fileURLToPath(new URL('../../../scripts/', import.meta.url));

function inspector(args: string[]): Promise<any> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [INSPECTOR, '--cli', ...args], { cwd: CWD, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}\n${stdout}`));
      // The CLI prints a deprecation notice before the JSON answer.
      const start = stdout.indexOf('{');
      try {
        resolve(JSON.parse(stdout.slice(start)));
      } catch {
        reject(new Error(`réponse illisible : ${stdout.slice(0, 500)}`));
      }
    });
  });
}

describe('MCP Inspector CLI (--transport http)', function () {
  this.timeout(60_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  for (const path of ['/api/mcp', '/api/mcp/connectors', '/api/mcp/assistant']) {
    it(`lists tools, calls marches_rechercher and reads the resources on ${path}`, async () => {
      const common = [`${svc.url}${path}`, '--transport', 'http', '--header', `Authorization: Bearer ${svc.token}`];
      const { tools } = await inspector([...common, '--method', 'tools/list']);
      expect(tools.map((t: { name: string }) => t.name)).to.include('marches_rechercher');

      const result = await inspector([...common, '--method', 'tools/call', '--tool-name', 'marches_rechercher', '--tool-arg', 'query=toiture']);
      expect(result.isError).to.not.equal(true);
      expect(result.structuredContent).to.be.an('object');

      const { resources } = await inspector([...common, '--method', 'resources/list']);
      if (path === '/api/mcp') {
        expect(resources).to.deep.equal([]); // the full registry has no card
        return;
      }
      const card = resources[0] as { uri: string };
      const read = await inspector([...common, '--method', 'resources/read', '--uri', card.uri]);
      expect(read.contents[0]).to.include({ uri: card.uri, mimeType: 'text/html;profile=mcp-app' });
      expect(read.contents[0].text).to.match(/^<!doctype html>/i);
    });
  }
});
