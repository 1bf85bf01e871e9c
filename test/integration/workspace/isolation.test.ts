// Issue 16 (workspace isolation): a second organisation tries every id of the first over every workspace operation taking an id, on REST and MCP, and gets 404 not_found every time (the same message as an unknown id), and never sees the first's objects in a list.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Contract } from '../../../src/contract/runtime.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords, type Via } from './fixtures.js';

const contract = Contract.load();

/** Every workspace operation that names an object by id, with the arguments to try it. */
const BY_ID: Record<string, (id: string) => Record<string, unknown>> = {
  'suivis.update': (id) => ({ id, version: 1, notes: 'intrusion' }),
  'suivis.delete': (id) => ({ id }),
};

describe('workspace: isolation between organisations', function () {
  this.timeout(30000);
  let svc: TestService;
  let other: { token: string; mcp: Client };
  const ids: string[] = [];

  before(async () => {
    svc = await startTestService();
    const records = await seedPublicRecords(svc.db);
    for (const cible of [
      { type: 'marche', id: records.marcheId },
      { type: 'dce', id: records.dceId },
      { type: 'entreprise', id: records.siren },
      { type: 'acheteur', id: records.buyerId },
    ]) {
      const { json } = await svc.rest('suivis.create', { cible, tags: ['secret'] });
      ids.push(json.suivi.id);
    }
    const account = await svc.createAccount({ organisation: 'Concurrent' });
    const token = await svc.tokenFor(account);
    other = { token, mcp: await mcpClient(`${svc.url}/api/mcp`, token) };
  });
  after(async () => {
    await other.mcp.close();
    await svc.close();
  });

  it('covers every workspace operation of the contract that takes an id', () => {
    const workspace = [...contract.operations.keys()].filter((name) => /^(suivis|brouillons|dossiers)\./.test(name));
    const withId = workspace.filter((name) => (contract.operation(name)?.inputSchema as { required?: string[] } | undefined)?.required?.includes('id'));
    expect(withId.sort()).to.deep.equal(Object.keys(BY_ID).sort());
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    it(`answers 404 to every id of the first organisation over ${via}, like an unknown id`, async () => {
      for (const [operation, args] of Object.entries(BY_ID)) {
        const unknown = await call(svc, via, operation, args(randomUUID()), other);
        for (const id of ids) {
          const r = await call(svc, via, operation, args(id), other);
          expect(r.ok, `${operation} ${id}`).to.equal(false);
          if (via === 'rest') expect([r.status, r.code], operation).to.deep.equal([404, 'not_found']);
          expect(r.message, operation).to.equal(unknown.message);
        }
      }
      const listed = await call(svc, via, 'suivis.list', {}, other);
      expect(listed.body.items).to.deep.equal([]);
      const tagged = await call(svc, via, 'suivis.list', { tag: 'secret' }, other);
      expect(tagged.body.total).to.equal(0);
    });
  }

  it('left the first organisation objects untouched', async () => {
    const { json } = await svc.rest('suivis.list', {});
    expect(json.items.map((s: any) => s.version)).to.deep.equal([1, 1, 1, 1]);
    expect(json.items.map((s: any) => s.id).sort()).to.deep.equal([...ids].sort());
  });
});
