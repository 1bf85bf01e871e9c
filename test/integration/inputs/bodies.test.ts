// One body rule for REST and MCP: application/json in UTF-8 only (else 415), strict UTF-8 (else 400 invalid_json / -32700), the same French message on both; a bad MCP-Protocol-Version is a French -32000.
import { expect } from 'chai';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const ACCEPT = 'application/json, text/event-stream';
const LEAK = /(\bat \S+:\d+|node_modules|\/work\/|\.ts:\d|Bad Request|Unsupported|Parse error)/;

interface BodyCase {
  name: string;
  contentType: string | null;
  /** The REST arguments (referentiels.naf); MCP sends them as a tools/call of referentiel_naf. */
  args: Buffer;
  rest: { status: number; code: string };
  mcp: { status: number; code: number };
  message: RegExp;
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');
/** `{"query":"<bytes>"}` with raw bytes inside the string. */
const withBytes = (...bytes: number[]) => Buffer.concat([utf8('{"query":"to'), Buffer.from(bytes), utf8('iture"}')]);

const UNSUPPORTED = { rest: { status: 415, code: 'unsupported_media_type' }, mcp: { status: 415, code: -32600 }, message: /^Type de contenu non pris en charge : envoyer application\/json, sans charset ou avec charset=utf-8\.$/ };
const NOT_UTF8 = { rest: { status: 400, code: 'invalid_json' }, mcp: { status: 400, code: -32700 }, message: /^Corps illisible : il n'est pas encodé en UTF-8 valide\.$/ };

const refusals: BodyCase[] = [
  { name: 'application/merge-patch+json', contentType: 'application/merge-patch+json', args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'application/vnd.api+json', contentType: 'application/vnd.api+json', args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'charset=latin1', contentType: 'application/json; charset=latin1', args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'charset=utf-16', contentType: 'application/json; charset=utf-16', args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'text/plain', contentType: 'text/plain', args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'no content type', contentType: null, args: utf8('{"query":"toiture"}'), ...UNSUPPORTED },
  { name: 'a latin-1 byte (é as 0xE9)', contentType: 'application/json', args: withBytes(0xe9), ...NOT_UTF8 },
  { name: 'a lone continuation byte', contentType: 'application/json', args: withBytes(0x80), ...NOT_UTF8 },
  { name: 'an overlong encoding of "/"', contentType: 'application/json', args: withBytes(0xc0, 0xaf), ...NOT_UTF8 },
  { name: 'a surrogate encoded in UTF-8 (CESU)', contentType: 'application/json', args: withBytes(0xed, 0xa0, 0x80), ...NOT_UTF8 },
  { name: 'a truncated sequence', contentType: 'application/json', args: withBytes(0xe2, 0x82), ...NOT_UTF8 },
  { name: 'invalid UTF-8 declared charset=utf-8', contentType: 'application/json; charset=utf-8', args: withBytes(0xff), ...NOT_UTF8 },
];

const accepted: { name: string; contentType: string; args: Buffer }[] = [
  { name: 'application/json', contentType: 'application/json', args: utf8('{"query":"étanchéité"}') },
  { name: 'charset=utf-8', contentType: 'application/json; charset=utf-8', args: utf8('{"query":"étanchéité"}') },
  { name: 'charset="UTF-8", upper case type', contentType: 'Application/JSON;charset="UTF-8"', args: utf8('{"query":"étanchéité"}') },
  { name: 'another parameter', contentType: 'application/json; version=1', args: utf8('{"query":"étanchéité"}') },
  { name: 'four-byte characters', contentType: 'application/json', args: utf8('{"query":"toiture 🏠"}') },
];

describe('request bodies on both transports', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  async function viaRest(contentType: string | null, args: Buffer) {
    const headers: Record<string, string> = { authorization: `Bearer ${svc.token}` };
    if (contentType) headers['content-type'] = contentType;
    const res = await fetch(`${svc.url}/api/mcp/v1/referentiels.naf`, { method: 'POST', headers, body: new Uint8Array(args) });
    return { status: res.status, json: (await res.json()) as any };
  }

  async function viaMcp(contentType: string | null, args: Buffer, extra: Record<string, string> = {}) {
    const headers: Record<string, string> = { accept: ACCEPT, authorization: `Bearer ${svc.token}`, ...extra };
    if (contentType) headers['content-type'] = contentType;
    const body = Buffer.concat([utf8('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"referentiel_naf","arguments":'), args, utf8('}}')]);
    const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers, body: new Uint8Array(body) });
    return { status: res.status, json: (await res.json()) as any };
  }

  for (const c of refusals) {
    it(`refuses ${c.name}: REST ${c.rest.status} ${c.rest.code}, MCP HTTP ${c.mcp.status} ${c.mcp.code}, one French message`, async () => {
      const rest = await viaRest(c.contentType, c.args);
      expect(rest.status, JSON.stringify(rest.json)).to.equal(c.rest.status);
      expect(rest.json.error.code).to.equal(c.rest.code);
      expect(rest.json.error.message).to.match(c.message);
      const mcp = await viaMcp(c.contentType, c.args);
      expect(mcp.status, JSON.stringify(mcp.json)).to.equal(c.mcp.status);
      expect(mcp.json.jsonrpc).to.equal('2.0');
      expect(mcp.json.error.code).to.equal(c.mcp.code);
      expect(mcp.json.error.message).to.equal(rest.json.error.message).and.not.match(LEAK);
    });
  }

  for (const c of accepted) {
    it(`reads ${c.name} on both`, async () => {
      const rest = await viaRest(c.contentType, c.args);
      expect(rest.status, JSON.stringify(rest.json)).to.equal(200);
      const mcp = await viaMcp(c.contentType, c.args);
      expect(mcp.status).to.equal(200);
      expect(mcp.json.result.structuredContent).to.deep.equal(rest.json);
    });
  }

  describe('MCP-Protocol-Version', () => {
    const list = (id: number) => utf8(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }));

    async function post(body: Buffer, version: string | null) {
      const headers: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json', authorization: `Bearer ${svc.token}` };
      if (version !== null) headers['mcp-protocol-version'] = version;
      const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers, body: new Uint8Array(body) });
      return { status: res.status, json: (await res.json()) as any };
    }

    for (const version of ['1999-01-01', 'latest', '2025-11-25x', 'x'.repeat(500)]) {
      it(`refuses ${version.slice(0, 20)} as the SDK would (HTTP 400, -32000), in French, the id echoed`, async () => {
        const { status, json } = await post(list(12), version);
        expect(status).to.equal(400);
        expect(json.id).to.equal(12);
        expect(json.error.code).to.equal(-32000);
        expect(json.error.message).to.match(/^Version du protocole MCP non prise en charge : « .{1,81} » \(en-tête MCP-Protocol-Version\)\. Versions acceptées : /);
        for (const supported of SUPPORTED_PROTOCOL_VERSIONS) expect(json.error.message).to.include(supported);
        expect(json.error.message).to.not.match(LEAK);
      });
    }

    it('refuses it on a tools/call before the call runs (and before arguments that are not an object)', async () => {
      const call = await post(utf8('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"referentiel_naf","arguments":{}}}'), '2099-01-01');
      expect(call.status).to.equal(400);
      expect(call.json.error.code).to.equal(-32000);
      const odd = await post(utf8('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"referentiel_naf","arguments":7}}'), '2099-01-01');
      expect(odd.status).to.equal(400);
      expect(odd.json.error.code).to.equal(-32000);
    });

    it('accepts every version the SDK supports, and no header at all', async () => {
      for (const version of [...SUPPORTED_PROTOCOL_VERSIONS, null]) {
        const { status, json } = await post(list(1), version);
        expect(status, String(version)).to.equal(200);
        expect(json.result.tools).to.be.an('array');
      }
    });

    it('does not judge the header on initialize (the version is negotiated there), as the SDK', async () => {
      const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
      const { status, json } = await post(utf8(JSON.stringify(init)), '1999-01-01');
      expect(status).to.equal(200);
      expect(json.result.protocolVersion).to.equal('2025-06-18');
    });
  });
});
