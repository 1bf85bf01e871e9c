// Each MCP call writes one access-log line naming its address, JSON-RPC method, tool (once the tool call ran), status and account; refusals before the SDK name what was known then.
import { expect } from 'chai';
import { collectingLogger, startTestService, type TestService } from '../../helpers/service.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params !== undefined ? { params } : {}) });

describe('MCP access-log lines', () => {
  let svc: TestService;
  let writeOnly: string;
  let lines: Record<string, unknown>[] = [];

  before(async () => {
    const collected = collectingLogger();
    lines = collected.lines;
    svc = await startTestService({ logger: collected.logger });
    writeOnly = await svc.tokenFor(svc.account, 'mcp:write');
  });
  after(async () => svc.close());

  /** The one access-log line of one request, without its duration (checked to be a number). */
  async function lineOf(path: string, init: RequestInit): Promise<{ status: number; line: Record<string, unknown> }> {
    lines.length = 0;
    const res = await fetch(`${svc.url}${path}`, init);
    await res.text();
    await new Promise((r) => setTimeout(r, 20));
    const calls = lines.filter((l) => l.msg === 'appel');
    expect(calls, JSON.stringify(lines)).to.have.length(1);
    const { duration_ms, time: _time, pid: _pid, hostname: _hostname, level: _level, msg: _msg, ...line } = calls[0] as Record<string, unknown>;
    expect(duration_ms).to.be.a('number');
    return { status: res.status, line };
  }

  const post = (token: string | null, body: string, headers: Record<string, string> = {}): RequestInit => ({
    method: 'POST',
    headers: { ...HEADERS, ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });

  it('a tools/call that ran: address, rpc_method and the tool as operation', async () => {
    const { line } = await lineOf('/api/mcp', post(svc.token, rpc('tools/call', { name: 'referentiel_sources', arguments: {} })));
    expect(line).to.deep.equal({ address: 'full', method: 'POST', operation: 'referentiel_sources', rpc_method: 'tools/call', status: 200, account_id: svc.account.userId });
  });

  it('a tools/call refused for its scope: the HTTP 403 of the refusal', async () => {
    const { status, line } = await lineOf('/api/mcp/assistant', post(writeOnly, rpc('tools/call', { name: 'referentiel_sources', arguments: {} })));
    expect(status).to.equal(403);
    expect(line).to.deep.equal({ address: 'assistant', method: 'POST', operation: 'referentiel_sources', rpc_method: 'tools/call', status: 403, account_id: svc.account.userId });
  });

  it('tools/list and a notification: the method, no operation', async () => {
    expect((await lineOf('/api/mcp/connectors', post(svc.token, rpc('tools/list')))).line).to.deep.equal({
      address: 'connectors',
      method: 'POST',
      operation: null,
      rpc_method: 'tools/list',
      status: 200,
      account_id: svc.account.userId,
    });
    expect((await lineOf('/api/mcp', post(svc.token, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })))).line).to.deep.equal({
      address: 'full',
      method: 'POST',
      operation: null,
      rpc_method: 'notifications/initialized',
      status: 202,
      account_id: svc.account.userId,
    });
  });

  it('tools/call with arguments that are not an object: the tool, answered before the SDK (no rpc_method)', async () => {
    const { line } = await lineOf('/api/mcp', post(svc.token, rpc('tools/call', { name: 'referentiel_sources', arguments: 5 })));
    expect(line).to.deep.equal({ address: 'full', method: 'POST', operation: 'referentiel_sources', status: 200, account_id: svc.account.userId });
  });

  it('a tools/call the SDK refuses before its handler runs names no operation', async () => {
    const { status, line } = await lineOf('/api/mcp', post(svc.token, rpc('tools/call', { name: 'referentiel_sources', arguments: {} }), { 'mcp-protocol-version': '1999-01-01' }));
    expect(status).to.equal(400);
    expect(line).to.deep.equal({ address: 'full', method: 'POST', operation: null, rpc_method: 'tools/call', status: 400, account_id: svc.account.userId });
  });

  it('envelope and transport refusals: what was known when refused', async () => {
    expect((await lineOf('/api/mcp', post(svc.token, rpc('tools/call', { name: 'outil_inconnu', arguments: {} })))).line).to.deep.equal({
      address: 'full',
      method: 'POST',
      operation: null,
      status: 200,
      account_id: svc.account.userId,
    });
    expect((await lineOf('/api/mcp/connectors', post(null, rpc('tools/list')))).line).to.deep.equal({ address: 'connectors', method: 'POST', operation: null, status: 401, account_id: null });
    expect((await lineOf('/api/mcp', { method: 'GET', headers: { accept: HEADERS.accept } })).line).to.deep.equal({ address: 'full', method: 'GET', operation: null, status: 405, account_id: null });
  });

  it('a browser origin refused: the path as address', async () => {
    const { line } = await lineOf('/api/mcp', post(svc.token, rpc('tools/list'), { origin: 'https://ailleurs.exemple.fr' }));
    expect(line).to.deep.equal({ address: '/api/mcp', method: 'POST', operation: null, status: 403, account_id: null });
  });

  it('REST lines beside them: the operation once routed, the account once authenticated; /healthz too', async () => {
    const json = { 'content-type': 'application/json' };
    expect((await lineOf('/api/mcp/v1/referentiels.sources', { method: 'POST', headers: json, body: '{}' })).line).to.deep.equal({
      address: 'rest',
      method: 'POST',
      operation: 'referentiels.sources',
      status: 401,
      account_id: null,
    });
    expect((await lineOf('/api/mcp/v1/referentiels.sources', { method: 'GET', headers: { authorization: `Bearer ${svc.token}` } })).line).to.deep.equal({
      address: 'rest',
      method: 'GET',
      operation: null,
      status: 405,
      account_id: null,
    });
    expect((await lineOf('/healthz', {})).line).to.deep.equal({ address: '/healthz', method: 'GET', operation: null, status: 200, account_id: null });
  });
});
