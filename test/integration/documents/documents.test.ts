// The contract documents are served as generated (the texts for agents with this deployment's address filled in, llms.txt at the root too), and say what the spec says they say.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { withPublicUrl } from '../../../src/http/documents.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const generated = (name: string) => readFileSync(new URL(`../../../generated/${name}`, import.meta.url), 'utf8');

describe('contract documents', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  const documents = [
    { path: '/openapi.json', file: 'openapi.json', type: /^application\/json/ },
    { path: '/llms.txt', file: 'llms.txt', type: /^text\/plain/ },
    { path: '/docs/llms.txt', file: 'llms.txt', type: /^text\/plain/ },
    { path: '/llms-full.txt', file: 'llms-full.txt', type: /^text\/plain/ },
    { path: '/agents/manifest.json', file: 'manifest.json', type: /^application\/json/ },
  ];
  for (const d of documents) {
    const text = d.file.endsWith('.txt');
    it(`serves ${d.path} from generated/${d.file}${text ? ', with this deployment’s address' : ' byte for byte'}`, async () => {
      const res = await fetch(`${svc.url}${d.path}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(d.type);
      expect(await res.text()).to.equal(text ? withPublicUrl(generated(d.file), svc.url) : generated(d.file));
    });
  }

  it('leaves no {base_url} placeholder and no site-relative link in the texts for agents (llmstxt.org)', async () => {
    for (const path of ['/llms.txt', '/llms-full.txt']) {
      const body = await (await fetch(`${svc.url}${path}`)).text();
      expect(body, path).to.not.include('{base_url}');
      const links = [...body.matchAll(/\]\(((?:\/|https?:\/\/)[^)\s]*)\)/g)].map((m) => m[1] as string);
      if (path === '/llms.txt') expect(links.length, path).to.be.greaterThan(0);
      for (const link of links) expect(link, path).to.match(new RegExp(`^${svc.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`));
    }
    expect(generated('llms-full.txt')).to.include('{base_url}');
  });

  it('publishes OpenAPI 3.1.0, dialect 2020-12, document 1.0.0, contract 3.0.0 and each annotation', async () => {
    const doc = await (await fetch(`${svc.url}/openapi.json`)).json();
    expect(doc.openapi).to.equal('3.1.0');
    expect(doc.jsonSchemaDialect).to.equal('https://json-schema.org/draft/2020-12/schema');
    expect(doc.info.version).to.equal('1.0.0');
    expect(doc.info['x-api-contract-version']).to.equal('3.0.0');
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      const op = item.post ?? item.get;
      expect(path).to.equal(`/api/mcp/v1/${op.operationId}`);
      expect(op.description, path).to.include('Version du contrat : 3.0.0.');
      expect(['read', 'write']).to.include(op['x-effect']);
      expect(op['x-mcp-tool']).to.be.a('string');
      expect(op['x-paid-only']).to.be.a('boolean');
      expect(['mcp:read', 'mcp:write']).to.include(op['x-scope']);
      for (const status of ['400', '401', '403', '404', '409', '429', '503', '504']) expect(op.responses[status].$ref, `${path} ${status}`).to.match(/^#\/components\/responses\//);
    }
    expect(doc.components.schemas.ErrorBody.required).to.deep.equal(['error', 'api_contract_version']);
  });

  it('lists one line per tool in llms.txt, llmstxt.org layout, and details each tool in llms-full.txt', async () => {
    const index = await (await fetch(`${svc.url}/docs/llms.txt`)).text();
    const full = await (await fetch(`${svc.url}/llms-full.txt`)).text();
    const tools = JSON.parse(generated('tools.json')).tools as { name: string }[];
    expect(index.split('\n')[0]).to.match(/^# \S/);
    expect(index).to.match(/\n> \S/);
    expect(index).to.match(/\n## Outils\n/);
    for (const t of tools) {
      expect(index.split('\n').filter((l) => l.startsWith(`- [${t.name}](`)), t.name).to.have.length(1);
      expect(full, t.name).to.include(`\n## ${t.name}\n`);
    }
  });

  it('publishes the versions and counts of contract, catalogue and documentation in the manifest', async () => {
    const manifest = await (await fetch(`${svc.url}/agents/manifest.json`)).json();
    expect(manifest).to.include({ contract_version: '3.0.0', openapi_version: '3.1.0', openapi_document_version: '1.0.0' });
    expect(manifest.catalogue_version).to.match(/^\d+\.\d+\.\d+$/);
    expect(manifest.documentation_version).to.match(/^\d+\.\d+\.\d+$/);
    const ops = JSON.parse(generated('operations.json')).operations;
    expect(manifest.counts.rest_operations).to.equal(ops.length);
  });

  it('counts the spec’s catalogue: 61 REST operations, 91 MCP entries (historic names included), 5 in preparation', async () => {
    const { counts } = await (await fetch(`${svc.url}/agents/manifest.json`)).json();
    expect(counts).to.include({ rest_operations: 61, mcp_tool_entries: 91, mcp_tools_in_preparation: 5 });
    expect(counts.mcp_tools_active + counts.mcp_tools_historic).to.equal(91);
  });
});
