// Issue 16 (workspace isolation): a second organisation tries every id of the first (follow-ups, drafts, response files) over every workspace operation taking an id, on REST and MCP, and gets 404 not_found every time (the same message as an unknown id), and never sees the first's objects in a list.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Contract } from '../../../src/contract/runtime.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { call, seedPublicRecords, type Via } from './fixtures.js';

const contract = Contract.load();

/** Every workspace operation that names an object by id (`id`, or `dossier_id` for a response file), with the arguments to try it. */
const BY_ID: Record<string, (id: string) => Record<string, unknown>> = {
  'suivis.update:id': (id) => ({ id, version: 1, notes: 'intrusion' }),
  'suivis.delete:id': (id) => ({ id }),
  'brouillons.update:id': (id) => ({ id, version: 1, contenu: 'intrusion' }),
  'brouillons.delete:id': (id) => ({ id }),
  'brouillons.list:id': (id) => ({ id }),
  'brouillons.create:dossier_id': (id) => ({ nature: 'autre', titre: 'intrusion', contenu: 'x', dossier_id: id }),
  'dossiers.get:id': (id) => ({ id }),
  'dossiers.update:id': (id) => ({ id, version: 1, titre: 'intrusion' }),
  'dossiers.export:id': (id) => ({ id }),
};
/** Filters naming another organisation's object: nothing found, as for an unknown id. */
const FILTERS: Record<string, (id: string) => Record<string, unknown>> = {
  'brouillons.list:dossier_id': (id) => ({ dossier_id: id }),
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
    const file = (await svc.rest('dossiers.create', { marche_id: records.marcheId })).json.dossier;
    ids.push(file.id);
    for (const [key, extra] of [['marche_id', records.marcheId], ['dossier_id', file.id]] as const) {
      const { json } = await svc.rest('brouillons.create', { nature: 'memoire_technique', titre: 'Secret', contenu: 'secret', [key]: extra });
      ids.push(json.brouillon.id);
    }
    const account = await svc.createAccount({ organisation: 'Concurrent' });
    // The sweep makes well over a minute's worth of calls: limits out of reach, as for the first organisation.
    await setOrganisationPlan(svc.db, 'Concurrent', { callsPerMinute: 1_000_000, callsPerDay: 10_000_000, filesPerDay: 100_000 });
    const token = await svc.tokenFor(account);
    other = { token, mcp: await mcpClient(`${svc.url}/api/mcp`, token) };
  });
  after(async () => {
    await other.mcp.close();
    await svc.close();
  });

  it('covers every workspace operation of the contract that takes an id', () => {
    const workspace = [...contract.operations.keys()].filter((name) => /^(suivis|brouillons|dossiers)\./.test(name));
    const withId = workspace.flatMap((name) => {
      const properties = Object.keys((contract.operation(name)?.inputSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      return properties.filter((p) => p === 'id' || p === 'dossier_id').map((p) => `${name}:${p}`);
    });
    expect(withId.sort()).to.deep.equal([...Object.keys(BY_ID), ...Object.keys(FILTERS)].sort());
  });

  for (const via of ['rest', 'mcp'] as Via[]) {
    it(`answers 404 to every id of the first organisation over ${via}, like an unknown id`, async () => {
      for (const [key, args] of Object.entries(BY_ID)) {
        const operation = key.split(':')[0] as string;
        const unknown = await call(svc, via, operation, args(randomUUID()), other);
        for (const id of ids) {
          const r = await call(svc, via, operation, args(id), other);
          expect(r.ok, `${operation} ${id}`).to.equal(false);
          if (via === 'rest') expect([r.status, r.code], operation).to.deep.equal([404, 'not_found']);
          expect(r.message, operation).to.equal(unknown.message);
        }
      }
      for (const [key, args] of Object.entries(FILTERS)) {
        for (const id of ids) {
          const r = await call(svc, via, key.split(':')[0] as string, args(id), other);
          expect([r.ok, r.body.items], key).to.deep.equal([true, []]);
        }
      }
      for (const list of ['suivis.list', 'brouillons.list', 'dossiers.list']) {
        const listed = await call(svc, via, list, {}, other);
        expect([listed.body.total, listed.body.items], list).to.deep.equal([0, []]);
      }
      const tagged = await call(svc, via, 'suivis.list', { tag: 'secret' }, other);
      expect(tagged.body.total).to.equal(0);
    });
  }

  it('left the first organisation objects untouched', async () => {
    const { json } = await svc.rest('suivis.list', {});
    expect(json.items.map((s: any) => s.version)).to.deep.equal([1, 1, 1, 1]);
    expect(json.items.map((s: any) => s.id).sort()).to.deep.equal(ids.slice(0, 4).sort());
    const drafts = (await svc.rest('brouillons.list', {})).json.items;
    expect(drafts.map((d: any) => [d.version, d.titre, d.contenu])).to.deep.equal([
      [1, 'Secret', 'secret'],
      [1, 'Secret', 'secret'],
    ]);
    const files = (await svc.rest('dossiers.list', {})).json.items;
    expect(files.map((f: any) => f.version)).to.deep.equal([1]);
    expect(await svc.db('drafts').where('title', 'intrusion')).to.deep.equal([]);
  });
});
