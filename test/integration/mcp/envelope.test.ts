// The MCP addresses check the JSON-RPC envelope before the SDK: POST only, no batch, size and time limits, spec error codes, never a stack trace.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { expect } from 'chai';
import type { ProfileName, ToolEntry } from '../../../src/contract/types.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const ADDRESSES = ['/api/mcp', '/api/mcp/assistant', '/api/mcp/connectors'];
const PROFILES: Record<string, ProfileName> = { '/api/mcp': 'full', '/api/mcp/assistant': 'assistant', '/api/mcp/connectors': 'connectors' };
const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };

/** A tool the address serves, from the generated catalogue (none yet on an address without tools). */
function servedTool(path: string): string | undefined {
  const profile = PROFILES[path] as ProfileName;
  return catalogue.tools.find((t) => t.status === 'active' && t.profiles.includes(profile))?.name;
}
const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** The bearer token of the service under test, set by each describe's before(). */
let bearer = '';
const headersWithToken = () => ({ ...BASE_HEADERS, authorization: `Bearer ${bearer}` });
const LEAKS = [/at .*\.ts:\d+/, /node_modules/, /\/work\//];

interface Answer {
  status: number;
  headers: Headers | Record<string, string | string[] | undefined>;
  text: string;
  json: any;
}

function parsed(status: number, headers: Answer['headers'], text: string): Answer {
  for (const leak of LEAKS) expect(text, `fuite dans la réponse : ${text.slice(0, 200)}`).to.not.match(leak);
  let json: any;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status, headers, text, json };
}

async function send(url: string, method: string, body?: string): Promise<Answer> {
  const res = await fetch(url, { method, headers: headersWithToken(), ...(body !== undefined ? { body } : {}) });
  return parsed(res.status, res.headers, await res.text());
}

const post = (url: string, body: unknown) => send(url, 'POST', typeof body === 'string' ? body : JSON.stringify(body));

/** Sends headers and `chunks` with node:http; `end` false leaves the body unfinished. */
function rawPost(url: string, options: { contentLength?: number; chunks: string[]; end: boolean }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...headersWithToken() };
    if (options.contentLength !== undefined) headers['content-length'] = options.contentLength;
    const req = request(url, { method: 'POST', headers }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (data += c));
      res.on('end', () => {
        req.destroy();
        try {
          resolve(parsed(res.statusCode ?? 0, res.headers, data));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
    // The server may close the socket once it has answered: only fail when no answer came.
    req.on('error', (err) => setTimeout(() => reject(err), 200));
    for (const chunk of options.chunks) req.write(chunk);
    if (options.end) req.end();
  });
}

function expectRpcError(answer: Answer, httpStatus: number, code: number): void {
  expect(answer.status, answer.text).to.equal(httpStatus);
  expect(answer.json, answer.text).to.be.an('object');
  expect(answer.json.jsonrpc).to.equal('2.0');
  expect(answer.json).to.not.have.property('result');
  expect(answer.json.error.code, answer.text).to.equal(code);
  expect(answer.json.error.message).to.be.a('string').and.not.equal('');
}

const rpc = (method: string, params?: unknown, id: unknown = 1) => ({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });

describe('MCP envelope over raw HTTP', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
    bearer = svc.token;
  });
  after(async () => svc.close());

  for (const path of ADDRESSES) {
    describe(`on ${path}`, () => {
      it('answers a well-formed tools/list (sanity of the raw client)', async () => {
        const answer = await post(`${svc.url}${path}`, rpc('tools/list', {}, 7));
        expect(answer.status).to.equal(200);
        expect(answer.json.id).to.equal(7);
        expect(answer.json.result.tools).to.be.an('array');
      });

      it('refuses unreadable JSON: HTTP 400, -32700', async () => {
        expectRpcError(await post(`${svc.url}${path}`, '{"jsonrpc":"2.0","id":1,"method":'), 400, -32700);
      });

      it('refuses a batch (JSON array): HTTP 400, -32600', async () => {
        const answer = await post(`${svc.url}${path}`, [rpc('tools/list', {}, 1), rpc('tools/list', {}, 2)]);
        expectRpcError(answer, 400, -32600);
        expect(answer.json.error.message).to.match(/lot|batch/i);
      });

      it('refuses an empty batch the same way', async () => {
        expectRpcError(await post(`${svc.url}${path}`, []), 400, -32600);
      });

      it('refuses an object without method: -32600, echoing the id', async () => {
        const answer = await post(`${svc.url}${path}`, { jsonrpc: '2.0', id: 42, params: {} });
        expectRpcError(answer, 400, -32600);
        expect(answer.json.id).to.equal(42);
        expect(answer.json.error.message).to.include('method');
      });

      it('refuses a JSON body that is not an object: -32600', async () => {
        expectRpcError(await post(`${svc.url}${path}`, '"tools/list"'), 400, -32600);
        expectRpcError(await post(`${svc.url}${path}`, 'null'), 400, -32600);
      });

      it('answers an unknown method with -32601', async () => {
        const answer = await post(`${svc.url}${path}`, rpc('foo/bar', {}, 3));
        expect(answer.status).to.equal(200);
        expect(answer.json.id).to.equal(3);
        expect(answer.json.error.code).to.equal(-32601);
      });

      for (const method of ['GET', 'DELETE']) {
        it(`answers ${method} with HTTP 405 and Allow: POST`, async () => {
          const res = await fetch(`${svc.url}${path}`, { method, headers: { accept: 'application/json, text/event-stream' } });
          const answer = parsed(res.status, res.headers, await res.text());
          expect(answer.status).to.equal(405);
          expect(res.headers.get('allow')).to.equal('POST');
          expect(answer.json.jsonrpc).to.equal('2.0');
          expect(answer.json.error.code).to.be.a('number');
          expect(answer.json.error.message).to.match(/POST/);
        });
      }

      it('answers tools/call with non-object arguments as a tool error, not a protocol error', async function () {
        const tool = servedTool(path);
        if (!tool) this.skip(); // this address serves no tool yet
        for (const args of [5, 'texte', [1, 2], null]) {
          const answer = await post(`${svc.url}${path}`, rpc('tools/call', { name: tool, arguments: args }, 9));
          expect(answer.status, JSON.stringify(args)).to.equal(200);
          expect(answer.json.id).to.equal(9);
          expect(answer.json).to.not.have.property('error');
          expect(answer.json.result.isError).to.equal(true);
          expect(answer.json.result.content[0].type).to.equal('text');
          expect(answer.json.result.content[0].text).to.match(/arguments/i);
          if (path === '/api/mcp/connectors') {
            expect(answer.json.result._meta['service/error']).to.include({ code: 'invalid_arguments' });
          } else {
            expect(answer.json.result).to.not.have.property('_meta');
          }
        }
      });

      it('refuses tools/call without a tool name: -32600', async () => {
        expectRpcError(await post(`${svc.url}${path}`, rpc('tools/call', { arguments: {} })), 400, -32600);
      });

      it('refuses a body not declared as JSON: HTTP 415', async () => {
        const res = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { ...headersWithToken(), 'content-type': 'text/plain' }, body: JSON.stringify(rpc('tools/list')) });
        const answer = parsed(res.status, res.headers, await res.text());
        expectRpcError(answer, 415, -32600);
      });
    });
  }

  it('refuses a body over 3 MiB: HTTP 413, -32600', async () => {
    const body = JSON.stringify(rpc('tools/list', { pad: 'x'.repeat(3 * 1024 * 1024) }));
    const answer = await post(`${svc.url}/api/mcp`, body);
    expectRpcError(answer, 413, -32600);
    expect(answer.json.error.message).to.match(/3 Mio/);
  });

  it('answers tools/call on a real tool with a result, not an error (sanity)', async () => {
    const answer = await post(`${svc.url}/api/mcp`, rpc('tools/call', { name: 'referentiel_departements', arguments: { query: 'finistere' } }, 11));
    expect(answer.status).to.equal(200);
    expect(answer.json.result.structuredContent.items[0].code).to.equal('29');
  });

  it('refuses an unknown tool even when its arguments are not an object: -32601', async () => {
    const answer = await post(`${svc.url}/api/mcp/connectors`, rpc('tools/call', { name: 'outil_inconnu', arguments: 5 }));
    expect(answer.json.error?.code, answer.text).to.equal(-32601);
  });

  it('refuses resources/read without a readable uri with -32602, in French', async () => {
    for (const params of [{}, { uri: 5 }]) {
      const answer = await post(`${svc.url}/api/mcp`, rpc('resources/read', params));
      expect(answer.json.error?.code, answer.text).to.equal(-32602);
      expect(answer.json.error.message).to.not.match(/invalid_type|expected/);
    }
  });

  it('answers an unknown method and malformed params in French, without the SDK prefix', async () => {
    const unknown = await post(`${svc.url}/api/mcp`, rpc('foo/bar', {}));
    expect(unknown.json.error.code).to.equal(-32601);
    expect(unknown.json.error.message).to.equal('Méthode inconnue : « foo/bar ».');
    const badInit = await post(`${svc.url}/api/mcp`, rpc('initialize', {}));
    expectRpcError(badInit, 400, -32600);
    expect(badInit.json.error.message).to.match(/protocolVersion/);
    const badCursor = await post(`${svc.url}/api/mcp`, rpc('tools/list', { cursor: 5 }));
    expectRpcError(badCursor, 400, -32600);
    const notServed = await post(`${svc.url}/api/mcp/connectors`, rpc('tools/call', { name: 'referentiel_cpv', arguments: {} }));
    expect(notServed.json.error.message).to.not.match(/^MCP error/);
  });

  it('refuses a client that does not accept both JSON and event streams with 406, in French', async () => {
    const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(rpc('tools/list', {})) });
    expect(res.status).to.equal(406);
    expect((await res.json()).error.message).to.match(/Accept/);
  });

  it('refuses readable JSON that is not a JSON-RPC 2.0 request with -32600 (not -32700), in French', async () => {
    for (const body of [
      { id: 1, method: 'tools/list' },
      { jsonrpc: '1.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: 5 },
      { jsonrpc: '2.0', id: null, method: 'tools/list' },
    ]) {
      const answer = await post(`${svc.url}/api/mcp`, body);
      expectRpcError(answer, 400, -32600);
      expect(answer.json.error.message).to.not.match(/Parse error/);
    }
  });
});

describe('MCP envelope under lowered limits', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ limits: { bodyBytes: 1024, bodyTimeoutMs: 300 } });
    bearer = svc.token;
  });
  after(async () => svc.close());

  it('refuses a declared body over the limit: HTTP 413, -32600', async () => {
    const answer = await post(`${svc.url}/api/mcp`, rpc('tools/list', { pad: 'x'.repeat(2048) }));
    expectRpcError(answer, 413, -32600);
  });

  it('refuses a streamed (chunked) body over the limit: HTTP 413, -32600', async () => {
    const body = JSON.stringify(rpc('tools/list', { pad: 'x'.repeat(2048) }));
    const answer = await rawPost(`${svc.url}/api/mcp/assistant`, { chunks: [body.slice(0, 600), body.slice(600)], end: true });
    expectRpcError(answer, 413, -32600);
  });

  it('reads a body just under the limit', async () => {
    const small = JSON.stringify(rpc('tools/list', { _meta: {} }));
    const answer = await post(`${svc.url}/api/mcp`, small + ' '.repeat(1000 - Buffer.byteLength(small)));
    expect(answer.status).to.equal(200);
    expect(answer.json.result.tools).to.be.an('array');
  });

  for (const path of ADDRESSES) {
    it(`refuses on ${path} a body not received in time: HTTP 408, -32600`, async () => {
      const body = JSON.stringify(rpc('tools/list', {}));
      const started = Date.now();
      const answer = await rawPost(`${svc.url}${path}`, { contentLength: body.length, chunks: [body.slice(0, Math.floor(body.length / 2))], end: false });
      expectRpcError(answer, 408, -32600);
      expect(Date.now() - started).to.be.below(1000);
      expect(answer.json.error.message).to.match(/non reçu/);
    });
  }
});
