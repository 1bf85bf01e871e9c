// A request writes one access-log line only when a transport noted its address (or it is /healthz), with exactly what was noted through noteCall.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import { collectingLogger } from '../helpers/service.js';
import Koa from 'koa';
import { createAccessLog, noteCall } from '../../src/http/access-log.js';

describe('access log', () => {
  let lines: Record<string, unknown>[] = [];
  let server: Server;
  let base: string;

  before(async () => {
    const collected = collectingLogger();
    lines = collected.lines;
    const app = new Koa();
    app.use(createAccessLog(collected.logger));
    app.use(async (ctx) => {
      if (ctx.path === '/noted') {
        noteCall(ctx, { address: 'rest', operation: 'premiere' });
        noteCall(ctx, { operation: 'seconde', accountId: 'compte-1', rpcMethod: undefined });
        noteCall(ctx, { rpcMethod: 'tools/call' });
      }
      if (ctx.path === '/no-address') noteCall(ctx, { operation: 'sans-adresse', accountId: 'compte-1' });
      ctx.status = 201;
      ctx.body = { ok: true };
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  async function linesOf(path: string): Promise<Record<string, unknown>[]> {
    lines.length = 0;
    await (await fetch(`${base}${path}`)).text();
    await new Promise((r) => setTimeout(r, 20));
    return lines.filter((l) => l.msg === 'appel').map(({ address, method, operation, rpc_method, status, account_id, duration_ms }) => {
      expect(duration_ms).to.be.a('number');
      return { address, method, operation, rpc_method, status, account_id };
    });
  }

  it('joins the notes of a request, a later value replacing an earlier one, an undefined one erasing nothing', async () => {
    expect(await linesOf('/noted')).to.deep.equal([{ address: 'rest', method: 'GET', operation: 'seconde', rpc_method: 'tools/call', status: 201, account_id: 'compte-1' }]);
  });

  it('writes no line for a request without an address', async () => {
    expect(await linesOf('/no-address')).to.deep.equal([]);
    expect(await linesOf('/other')).to.deep.equal([]);
  });

  it('writes the /healthz line with the path as address', async () => {
    expect(await linesOf('/healthz')).to.deep.equal([{ address: '/healthz', method: 'GET', operation: null, rpc_method: undefined, status: 201, account_id: null }]);
  });
});
