// Issue 5: alertes.create / alertes.delete / alertes.list and the MCP tool service_alerte follow every rule of the spec's Alert and alertes.* sections, with the same answers and the same French errors on REST and MCP, on both databases.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Contract } from '../../../src/contract/runtime.js';
import { createAccount, setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import type { Plan, Role } from '../../../src/access/caller.js';
import { hashPassword } from '../../../src/platform/passwords.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const contract = Contract.load();
const OPERATIONS = { add: 'alertes.create', remove: 'alertes.delete', list: 'alertes.list' } as const;
type Action = keyof typeof OPERATIONS;
type Via = 'rest' | 'mcp';
const TRANSPORTS: Via[] = ['rest', 'mcp'];

const ALL_SOURCES = ['marche', 'dce', 'attribution', 'permis', 'reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact', 'dvf'];
const ALERT_FIELDS = ['id', 'name', 'query', 'frequency', 'sources', 'sources_surveillees', 'departements', 'montant_min', 'is_active', 'kind', 'evaluee', 'created_at'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const HIGH_LIMITS = { callsPerMinute: 100_000, callsPerDay: 1_000_000 };

/** Someone calling the service: an account, its token and its MCP client on /api/mcp. */
interface Actor {
  account: TestAccount;
  token: string;
  organisation: string | null;
  mcp: Client;
}

/** What a call answered, whatever the transport. REST: its status and error code; MCP: a tool error has status 200 and no code. */
interface Outcome {
  ok: boolean;
  status: number;
  code: string | null;
  message: string;
  body: any;
}

/** The Paris UTC offset of an instant (+01:00 or +02:00), read from Intl independently of the service. */
function parisOffset(at: Date): string {
  const name = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', timeZoneName: 'shortOffset' }).formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? '';
  const hours = /GMT\+(\d+)/.exec(name)?.[1];
  return `+${String(hours).padStart(2, '0')}:00`;
}

const unique = () => randomBytes(3).toString('hex');

/** The warnings of the alert's rules, without the one about sources holding no data yet (this test's database is empty). */
const ruleWarnings = (warnings: string[]) => warnings.filter((w) => !/aucune donnée dans le service/.test(w));

describe('alerts (issue 5)', function () {
  this.timeout(60_000);
  let svc: TestService;
  const clients: Client[] = [];

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await svc?.close();
  });

  /** An account in `organisation` (created if new, with limits no test reaches), with its token and MCP client. */
  async function actor(organisation: string | null, options: { role?: Role; plan?: Plan; scope?: string } = {}): Promise<Actor> {
    const account = await svc.createAccount({ organisation, role: options.role, plan: options.plan });
    if (organisation) await setOrganisationPlan(svc.db, organisation, HIGH_LIMITS);
    const token = await svc.tokenFor(account, options.scope ?? 'mcp:read mcp:write');
    const mcp = await mcpClient(`${svc.url}/api/mcp`, token);
    clients.push(mcp);
    return { account, token, organisation, mcp };
  }

  async function call(via: Via, who: Actor, action: Action, args: Record<string, unknown> = {}): Promise<Outcome> {
    if (via === 'rest') {
      const r = await svc.rest(OPERATIONS[action], args, { token: who.token });
      if (r.status === 200) {
        expect(contract.outputProblem(OPERATIONS[action], r.json), 'REST answer conforms to the contract').to.equal(null);
        return { ok: true, status: 200, code: null, message: '', body: r.json };
      }
      return { ok: false, status: r.status, code: r.json?.error?.code ?? null, message: r.json?.error?.message ?? '', body: r.json };
    }
    const result = await who.mcp.callTool({ name: 'service_alerte', arguments: { action, ...args } });
    const text = (result.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? '';
    if (result.isError) return { ok: false, status: 200, code: null, message: text, body: result };
    expect(contract.outputProblem(OPERATIONS[action], result.structuredContent), 'MCP structuredContent conforms to the contract').to.equal(null);
    return { ok: true, status: 200, code: null, message: '', body: result.structuredContent };
  }

  function ok(o: Outcome): any {
    expect(o.ok, `${o.status} ${o.code} ${o.message}`).to.equal(true);
    return o.body;
  }

  /** A refusal: on REST the status and code; on MCP a tool error (isError). Returns the message. */
  function refused(o: Outcome, via: Via, status: number, code: string): string {
    expect(o.ok, JSON.stringify(o.body)).to.equal(false);
    if (via === 'rest') {
      expect(o.status, JSON.stringify(o.body)).to.equal(status);
      expect(o.code).to.equal(code);
      expect(o.body.api_contract_version).to.equal('3.0.0');
    } else {
      expect(o.body.isError).to.equal(true);
    }
    expect(o.message).to.be.a('string').and.not.empty;
    return o.message;
  }

  /** The same refusal on REST then MCP, with the same French message; returns it. */
  async function refusedOnBoth(who: Actor, action: Action, args: Record<string, unknown>, status: number, code: string, mcpWho: Actor = who): Promise<string> {
    const viaRest = refused(await call('rest', who, action, args), 'rest', status, code);
    const viaMcp = refused(await call('mcp', mcpWho, action, args), 'mcp', status, code);
    expect(viaMcp, 'same message on MCP as on REST').to.equal(viaRest);
    return viaRest;
  }

  /** A raw tools/call on /api/mcp (the SDK client throws on HTTP 403): HTTP status and JSON-RPC body. */
  async function rawToolCall(token: string, args: Record<string, unknown>): Promise<{ status: number; json: any }> {
    const res = await fetch(`${svc.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'service_alerte', arguments: args } }),
    });
    return { status: res.status, json: await res.json() };
  }

  async function dbAlerts(organisationId: string | null): Promise<Record<string, any>[]> {
    return svc.db('alerts').where({ organisation_id: organisationId });
  }

  async function alertCount(organisationId: string | null): Promise<{ rows: number; counter: number }> {
    const rows = (await dbAlerts(organisationId)).length;
    const org = await svc.db('organisations').where({ id: organisationId }).first('alert_count');
    return { rows, counter: Number(org?.alert_count) };
  }

  const couverture = { name: 'Couverture Bretagne', query: 'couverture, toiture', sources: ['marche', 'attribution'], departements: ['22', '29', '35', '56'], frequency: 'daily' };

  for (const via of TRANSPORTS) {
    describe(`create, replay, list and delete on ${via.toUpperCase()}`, () => {
      let me: Actor;
      before(async () => {
        me = await actor(`Alertes A ${via} ${unique()}`);
      });

      it('creates: action add, created, not unchanged, the full alert and the warnings', async () => {
        const before = Date.now();
        const body = ok(await call(via, me, 'add', couverture));
        expect(Object.keys(body).sort()).to.deep.equal(['action', 'alerte', 'created', 'unchanged', 'warnings']);
        expect(body.action).to.equal('add');
        expect(body.created).to.equal(true);
        expect(body.unchanged).to.equal(false);
        expect(body.warnings).to.be.an('array');
        const a = body.alerte;
        expect(Object.keys(a).sort()).to.deep.equal([...ALERT_FIELDS].sort());
        expect(a.id).to.match(UUID);
        expect(a).to.deep.include({
          name: 'Couverture Bretagne',
          query: 'couverture, toiture',
          frequency: 'daily',
          sources: ['marche', 'attribution'],
          sources_surveillees: ['marche', 'attribution'],
          departements: ['22', '29', '35', '56'],
          montant_min: null,
          is_active: true,
          kind: 'mots_cles',
          evaluee: 'jamais',
        });
        expect(a.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+0[12]:00$/);
        const at = new Date(a.created_at);
        expect(a.created_at.endsWith(parisOffset(at)), `${a.created_at} carries the Paris offset`).to.equal(true);
        expect(at.getTime()).to.be.within(before - 2000, Date.now() + 1000);
        // The stored row is the organisation's, written by the caller.
        const [row] = await dbAlerts(me.account.organisationId);
        expect(row?.id).to.equal(a.id);
        expect(row?.created_by).to.equal(me.account.userId);
      });

      it('applies the defaults: all ten sources, daily, no departments (attribution and dvf not watched, with a warning each)', async () => {
        const body = ok(await call(via, me, 'add', { name: 'Défauts', query: 'charpente' }));
        expect(body.alerte.sources).to.deep.equal(ALL_SOURCES);
        expect(body.alerte.sources_surveillees).to.deep.equal(ALL_SOURCES.filter((s) => s !== 'attribution' && s !== 'dvf'));
        expect(body.alerte.frequency).to.equal('daily');
        expect(body.alerte.departements).to.deep.equal([]);
        expect(ruleWarnings(body.warnings)).to.have.length(2);
        expect(body.warnings.some((w: string) => w.includes('« attribution »'))).to.equal(true);
        expect(body.warnings.some((w: string) => w.includes('« dvf »'))).to.equal(true);
      });

      it('replays the same name and the same criteria: created false, unchanged true, the same alert, no duplicate', async () => {
        const first = ok(await call(via, me, 'list')).items.find((a: any) => a.name === 'Couverture Bretagne');
        // Same criteria written differently: alternatives in another order, departments reordered, the defaults written out.
        const again = ok(await call(via, me, 'add', { ...couverture, query: ' Toiture ,couverture ', departements: ['56', '35', '29', '22', '35'], sources: ['attribution', 'marche'] }));
        expect(again.action).to.equal('add');
        expect(again.created).to.equal(false);
        expect(again.unchanged).to.equal(true);
        expect(again.alerte).to.deep.equal(first);
        const list = ok(await call(via, me, 'list'));
        expect(list.items.filter((a: any) => a.name === 'Couverture Bretagne')).to.have.length(1);
        expect((await dbAlerts(me.account.organisationId)).filter((r) => r.name === 'Couverture Bretagne')).to.have.length(1);
      });

      it('refuses the same name with other criteria: 409 conflict telling to delete and recreate', async () => {
        const existing = ok(await call(via, me, 'list')).items.find((a: any) => a.name === 'Couverture Bretagne');
        const message = refused(await call(via, me, 'add', { ...couverture, frequency: 'weekly' }), via, 409, 'conflict');
        expect(message).to.include('Couverture Bretagne');
        expect(message).to.match(/supprimer/i);
        expect(message).to.match(/recréer/i);
        expect(message).to.include(existing.id);
        const list = ok(await call(via, me, 'list'));
        expect(list.items.filter((a: any) => a.name === 'Couverture Bretagne')).to.deep.equal([existing]);
      });

      it('lists the alerts newest first, total = number of items', async () => {
        const names = ['Liste 1', 'Liste 2', 'Liste 3'];
        for (const name of names) ok(await call(via, me, 'add', { name, query: 'plomberie', sources: ['marche'] }));
        const list = ok(await call(via, me, 'list'));
        expect(Object.keys(list).sort()).to.deep.equal(['action', 'items', 'total']);
        expect(list.action).to.equal('list');
        expect(list.total).to.equal(list.items.length);
        expect(list.items.map((a: any) => a.name)).to.deep.equal(['Liste 3', 'Liste 2', 'Liste 1', 'Défauts', 'Couverture Bretagne']);
        for (const a of list.items) expect(Object.keys(a).sort()).to.deep.equal([...ALERT_FIELDS].sort());
        const stamps = list.items.map((a: any) => new Date(a.created_at).getTime());
        expect(stamps).to.deep.equal([...stamps].sort((x, y) => y - x));
      });

      it('deletes: removed true, then removed false; an unknown UUID is removed false', async () => {
        const target = ok(await call(via, me, 'list')).items.find((a: any) => a.name === 'Liste 2');
        const first = ok(await call(via, me, 'remove', { id: target.id }));
        expect(first).to.deep.equal({ action: 'remove', removed: true, id: target.id });
        const again = ok(await call(via, me, 'remove', { id: target.id }));
        expect(again).to.deep.equal({ action: 'remove', removed: false, id: target.id });
        const unknown = '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b';
        expect(ok(await call(via, me, 'remove', { id: unknown }))).to.deep.equal({ action: 'remove', removed: false, id: unknown });
        const list = ok(await call(via, me, 'list'));
        expect(list.items.map((a: any) => a.name)).to.not.include('Liste 2');
        expect(list.total).to.equal(4);
        expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 4, counter: 4 });
      });
      it('deletes an alert given its id in capitals, or refuses the id, but never answers removed false for it', async () => {
        const target = ok(await call(via, me, 'add', { name: 'Majuscules', query: 'couverture' })).alerte;
        const o = await call(via, me, 'remove', { id: target.id.toUpperCase() });
        const still = ok(await call(via, me, 'list')).items.some((a: any) => a.id === target.id);
        if (o.ok) {
          expect(o.body.removed).to.equal(true);
          expect(still).to.equal(false);
        } else {
          refused(o, via, 400, 'invalid_arguments');
          expect(still).to.equal(true);
        }
      });

      it('recreates under the same name after a delete, with the new criteria', async () => {
        const old = ok(await call(via, me, 'list')).items.find((a: any) => a.name === 'Couverture Bretagne');
        expect(ok(await call(via, me, 'remove', { id: old.id })).removed).to.equal(true);
        const body = ok(await call(via, me, 'add', { ...couverture, frequency: 'weekly' }));
        expect(body.created).to.equal(true);
        expect(body.alerte.id).to.not.equal(old.id);
        expect(body.alerte.frequency).to.equal('weekly');
      });
    });
  }

  describe('same answers on REST and MCP', () => {
    let me: Actor;
    before(async () => {
      me = await actor(`Alertes mêmes réponses ${unique()}`);
    });

    it('answers a replay, a list and a delete identically in structuredContent and on REST', async () => {
      const created = ok(await call('mcp', me, 'add', { name: 'Isolation', query: 'isolation, ITE', sources: ['marche', 'dce', 'dvf'], departement: '44', montant_min: 20000 }));
      expect(created.created).to.equal(true);
      const replayRest = ok(await call('rest', me, 'add', { name: 'Isolation', query: 'ite,isolation', sources: ['dvf', 'dce', 'marche'], departement: '44', montant_min: 20000 }));
      const replayMcp = ok(await call('mcp', me, 'add', { name: 'Isolation', query: 'ITE , Isolation', sources: ['marche', 'dce', 'dvf'], departement: '44', montant_min: 20000 }));
      expect(replayRest).to.deep.equal(replayMcp);
      expect(replayRest).to.deep.equal({ ...created, created: false, unchanged: true });
      expect(ok(await call('rest', me, 'list'))).to.deep.equal(ok(await call('mcp', me, 'list')));
      expect(ok(await call('rest', me, 'remove', { id: created.alerte.id }))).to.deep.equal({ action: 'remove', removed: true, id: created.alerte.id });
      expect(ok(await call('mcp', me, 'remove', { id: created.alerte.id }))).to.deep.equal({ action: 'remove', removed: false, id: created.alerte.id });
      expect(ok(await call('mcp', me, 'list'))).to.deep.equal({ action: 'list', total: 0, items: [] });
    });

    it('gives a readable text beside structuredContent on MCP', async () => {
      const result = await me.mcp.callTool({ name: 'service_alerte', arguments: { action: 'list' } });
      expect(result.isError).to.not.equal(true);
      expect((result.content as { type: string; text: string }[])[0]?.type).to.equal('text');
    });

    it('refuses on MCP a missing or unknown action as a tool error naming action', async () => {
      // Names every object inherits (constructor, toString, __proto__) are unknown actions too.
      for (const args of [{ name: 'X', query: 'xx' }, { action: 'update', name: 'X', query: 'xx' }, { action: 'constructor' }, { action: 'toString' }, { action: '__proto__' }]) {
        const result = await me.mcp.callTool({ name: 'service_alerte', arguments: args });
        expect(result.isError, JSON.stringify(args)).to.equal(true);
        expect((result.content as { text: string }[])[0]?.text).to.include('« action »');
      }
    });
  });

  describe('argument refusals: invalid_arguments naming the argument, same French message on both transports', () => {
    let me: Actor;
    const valid = { name: 'Valide', query: 'couverture' };
    before(async () => {
      me = await actor(`Alertes arguments ${unique()}`);
    });

    const cases: { given: string; action: Action; args: Record<string, unknown>; names: string }[] = [
      { given: 'an unknown property', action: 'add', args: { ...valid, couleur: 'rouge' }, names: 'couleur' },
      { given: 'a name of 121 characters', action: 'add', args: { ...valid, name: 'n'.repeat(121) }, names: 'name' },
      { given: 'an empty name', action: 'add', args: { ...valid, name: '' }, names: 'name' },
      { given: 'a name of spaces only', action: 'add', args: { ...valid, name: '   ' }, names: 'name' },
      { given: 'a missing name', action: 'add', args: { query: 'couverture' }, names: 'name' },
      { given: 'a query of 1 character', action: 'add', args: { ...valid, query: 'a' }, names: 'query' },
      { given: 'a query of 501 characters', action: 'add', args: { ...valid, query: 'a'.repeat(501) }, names: 'query' },
      { given: 'a query of commas and spaces', action: 'add', args: { ...valid, query: ',, ,' }, names: 'query' },
      { given: 'a missing query', action: 'add', args: { name: 'Valide' }, names: 'query' },
      { given: 'a source outside the ten', action: 'add', args: { ...valid, sources: ['marche', 'meteo'] }, names: 'sources' },
      { given: 'an empty list of sources', action: 'add', args: { ...valid, sources: [] }, names: 'sources' },
      { given: 'department 20', action: 'add', args: { ...valid, departement: '20' }, names: 'departement' },
      { given: 'department 96', action: 'add', args: { ...valid, departements: ['35', '96'] }, names: 'departements' },
      { given: 'department 979', action: 'add', args: { ...valid, departement: '979' }, names: 'departement' },
      { given: 'frequency hourly', action: 'add', args: { ...valid, frequency: 'hourly' }, names: 'frequency' },
      { given: 'montant_min -1', action: 'add', args: { ...valid, montant_min: -1 }, names: 'montant_min' },
      { given: 'nothing watchable (dvf without departments)', action: 'add', args: { ...valid, sources: ['dvf'] }, names: 'departements' },
      { given: 'a delete with a non-UUID id', action: 'remove', args: { id: 'abc' }, names: 'id' },
      { given: 'a delete without id', action: 'remove', args: {}, names: 'id' },
      { given: 'a delete with another property', action: 'remove', args: { id: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b', name: 'x' }, names: 'name' },
      { given: 'a list with a property', action: 'list', args: { limit: 10 }, names: '' },
    ];

    for (const c of cases) {
      it(`${c.action}: ${c.given}`, async () => {
        const message = await refusedOnBoth(me, c.action, c.args, 400, 'invalid_arguments');
        if (c.names) expect(message).to.include(`« ${c.names}`);
      });
    }

    it('created nothing', async () => {
      expect(ok(await call('rest', me, 'list')).total).to.equal(0);
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 0, counter: 0 });
    });

    it('accepts the limits themselves: name of 120, query of 2 and of 500, 2A, 971, montant_min 0', async () => {
      const body = ok(await call('rest', me, 'add', { name: 'n'.repeat(120), query: 'ab', departement: '2A', departements: ['971'], montant_min: 0, sources: ['attribution'] }));
      expect(body.alerte.departements).to.deep.equal(['2A', '971']);
      expect(body.alerte.montant_min).to.equal(0);
      // 500 characters within the query syntax's own limits (10 alternatives, 20 words each, words of 50 at most).
      const longQuery = Array.from({ length: 10 }, (_, i) => `couverture zinguerie bardage isolation lot${i} `.repeat(1))
        .join(', ')
        .padEnd(500, 'x')
        .slice(0, 500);
      expect(longQuery).to.have.length(500);
      expect(ok(await call('mcp', me, 'add', { name: 'Long', query: longQuery, frequency: 'realtime' })).alerte.frequency).to.equal('realtime');
    });
  });

  describe('warnings and sources_surveillees through the API', () => {
    let me: Actor;
    before(async () => {
      me = await actor(`Alertes avertissements ${unique()}`);
    });

    const cases: { given: string; args: Record<string, unknown>; watched: string[]; kind?: string; warnings: RegExp[] }[] = [
      {
        given: 'no departments: attribution and dvf not watched',
        args: { query: 'toiture', sources: ['marche', 'attribution', 'dvf'] },
        watched: ['marche'],
        warnings: [/« attribution » exige des départements suivis/, /« dvf » exige des départements suivis/],
      },
      {
        given: 'departement alone with attribution: attribution follows only departements',
        args: { query: 'toiture', sources: ['marche', 'attribution'], departement: '35' },
        watched: ['marche'],
        warnings: [/« attribution » ne suit que les départements de « departements »/],
      },
      {
        given: 'departements with attribution and dvf: both watched, dvf ignores the terms',
        args: { query: 'toiture', sources: ['attribution', 'dvf'], departements: ['35'] },
        watched: ['attribution', 'dvf'],
        warnings: [/« dvf » ne tient pas compte des termes/],
      },
      {
        given: 'departement and departements with attribution: departement without effect on attribution',
        args: { query: 'toiture', sources: ['attribution'], departement: '22', departements: ['35'] },
        watched: ['attribution'],
        warnings: [/« departement » est sans effet sur la source « attribution »/],
      },
      {
        given: 'dce with departements: only files matched to a market',
        args: { query: 'toiture', sources: ['dce'], departements: ['35'] },
        watched: ['dce'],
        warnings: [/« dce ».*rattachés à un avis de marché/],
      },
      {
        given: 'montant_min without attribution: without effect',
        args: { query: 'toiture', sources: ['marche'], montant_min: 1000 },
        watched: ['marche'],
        warnings: [/« montant_min ».*n'est pas surveillée : il est sans effet/],
      },
      {
        given: 'montant_min with attribution and marche: without effect on marche',
        args: { query: 'toiture', sources: ['marche', 'attribution'], departements: ['35'], montant_min: 1000 },
        watched: ['marche', 'attribution'],
        warnings: [/« montant_min ».*sans effet sur « marche »/],
      },
      {
        given: 'montant_min with attribution alone: no warning',
        args: { query: 'toiture', sources: ['attribution'], departements: ['35'], montant_min: 1000 },
        watched: ['attribution'],
        warnings: [],
      },
      {
        given: 'only dvf: kind territoire',
        args: { query: 'toiture', sources: ['dvf'], departements: ['33', '24'] },
        watched: ['dvf'],
        kind: 'territoire',
        warnings: [/« dvf » ne tient pas compte des termes/],
      },
    ];

    cases.forEach((c, i) => {
      it(c.given, async () => {
        const rest = ok(await call('rest', me, 'add', { name: `Avertissement ${i} rest`, ...c.args }));
        const mcp = ok(await call('mcp', me, 'add', { name: `Avertissement ${i} mcp`, ...c.args }));
        for (const body of [rest, mcp]) {
          expect(body.created).to.equal(true);
          expect(body.alerte.sources_surveillees).to.deep.equal(c.watched);
          expect(body.alerte.kind).to.equal(c.kind ?? 'mots_cles');
          expect(ruleWarnings(body.warnings), JSON.stringify(body.warnings)).to.have.length(c.warnings.length);
          for (const pattern of c.warnings) expect(body.warnings.filter((w: string) => pattern.test(w)), String(pattern)).to.have.length(1);
        }
        expect(mcp.warnings).to.deep.equal(rest.warnings);
        expect({ ...mcp.alerte, id: null, name: null, created_at: null }).to.deep.equal({ ...rest.alerte, id: null, name: null, created_at: null });
        // The replay tells the same truth.
        expect(ok(await call('mcp', me, 'add', { name: `Avertissement ${i} rest`, ...c.args })).warnings).to.deep.equal(rest.warnings);
      });
    });
  });

  describe('the race of identical creates', () => {
    let me: Actor;
    before(async () => {
      me = await actor(`Alertes course ${unique()}`);
    });

    const races: { label: string; pick: (i: number) => Via }[] = [
      { label: 'on REST', pick: () => 'rest' },
      { label: 'on MCP', pick: () => 'mcp' },
      { label: 'REST and MCP together', pick: (i) => (i % 2 ? 'mcp' : 'rest') },
    ];

    for (const race of races) {
      it(`10 identical creates in parallel ${race.label}: exactly one created, the others unchanged, one alert`, async () => {
        const name = `Course ${race.label}`;
        const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => call(race.pick(i), me, 'add', { name, query: 'ravalement, façade', departements: ['75'] })));
        const bodies = answers.map(ok);
        expect(bodies.filter((b) => b.created === true)).to.have.length(1);
        expect(bodies.filter((b) => b.created === false && b.unchanged === true)).to.have.length(9);
        expect(new Set(bodies.map((b) => b.alerte.id)).size).to.equal(1);
        const list = ok(await call('rest', me, 'list'));
        expect(list.items.filter((a: any) => a.name === name)).to.have.length(1);
      });
    }

    it('kept the counter of the organisation exact through the races', async () => {
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 3, counter: 3 });
    });
  });

  describe('isolation between organisations', () => {
    for (const via of TRANSPORTS) {
      it(`on ${via.toUpperCase()}: another organisation's alert is not listed and cannot be deleted, both directions`, async () => {
        const a = await actor(`Alertes isolement A ${via} ${unique()}`);
        const b = await actor(`Alertes isolement B ${via} ${unique()}`);
        const ofA = ok(await call(via, a, 'add', { name: 'Même nom', query: 'menuiserie' })).alerte;
        // The same name in another organisation is another alert, not a replay nor a conflict.
        const ofB = ok(await call(via, b, 'add', { name: 'Même nom', query: 'électricité', frequency: 'weekly' }));
        expect(ofB.created).to.equal(true);
        expect(ofB.alerte.id).to.not.equal(ofA.id);

        for (const [me, other, theirs] of [
          [a, b, ofB.alerte],
          [b, a, ofA],
        ] as [Actor, Actor, any][]) {
          const mine = ok(await call(via, me, 'list'));
          expect(mine.items.map((x: any) => x.id)).to.not.include(theirs.id);
          expect(mine.total).to.equal(1);
          expect(ok(await call(via, me, 'remove', { id: theirs.id }))).to.deep.equal({ action: 'remove', removed: false, id: theirs.id });
          const still = ok(await call(via, other, 'list'));
          expect(still.items).to.deep.equal([theirs]);
        }
        expect(await alertCount(a.account.organisationId)).to.deep.equal({ rows: 1, counter: 1 });
        expect(await alertCount(b.account.organisationId)).to.deep.equal({ rows: 1, counter: 1 });
      });
    }

    it('shows a member the alerts of the whole organisation', async () => {
      const organisation = `Alertes équipe ${unique()}`;
      const first = await actor(organisation);
      const second = await actor(organisation, { role: 'membre' });
      const created = ok(await call('rest', first, 'add', { name: 'Commune', query: 'carrelage' })).alerte;
      expect(ok(await call('mcp', second, 'list')).items).to.deep.equal([created]);
      // A member may delete an alert of the organisation created by someone else.
      expect(ok(await call('mcp', second, 'remove', { id: created.id })).removed).to.equal(true);
    });
  });

  describe('access: scope, organisation, role, paid-only plan', () => {
    it('refuses the three operations to a free organisation: 403 access_denied naming the subscribed plan, the same tool error on MCP', async () => {
      const free = await actor(`Alertes gratuite ${unique()}`, { plan: 'free' });
      const args: Record<Action, Record<string, unknown>> = { add: { name: 'Gratuite', query: 'couverture' }, remove: { id: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b' }, list: {} };
      for (const action of ['add', 'remove', 'list'] as Action[]) {
        const message = await refusedOnBoth(free, action, args[action], 403, 'access_denied');
        expect(message, action).to.match(/formule abonnée/);
      }
      expect(await dbAlerts(free.account.organisationId)).to.have.length(0);
    });

    it('refuses create and delete to an account without organisation: 403 organization_required', async () => {
      // Two accounts: without organisation they keep the free plan's per-minute limit.
      const restAccount = await actor(null);
      const mcpAccount = await actor(null);
      const message = await refusedOnBoth(restAccount, 'add', { name: 'Orpheline', query: 'couverture' }, 403, 'organization_required', mcpAccount);
      expect(message).to.match(/organisation/);
      await refusedOnBoth(restAccount, 'remove', { id: '3f2b8c1e-9a4d-4e6f-8b2a-1c3d5e7f9a0b' }, 403, 'organization_required', mcpAccount);
      // Listing is a read: refused by the paid-only rule instead.
      refused(await call('rest', restAccount, 'list'), 'rest', 403, 'access_denied');
    });

    it('refuses create and delete to the role lecteur (403 role_denied), who may still list', async () => {
      const organisation = `Alertes lecteur ${unique()}`;
      const admin = await actor(organisation);
      const reader = await actor(organisation, { role: 'lecteur' });
      const existing = ok(await call('rest', admin, 'add', { name: 'Du chef', query: 'couverture' })).alerte;
      const message = await refusedOnBoth(reader, 'add', { name: 'Du lecteur', query: 'couverture' }, 403, 'role_denied');
      expect(message).to.include('lecteur');
      await refusedOnBoth(reader, 'remove', { id: existing.id }, 403, 'role_denied');
      for (const via of TRANSPORTS) expect(ok(await call(via, reader, 'list')).items).to.deep.equal([existing]);
      expect(await alertCount(admin.account.organisationId)).to.deep.equal({ rows: 1, counter: 1 });
    });

    it('refuses writes to a token with only mcp:read: REST 403 insufficient_scope, MCP HTTP 403 / -32003, both naming mcp:write; lists', async () => {
      const organisation = `Alertes lecture ${unique()}`;
      const admin = await actor(organisation);
      const readOnly = await actor(organisation, { scope: 'mcp:read' });
      const existing = ok(await call('rest', admin, 'add', { name: 'Lisible', query: 'couverture' })).alerte;
      for (const [action, args] of [
        ['add', { name: 'Lecture seule', query: 'couverture' }],
        ['remove', { id: existing.id }],
      ] as [Action, Record<string, unknown>][]) {
        const viaRest = await call('rest', readOnly, action, args);
        refused(viaRest, 'rest', 403, 'insufficient_scope');
        expect(viaRest.message).to.include('mcp:write');
        const viaMcp = await rawToolCall(readOnly.token, { action, ...args });
        expect(viaMcp.status, JSON.stringify(viaMcp.json)).to.equal(403);
        expect(viaMcp.json.error?.code).to.equal(-32003);
        expect(viaMcp.json.error?.message).to.include('mcp:write');
      }
      // The tool stays announced: a read-only access still lists its alerts.
      const { tools } = await readOnly.mcp.listTools();
      expect(tools.map((t) => t.name)).to.include('service_alerte');
      for (const via of TRANSPORTS) expect(ok(await call(via, readOnly, 'list')).items).to.deep.equal([existing]);
      expect(await alertCount(admin.account.organisationId)).to.deep.equal({ rows: 1, counter: 1 });
    });

    it('lets a legacy mcp:public token create through MCP, but not through REST (403 insufficient_scope naming mcp:write)', async () => {
      const legacy = await actor(`Alertes historique ${unique()}`, { scope: '' });
      const created = ok(await call('mcp', legacy, 'add', { name: 'Historique', query: 'couverture' }));
      expect(created.created).to.equal(true);
      const viaRest = await call('rest', legacy, 'add', { name: 'Historique REST', query: 'couverture' });
      refused(viaRest, 'rest', 403, 'insufficient_scope');
      expect(viaRest.message).to.include('mcp:write');
      refused(await call('rest', legacy, 'remove', { id: created.alerte.id }), 'rest', 403, 'insufficient_scope');
      // Reads stay open on REST.
      expect(ok(await call('rest', legacy, 'list')).items).to.deep.equal([created.alerte]);
      expect(ok(await call('mcp', legacy, 'remove', { id: created.alerte.id })).removed).to.equal(true);
    });
  });

  describe('the organisation back on the free plan', () => {
    it('keeps its alerts inactive while free, and active again once subscribed', async () => {
      const organisation = `Alertes formule ${unique()}`;
      const me = await actor(organisation);
      const first = ok(await call('rest', me, 'add', { name: 'Avant 1', query: 'couverture' })).alerte;
      const second = ok(await call('mcp', me, 'add', { name: 'Avant 2', query: 'zinguerie', departements: ['35'] })).alerte;

      await setOrganisationPlan(svc.db, organisation, { plan: 'free' });
      const rows = await dbAlerts(me.account.organisationId);
      expect(rows.map((r) => r.id).sort()).to.deep.equal([first.id, second.id].sort());
      for (const row of rows) expect(Boolean(row.is_active), row.name).to.equal(false);
      // While free, the paid-only operations are refused and nothing is deleted.
      await refusedOnBoth(me, 'list', {}, 403, 'access_denied');
      await refusedOnBoth(me, 'remove', { id: first.id }, 403, 'access_denied');
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 2, counter: 2 });

      await setOrganisationPlan(svc.db, organisation, { plan: 'subscribed' });
      for (const via of TRANSPORTS) {
        const list = ok(await call(via, me, 'list'));
        expect(list.items).to.deep.equal([second, first]);
        for (const a of list.items) expect(a.is_active).to.equal(true);
      }
    });

    it('does not touch the alerts when only the limits change', async () => {
      const organisation = `Alertes limites ${unique()}`;
      const me = await actor(organisation);
      ok(await call('rest', me, 'add', { name: 'Stable', query: 'couverture' }));
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 99_999 });
      for (const row of await dbAlerts(me.account.organisationId)) expect(Boolean(row.is_active)).to.equal(true);
    });
    it('keeps the alerts in step when createAccount changes the plan of an existing organisation', async () => {
      const organisation = `Alertes nouveau membre ${unique()}`;
      const me = await actor(organisation);
      ok(await call('rest', me, 'add', { name: 'Suivie', query: 'couverture' }));
      await createAccount(svc.db, { email: `membre-${unique()}@exemple.fr`, passwordHash: await hashPassword('mot-de-passe-x'), organisation, role: 'membre', plan: 'free' }, new Date());
      expect((await svc.db('organisations').where({ name: organisation }).first('plan'))?.plan).to.equal('free');
      for (const row of await dbAlerts(me.account.organisationId)) expect(Boolean(row.is_active)).to.equal(false);
    });
  });

  describe('the cap of 200 alerts per organisation', function () {
    this.timeout(180_000);

    async function fill(me: Actor, count: number, prefix: string): Promise<void> {
      const batch = 25;
      for (let start = 0; start < count; start += batch) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(batch, count - start) }, (_, i) => call((start + i) % 5 === 0 ? 'mcp' : 'rest', me, 'add', { name: `${prefix} ${start + i}`, query: 'couverture', sources: ['marche'] })),
        );
        for (const a of answers) expect(ok(a).created).to.equal(true);
      }
    }

    it('refuses the 201st with a clear 409, replays still answer unchanged, a delete frees a place', async () => {
      const me = await actor(`Alertes plafond ${unique()}`);
      await fill(me, 200, 'Plafond');
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 200, counter: 200 });

      const message = await refusedOnBoth(me, 'add', { name: 'La 201e', query: 'couverture' }, 409, 'conflict');
      expect(message).to.include('200');
      expect(message).to.match(/supprimer/);

      for (const via of TRANSPORTS) {
        const replay = ok(await call(via, me, 'add', { name: 'Plafond 7', query: 'Couverture', sources: ['marche'] }));
        expect(replay).to.deep.include({ created: false, unchanged: true });
        expect(replay.alerte.name).to.equal('Plafond 7');
      }
      // Same name, other criteria, at the cap: still the conflict of the name.
      expect(await refusedOnBoth(me, 'add', { name: 'Plafond 7', query: 'toiture' }, 409, 'conflict')).to.include('Plafond 7');

      const list = ok(await call('rest', me, 'list'));
      expect(list.total).to.equal(200);
      expect(list.items).to.have.length(200);
      expect(ok(await call('mcp', me, 'list')).total).to.equal(200);

      expect(ok(await call('rest', me, 'remove', { id: list.items[100].id })).removed).to.equal(true);
      expect(ok(await call('mcp', me, 'add', { name: 'La 201e', query: 'couverture' })).created).to.equal(true);
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 200, counter: 200 });
      refused(await call('rest', me, 'add', { name: 'La 202e', query: 'couverture' }), 'rest', 409, 'conflict');
    });

    it('leaves exactly 200 after a burst of 20 parallel creates at 195', async () => {
      const me = await actor(`Alertes rafale ${unique()}`);
      await fill(me, 195, 'Rafale');
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? 'mcp' : 'rest', me, 'add', { name: `Rafale extra ${i}`, query: 'couverture' })));
      const created = answers.filter((a) => a.ok && a.body.created === true);
      const refusedOnes = answers.filter((a) => !a.ok);
      expect(created).to.have.length(5);
      expect(refusedOnes).to.have.length(15);
      answers.forEach((a, i) => {
        if (!a.ok) refused(a, i % 2 ? 'mcp' : 'rest', 409, 'conflict');
      });
      expect(await alertCount(me.account.organisationId)).to.deep.equal({ rows: 200, counter: 200 });
      expect(ok(await call('rest', me, 'list')).total).to.equal(200);
    });
  });
});
