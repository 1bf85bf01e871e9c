// A real MCP SDK client sees on each address exactly its tools, conform results, and argument errors as tool results carrying the REST message.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationEntry, ProfileEntry, ProfileName, ToolEntry } from '../../../src/contract/types.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as {
  profiles: ProfileEntry[];
  tools: ToolEntry[];
};

const ADDRESSES: { path: string; profile: ProfileName }[] = [
  { path: '/api/mcp', profile: 'full' },
  { path: '/api/mcp/assistant', profile: 'assistant' },
  { path: '/api/mcp/connectors', profile: 'connectors' },
];

/** What an address must announce: the active tools of its profile, from the generated catalogue. */
function expectedTools(profile: ProfileName): ToolEntry[] {
  return catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));
}

const operations = JSON.parse(readFileSync(new URL('../../../generated/operations.json', import.meta.url), 'utf8')) as { operations: OperationEntry[] };

function catalogueOperation(name: string): OperationEntry {
  const op = operations.operations.find((o) => o.name === name);
  if (!op) throw new Error(`opération absente du contrat : ${name}`);
  return op;
}

function catalogueTool(name: string): ToolEntry {
  const tool = catalogue.tools.find((t) => t.name === name);
  if (!tool) throw new Error(`outil absent du catalogue : ${name}`);
  return tool;
}

function text(result: CallToolResult): string {
  const first = result.content[0];
  expect(first?.type).to.equal('text');
  return (first as { type: 'text'; text: string }).text;
}

async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(McpError);
    return err as McpError;
  }
  expect.fail('une erreur JSON-RPC était attendue');
}

describe('MCP protocol with the SDK client', () => {
  let svc: TestService;
  const clients: Client[] = [];

  async function connect(path: string): Promise<Client> {
    const client = new Client({ name: 'test-client', version: '0.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${svc.url}${path}`), { requestInit: { headers: { Authorization: `Bearer ${svc.token}` } } }));
    clients.push(client);
    return client;
  }

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await svc.close();
  });

  for (const { path, profile } of ADDRESSES) {
    describe(`on ${path}`, () => {
      it('initializes as batidata-api with instructions', async () => {
        const client = await connect(path);
        expect(client.getServerVersion()?.name).to.equal('batidata-api');
        const instructions = client.getInstructions();
        expect(instructions).to.be.a('string').and.not.equal('');
        expect(client.getServerCapabilities()?.tools).to.be.an('object');
      });

      it(`lists exactly the active tools of the ${profile} profile, each fully described`, async () => {
        const client = await connect(path);
        const { tools } = await client.listTools();
        const expected = expectedTools(profile);
        expect(tools.map((t) => t.name).sort()).to.deep.equal(expected.map((t) => t.name).sort());
        for (const tool of tools) {
          const entry = catalogueTool(tool.name);
          expect(tool.title, tool.name).to.equal(entry.title);
          expect(tool.description, tool.name).to.be.a('string').and.not.equal('');
          expect(tool.inputSchema, tool.name).to.deep.equal(entry.inputSchema);
          expect(tool.outputSchema, tool.name).to.deep.equal(entry.outputSchema);
          // Every hint given (ChatGPT's apps directory requires the first three), as the contract derives them.
          expect(tool.annotations, tool.name).to.deep.equal({ title: entry.title, ...entry.annotations });
          expect(tool.annotations?.readOnlyHint, tool.name).to.equal(entry.effect === 'read');
          for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect(tool.annotations?.[hint], `${tool.name} ${hint}`).to.be.a('boolean');
          // Deleting tools say so; a read never does.
          const ops = entry.operations.map((name) => catalogueOperation(name));
          expect(tool.annotations?.destructiveHint, tool.name).to.equal(ops.some((o) => o.destructive));
          if (/supprimer|_remove$/.test(tool.name)) expect(tool.annotations?.destructiveHint, tool.name).to.equal(true);
        }
      });

      it('lists resources as a list', async () => {
        const client = await connect(path);
        const { resources } = await client.listResources();
        expect(resources).to.be.an('array');
      });

      it('refuses to read an unknown resource with -32602', async () => {
        const client = await connect(path);
        const err = await rpcError(client.readResource({ uri: 'ui://inconnu/rien.html' }));
        expect(err.code).to.equal(-32602);
        expect(err.message).to.include('ui://inconnu/rien.html');
      });

      it('refuses an unknown tool name with -32601', async () => {
        const client = await connect(path);
        const err = await rpcError(client.callTool({ name: 'outil_qui_n_existe_pas', arguments: {} }));
        expect(err.code).to.equal(-32601);
        expect(err.message).to.include('outil_qui_n_existe_pas');
      });
    });
  }

  it('refuses with -32601 a tool of the catalogue that the address does not serve', async () => {
    const checked: string[] = [];
    for (const { path, profile } of ADDRESSES) {
      const foreign = catalogue.tools.find((t) => t.status === 'active' && !t.profiles.includes(profile));
      if (!foreign) continue;
      const client = await connect(path);
      const err = await rpcError(client.callTool({ name: foreign.name, arguments: {} }));
      expect(err.code, `${foreign.name} sur ${path}`).to.equal(-32601);
      checked.push(path);
    }
    // referentiel_cpv is not a connector tool: the connectors address must refuse it.
    expect(catalogueTool('referentiel_cpv').profiles).to.not.include('connectors');
    expect(checked).to.include('/api/mcp/connectors');
  });

  it('calls referentiel_departements: structured result conform to its output schema, and a readable text', async () => {
    const client = await connect('/api/mcp');
    await client.listTools(); // lets the client validate structuredContent against outputSchema
    const result = (await client.callTool({ name: 'referentiel_departements', arguments: { query: 'finistere' } })) as CallToolResult;
    expect(result.isError ?? false).to.equal(false);
    const structured = result.structuredContent as { total: number; items: { code: string; nom: string }[] };
    expect(structured.total).to.equal(1);
    expect(structured.items).to.have.length(1);
    expect(structured.items[0]).to.include({ code: '29', nom: 'Finistère' });
    const readable = text(result);
    expect(readable).to.include('29').and.include('Finistère');
  });

  it('gives the same result on the assistant address as on the full one', async () => {
    const full = await connect('/api/mcp');
    const assistant = await connect('/api/mcp/assistant');
    const a = (await full.callTool({ name: 'referentiel_departements', arguments: { query: 'finistere' } })) as CallToolResult;
    const b = (await assistant.callTool({ name: 'referentiel_departements', arguments: { query: 'finistere' } })) as CallToolResult;
    expect(b.structuredContent).to.deep.equal(a.structuredContent);
  });

  const argumentErrors: { name: string; tool: string; args: Record<string, unknown>; names: string }[] = [
    { name: 'an unknown property', tool: 'referentiel_departements', args: { quer: 'x' }, names: '« quer »' },
    { name: 'a wrong type', tool: 'referentiel_departements', args: { query: 5 }, names: '« query »' },
    { name: 'a missing required argument', tool: 'aide_outil', args: {}, names: '« nom »' },
    { name: 'a string too long', tool: 'referentiel_departements', args: { query: 'x'.repeat(101) }, names: '« query »' },
  ];
  for (const c of argumentErrors) {
    it(`answers ${c.name} as a tool error with the REST message`, async () => {
      const client = await connect('/api/mcp');
      await client.listTools();
      const result = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      expect(result.isError).to.equal(true);
      expect(result.structuredContent).to.equal(undefined);
      const message = text(result);
      expect(message).to.include(c.names).and.match(/argument/i);
      const operation = catalogueTool(c.tool).operations[0] as string;
      const restAnswer = await svc.rest(operation, c.args);
      expect(restAnswer.status).to.equal(400);
      expect(restAnswer.json.error.code).to.equal('invalid_arguments');
      expect(message).to.equal(restAnswer.json.error.message);
    });
  }

  it('answers aide_outil on an unknown name as a French tool error (REST: 404 not_found)', async () => {
    const client = await connect('/api/mcp');
    const result = (await client.callTool({ name: 'aide_outil', arguments: { nom: 'nope' } })) as CallToolResult;
    expect(result.isError).to.equal(true);
    const message = text(result);
    expect(message).to.match(/inconnu/).and.include('« nope »');
    const restAnswer = await svc.rest('aide.outil', { nom: 'nope' });
    expect(restAnswer.status).to.equal(404);
    expect(restAnswer.json.error.code).to.equal('not_found');
    expect(message).to.equal(restAnswer.json.error.message);
  });
});
