// MCP 2026-07-28 on the three addresses beside 2025-11-25: server/discover, no initialize, `_meta` and the Mcp-* headers checked, results complete with cache hints, the same call path and answers as the 2025 revision.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { ProfileName, ToolEntry } from '../../../src/contract/types.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };
const ADDRESSES: { path: string; profile: ProfileName }[] = [
  { path: '/api/mcp', profile: 'full' },
  { path: '/api/mcp/connectors', profile: 'connectors' },
  { path: '/api/mcp/assistant', profile: 'assistant' },
];
const REVISION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'tests', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const FRENCH = /[éèàç’«]/;

interface Answer {
  status: number;
  headers: Headers;
  json: any;
}

describe('MCP revision 2026-07-28 over raw HTTP', () => {
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    await svc.close();
  });

  /** A request as a 2026-07-28 client sends it: `_meta` in params, the headers mirroring the body; `headers` overrides them (null removes one). */
  async function modern(path: string, method: string, params: Record<string, unknown> = {}, headers: Record<string, string | null> = {}, token: string | null = svc.token): Promise<Answer> {
    const name = method === 'tools/call' ? params.name : method === 'resources/read' ? params.uri : undefined;
    const all: Record<string, string | null> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null));
    const body = { jsonrpc: '2.0', id: 7, method, params: { _meta: META, ...params } };
    const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: sent, body: JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
  }

  /** The same call in the 2025 revision: no `_meta`, no Mcp-* header (stateless: no initialize needed per request). */
  async function legacy(path: string, method: string, params: Record<string, unknown>): Promise<any> {
    const res = await fetch(`${svc.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${svc.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return res.json();
  }

  function expectComplete(answer: Answer): any {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
    expect(answer.json.id).to.equal(7);
    const result = answer.json.result;
    expect(result.resultType).to.equal('complete');
    expect(result._meta['io.modelcontextprotocol/serverInfo']).to.include({ name: 'batidata-api' });
    return result;
  }

  function expectRefusal(answer: Answer, status: number, code: number): any {
    expect(answer.status, JSON.stringify(answer.json)).to.equal(status);
    expect(answer.json.id).to.equal(7);
    expect(answer.json.error.code).to.equal(code);
    expect(answer.json.error.message).to.match(FRENCH);
    return answer.json.error;
  }

  for (const { path, profile } of ADDRESSES) {
    describe(`on ${path}`, () => {
      it('server/discover: both revisions, the capabilities, the instructions, cache hints', async () => {
        const result = expectComplete(await modern(path, 'server/discover'));
        expect(result.supportedVersions).to.include.members(['2026-07-28', '2025-11-25']);
        expect(result.capabilities).to.deep.equal({ tools: { listChanged: false }, resources: { listChanged: false } });
        expect(result.instructions).to.be.a('string').and.match(FRENCH);
        expect(result.ttlMs).to.be.a('number').and.at.least(0);
        expect(result.cacheScope).to.equal('public');
      });

      it('tools/list: the tools of the 2025 revision, private cache hints (they depend on the token)', async () => {
        const result = expectComplete(await modern(path, 'tools/list'));
        const expected = catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile)).map((t) => t.name);
        expect(result.tools.map((t: { name: string }) => t.name)).to.have.members(expected);
        expect(result.tools).to.deep.equal((await legacy(path, 'tools/list', {})).result.tools);
        expect(result.ttlMs).to.be.a('number').and.at.least(0);
        expect(result.cacheScope).to.equal('private');
      });

      it('tools/call with _meta and the headers: the same structured result as the 2025 revision', async () => {
        const call = { name: 'marches_rechercher', arguments: { query: 'toiture' } };
        const result = expectComplete(await modern(path, 'tools/call', call));
        expect(result.isError).to.not.equal(true);
        expect(result.structuredContent).to.deep.equal((await legacy(path, 'tools/call', call)).result.structuredContent);
        expect(result).to.not.have.property('ttlMs');
      });

      it('a name outside header-safe characters travels Base64-encoded in Mcp-Name', async () => {
        const uri = 'ui://cartes/inconnue-é.html';
        const encoded = `=?base64?${Buffer.from(uri).toString('base64')}?=`;
        const error = expectRefusal(await modern(path, 'resources/read', { uri }, { 'mcp-name': encoded }), 200, -32602);
        expect(error.data).to.deep.equal({ uri });
      });

      it('refuses a missing or different Mcp-Method, Mcp-Name or MCP-Protocol-Version: 400 HeaderMismatch (-32020), in French', async () => {
        const call = { name: 'marches_rechercher', arguments: { query: 'toiture' } };
        expect(expectRefusal(await modern(path, 'tools/list', {}, { 'mcp-method': null }), 400, -32020).message).to.match(/Mcp-Method manquant/);
        expect(expectRefusal(await modern(path, 'tools/list', {}, { 'mcp-method': 'resources/list' }), 400, -32020).message).to.match(/Mcp-Method .* différent/);
        expect(expectRefusal(await modern(path, 'tools/call', call, { 'mcp-name': null }), 400, -32020).message).to.match(/Mcp-Name manquant/);
        expect(expectRefusal(await modern(path, 'tools/call', call, { 'mcp-name': 'annuaire_entreprises' }), 400, -32020).message).to.match(/Mcp-Name .* différent/);
        expect(expectRefusal(await modern(path, 'tools/list', {}, { 'mcp-protocol-version': null }), 400, -32020).message).to.match(/MCP-Protocol-Version manquant/);
      });

      it('refuses a request without _meta or its required fields: 400, -32602, in French', async () => {
        const res = await fetch(`${svc.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, 'mcp-method': 'tools/list', authorization: `Bearer ${svc.token}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
        });
        expectRefusal({ status: res.status, headers: res.headers, json: await res.json() }, 400, -32602);
        const noCapabilities = { _meta: { 'io.modelcontextprotocol/protocolVersion': REVISION } };
        expect(expectRefusal(await modern(path, 'tools/list', noCapabilities), 400, -32602).message).to.match(/clientCapabilities/);
      });

      it('refuses a version it does not serve with the versions it serves: 400, -32022', async () => {
        const params = { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } };
        const error = expectRefusal(await modern(path, 'tools/list', params, { 'mcp-protocol-version': '2099-01-01' }), 400, -32022);
        expect(error.data.requested).to.equal('2099-01-01');
        expect(error.data.supported).to.include.members(['2026-07-28', '2025-11-25']);
      });

      it('answers 404 -32601 to the methods the revision removed (initialize, ping) and to unknown ones', async () => {
        for (const method of ['initialize', 'ping', 'prompts/list']) expectRefusal(await modern(path, method), 404, -32601);
      });

      it('keeps the call path rules: no token, 401 with the challenge', async () => {
        const answer = await modern(path, 'tools/list', {}, {}, null);
        expect(answer.status).to.equal(401);
        expect(answer.headers.get('www-authenticate')).to.match(/^Bearer /);
      });
    });
  }

  it('connectors: a tool error keeps its service/error beside serverInfo', async () => {
    const result = expectComplete(await modern('/api/mcp/connectors', 'tools/call', { name: 'marches_rechercher', arguments: { texte: 'toiture' } }));
    expect(result.isError).to.equal(true);
    expect(result._meta['service/error']).to.include({ code: 'invalid_arguments' });
    expect(result._meta['service/error'].message).to.match(FRENCH);
  });

  it('connectors: the card is read with Mcp-Name, with public cache hints', async () => {
    const tools = expectComplete(await modern('/api/mcp/connectors', 'tools/list')).tools as { name: string; _meta?: { ui?: { resourceUri?: string } } }[];
    const uri = tools.find((t) => t._meta?.ui?.resourceUri)?._meta?.ui?.resourceUri as string;
    expect(uri).to.match(/^ui:\/\//);
    const result = expectComplete(await modern('/api/mcp/connectors', 'resources/read', { uri }));
    expect(result.contents[0]).to.include({ uri, mimeType: 'text/html;profile=mcp-app' });
    expect(result.cacheScope).to.equal('public');
    expect(result.ttlMs).to.be.above(0);
  });

  it('a 2026 notification is accepted with 202 and no body', async () => {
    const res = await fetch(`${svc.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION, authorization: `Bearer ${svc.token}` },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }),
    });
    expect(res.status).to.equal(202);
    expect(await res.text()).to.equal('');
  });
});
