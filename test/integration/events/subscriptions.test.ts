// Issue 15: event subscriptions over real HTTP, on REST and MCP alike: future-only start, pages of 100 with has_more, at least once (unacknowledged events return, acknowledged never), out-of-order acknowledgements, signed tokens, isolation between organisations, mcp:write required explicitly, and the 20-subscription cap exact under 50 concurrent subscribes.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Contract } from '../../../src/contract/runtime.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import type { Role } from '../../../src/access/caller.js';
import { appendEvents, type NewEvent } from '../../../src/domains/events/store.js';
import { nextRobotSlot } from '../../../src/domains/robot/schedule.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestAccount, type TestService } from '../../helpers/service.js';

const contract = Contract.load();
const TOOLS = {
  'events.subscribe': 'evenements_abonnement_creer',
  'events.poll': 'evenements_lire',
  'events.ack': 'evenements_acquitter',
  'events.unsubscribe': 'evenements_abonnement_supprimer',
  'events.subscriptions': 'evenements_abonnements_lister',
} as const;
type Operation = keyof typeof TOOLS;
type Via = 'rest' | 'mcp';
const TRANSPORTS: Via[] = ['rest', 'mcp'];
const HIGH_LIMITS = { callsPerMinute: 100_000, callsPerDay: 1_000_000 };
const PARIS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+0[12]:00$/;

interface Actor {
  account: TestAccount;
  token: string;
  mcp: Client;
}

interface Outcome {
  ok: boolean;
  status: number;
  code: string | null;
  message: string;
  body: any;
}

const unique = () => randomBytes(3).toString('hex');

describe('event subscriptions (issue 15)', function () {
  this.timeout(120_000);
  let svc: TestService;
  const clients: Client[] = [];

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await svc?.close();
  });

  async function actor(organisation: string, options: { role?: Role; scope?: string } = {}): Promise<Actor> {
    const account = await svc.createAccount({ organisation, role: options.role });
    await setOrganisationPlan(svc.db, organisation, HIGH_LIMITS);
    const token = await svc.tokenFor(account, options.scope ?? 'mcp:read mcp:write');
    const mcp = await mcpClient(`${svc.url}/api/mcp`, token);
    clients.push(mcp);
    return { account, token, mcp };
  }

  async function call(via: Via, who: Actor, operation: Operation, args: Record<string, unknown>): Promise<Outcome> {
    if (via === 'rest') {
      const r = await svc.rest(operation, args, { token: who.token });
      if (r.status === 200) {
        expect(contract.outputProblem(operation, r.json), 'REST answer conforms to the contract').to.equal(null);
        return { ok: true, status: 200, code: null, message: '', body: r.json };
      }
      return { ok: false, status: r.status, code: r.json?.error?.code ?? null, message: r.json?.error?.message ?? '', body: r.json };
    }
    const result = await who.mcp.callTool({ name: TOOLS[operation], arguments: args });
    const text = (result.content as { type: string; text?: string }[] | undefined)?.[0]?.text ?? '';
    if (result.isError) return { ok: false, status: 200, code: null, message: text, body: result };
    expect(contract.outputProblem(operation, result.structuredContent), 'MCP structuredContent conforms to the contract').to.equal(null);
    return { ok: true, status: 200, code: null, message: '', body: result.structuredContent };
  }

  function ok(o: Outcome): any {
    expect(o.ok, `${o.status} ${o.code} ${o.message}`).to.equal(true);
    return o.body;
  }

  /** The same refusal on REST (status and code) and on MCP (a tool error), with the same French message. */
  async function refusedOnBoth(who: Actor, operation: Operation, args: Record<string, unknown>, status: number, code: string): Promise<string> {
    const viaRest = await call('rest', who, operation, args);
    expect(viaRest.ok, JSON.stringify(viaRest.body)).to.equal(false);
    expect(viaRest.status, JSON.stringify(viaRest.body)).to.equal(status);
    expect(viaRest.code).to.equal(code);
    const viaMcp = await call('mcp', who, operation, args);
    expect(viaMcp.ok, JSON.stringify(viaMcp.body)).to.equal(false);
    expect(viaMcp.body.isError).to.equal(true);
    expect(viaMcp.message, 'same message on MCP as on REST').to.equal(viaRest.message);
    return viaRest.message;
  }

  async function newAlert(who: Actor, name = `Alerte ${unique()}`): Promise<string> {
    const r = await svc.rest('alertes.create', { name, query: 'couverture, toiture' }, { token: who.token });
    expect(r.status, JSON.stringify(r.json)).to.equal(200);
    return r.json.alerte.id as string;
  }

  async function write(alertId: string, ids: string[]): Promise<void> {
    const row = await svc.db('alerts').where('id', alertId).first('organisation_id');
    const events: NewEvent[] = ids.map((id, i) => ({
      kind: i % 3 === 0 ? 'rappel_echeance' : 'nouveau_marche',
      source: 'marche',
      occurredAt: new Date(Date.UTC(2026, 10, 20, 10, 0, i % 60)).toISOString(),
      record: { id, titre: `Avis ${id}`, resume: `Réfection de couverture (${id})`, fields: { marche_id: id, url: `${svc.url}/marches/${id}`, departement: '35' } },
    }));
    await appendEvents(svc.db, { id: alertId, organisationId: row.organisation_id }, events, new Date());
  }

  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  const recordIds = (page: any) => (page.events as any[]).map((e) => e.record.id);

  for (const via of TRANSPORTS) {
    describe(`on ${via.toUpperCase()}`, () => {
      let me: Actor;
      let alertId: string;
      let subscription: any;

      before(async () => {
        me = await actor(`Événements ${via} ${unique()}`);
        alertId = await newAlert(me);
        // Written before the subscription: never delivered to it.
        await write(alertId, ids('passé', 5));
      });

      it('subscribes: subscription_id = id, an opaque checkpoint, first_run the next robot slot (Paris offset), created', async () => {
        const before = new Date();
        subscription = ok(await call(via, me, 'events.subscribe', { alerte_id: alertId, key: 'automatisation-1' }));
        expect(Object.keys(subscription).sort()).to.deep.equal(['checkpoint', 'created', 'first_run', 'id', 'subscription_id']);
        expect(subscription.id).to.equal(subscription.subscription_id);
        expect(subscription.created).to.equal(true);
        expect(subscription.checkpoint).to.be.a('string').and.not.empty;
        expect(subscription.first_run).to.match(PARIS_ISO);
        const slot = new Date(subscription.first_run).getTime();
        expect([nextRobotSlot(before).getTime(), nextRobotSlot(new Date()).getTime()]).to.include(slot);
        expect(slot).to.be.greaterThan(before.getTime());
      });

      it('gives the same subscription for the same key (created false), in capitals or as urn:uuid too', async () => {
        for (const alerte_id of [alertId, alertId.toUpperCase(), `urn:uuid:${alertId}`]) {
          const again = ok(await call(via, me, 'events.subscribe', { alerte_id, key: 'automatisation-1' }));
          expect(again.created).to.equal(false);
          expect(again.subscription_id).to.equal(subscription.subscription_id);
          expect(again.checkpoint).to.equal(subscription.checkpoint);
        }
      });

      it('starts with future events only', async () => {
        const page = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(page).to.deep.equal({ subscription_id: subscription.subscription_id, events: [], checkpoint: subscription.checkpoint, has_more: false, warnings: [] });
      });

      it('reads pages of 100 with has_more, each event complete, until everything is acknowledged', async () => {
        await write(alertId, ids('page', 250));
        const seen: string[] = [];
        let previousCheckpoint = subscription.checkpoint;
        for (const expected of [{ n: 100, more: true }, { n: 100, more: true }, { n: 50, more: false }]) {
          const page = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
          expect(page.events).to.have.length(expected.n);
          expect(page.has_more).to.equal(expected.more);
          expect(page.checkpoint).to.equal(previousCheckpoint);
          const e = page.events[0];
          expect(Object.keys(e).sort()).to.deep.equal(['ack_token', 'alerte_id', 'id', 'kind', 'occurred_at', 'record', 'source']);
          expect(e.alerte_id).to.equal(alertId);
          expect(e.source).to.equal('marche');
          expect(e.occurred_at).to.match(PARIS_ISO);
          expect(e.ack_token.length).to.be.at.most(512);
          expect(Object.keys(e.record).sort()).to.deep.equal(['fields', 'id', 'resume', 'titre']);
          for (const ev of page.events) {
            seen.push(ev.record.id);
            expect(ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: ev.ack_token }))).to.deep.equal({
              acknowledged: true,
              subscription_id: subscription.subscription_id,
            });
          }
          const after = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id, limit: 1 }));
          expect(after.checkpoint).to.not.equal(previousCheckpoint);
          previousCheckpoint = after.checkpoint;
        }
        expect(seen).to.deep.equal(ids('page', 250));
        const last = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(last.events).to.deep.equal([]);
        expect(last.has_more).to.equal(false);
      });

      it('honours limit, and gives back an unacknowledged event on the next poll, never an acknowledged one', async () => {
        await write(alertId, ids('retour', 4));
        const first = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id, limit: 3 }));
        expect(recordIds(first)).to.deep.equal(ids('retour', 3));
        expect(first.has_more).to.equal(true);
        // Processing failed for the first: only the second and third are acknowledged.
        for (const e of first.events.slice(1)) ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: e.ack_token }));
        const again = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(recordIds(again)).to.deep.equal(['retour-000', 'retour-003']);
        // The same event, the same token.
        expect(again.events[0]).to.deep.equal(first.events[0]);
        expect(again.checkpoint).to.equal(first.checkpoint);
        // Acknowledging twice is harmless.
        for (let i = 0; i < 2; i++) ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: first.events[1].ack_token }));
        ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: again.events[0].ack_token }));
        const end = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(recordIds(end)).to.deep.equal(['retour-003']);
        expect(end.checkpoint).to.not.equal(first.checkpoint);
        ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: end.events[0].ack_token }));
        expect(ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id })).events).to.deep.equal([]);
      });

      it('loses nothing acknowledged in reverse order: the checkpoint waits for the first', async () => {
        await write(alertId, ids('désordre', 6));
        const page = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        const start = page.checkpoint;
        for (const e of [...page.events].reverse().slice(0, 5)) ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: e.ack_token }));
        const left = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(recordIds(left)).to.deep.equal(['désordre-000']);
        expect(left.checkpoint).to.equal(start);
        ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: left.events[0].ack_token }));
        const done = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id }));
        expect(done.events).to.deep.equal([]);
        expect(done.checkpoint).to.not.equal(start);
      });

      it('refuses tampered tokens and tokens of another subscription: invalid_arguments, same message on both transports', async () => {
        const other = ok(await call(via, me, 'events.subscribe', { alerte_id: alertId, key: 'automatisation-2' }));
        await write(alertId, ids('jeton', 1));
        const mine = ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id })).events[0];
        const theirs = ok(await call(via, me, 'events.poll', { subscription_id: other.subscription_id })).events[0];
        expect(theirs.id).to.equal(mine.id);
        expect(theirs.ack_token).to.not.equal(mine.ack_token);
        const [body, mac] = mine.ack_token.split('.');
        const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
        for (const bad of [`${flip(body)}.${mac}`, `${body}.${flip(mac)}`, `${body}.${mac}.x`, 'jeton-inventé']) {
          const message = await refusedOnBoth(me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: bad }, 400, 'invalid_arguments');
          expect(message).to.include('ack_token');
        }
        const message = await refusedOnBoth(me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: theirs.ack_token }, 400, 'invalid_arguments');
        expect(message).to.include('autre abonnement');
        // Nothing was acknowledged by the refusals.
        expect(recordIds(ok(await call(via, me, 'events.poll', { subscription_id: subscription.subscription_id })))).to.deep.equal(['jeton-000']);
        ok(await call(via, me, 'events.ack', { subscription_id: subscription.subscription_id, ack_token: mine.ack_token }));
        // The other subscription reads independently: its event is still there.
        expect(recordIds(ok(await call(via, me, 'events.poll', { subscription_id: other.subscription_id })))).to.deep.equal(['jeton-000']);
      });

      it('lists the organisation\'s subscriptions, unsubscribes once, then the subscription is gone', async () => {
        const list = ok(await call(via, me, 'events.subscriptions', {}));
        expect(list.total).to.equal(2);
        expect(list.items.map((s: any) => s.key).sort()).to.deep.equal(['automatisation-1', 'automatisation-2']);
        const item = list.items.find((s: any) => s.key === 'automatisation-2');
        expect(item).to.deep.include({ alerte_id: alertId, etat: 'active' });
        expect(item.created_at).to.match(PARIS_ISO);
        expect(ok(await call(via, me, 'events.unsubscribe', { subscription_id: item.subscription_id }))).to.deep.equal({ removed: true, subscription_id: item.subscription_id });
        expect(ok(await call(via, me, 'events.unsubscribe', { subscription_id: item.subscription_id })).removed).to.equal(false);
        await refusedOnBoth(me, 'events.poll', { subscription_id: item.subscription_id }, 404, 'not_found');
        expect(ok(await call(via, me, 'events.subscriptions', {})).total).to.equal(1);
      });

      it('ends the subscriptions of a deleted alert', async () => {
        const other = await newAlert(me);
        const s = ok(await call(via, me, 'events.subscribe', { alerte_id: other, key: 'fin' }));
        expect((await svc.rest('alertes.delete', { id: other }, { token: me.token })).json.removed).to.equal(true);
        await refusedOnBoth(me, 'events.poll', { subscription_id: s.subscription_id }, 404, 'not_found');
        expect(ok(await call(via, me, 'events.subscriptions', {})).items.map((i: any) => i.subscription_id)).to.not.include(s.subscription_id);
        const org = await svc.db('organisations').where('id', me.account.organisationId).first('event_subscription_count');
        expect(Number(org.event_subscription_count)).to.equal(1);
      });
    });
  }

  describe('same answers on REST and MCP', () => {
    it('polls the same page, tokens included, and a token given on one transport acknowledges on the other', async () => {
      const me = await actor(`Événements parité ${unique()}`);
      const alertId = await newAlert(me);
      const s = ok(await call('rest', me, 'events.subscribe', { alerte_id: alertId, key: 'parité' }));
      await write(alertId, ids('p', 3));
      const viaRest = ok(await call('rest', me, 'events.poll', { subscription_id: s.subscription_id, limit: 2 }));
      const viaMcp = ok(await call('mcp', me, 'events.poll', { subscription_id: s.subscription_id, limit: 2 }));
      expect(viaMcp).to.deep.equal(viaRest);
      expect(ok(await call('mcp', me, 'events.subscriptions', {}))).to.deep.equal(ok(await call('rest', me, 'events.subscriptions', {})));
      ok(await call('mcp', me, 'events.ack', { subscription_id: s.subscription_id, ack_token: viaRest.events[0].ack_token }));
      ok(await call('rest', me, 'events.ack', { subscription_id: s.subscription_id, ack_token: viaMcp.events[1].ack_token }));
      expect(recordIds(ok(await call('mcp', me, 'events.poll', { subscription_id: s.subscription_id })))).to.deep.equal(['p-002']);
    });

    it('refuses the same arguments with the same French message naming them', async () => {
      const me = await actor(`Événements arguments ${unique()}`);
      const alertId = await newAlert(me);
      for (const [operation, args, name] of [
        ['events.subscribe', { alerte_id: alertId }, 'key'],
        ['events.subscribe', { alerte_id: alertId, key: 'x'.repeat(121) }, 'key'],
        ['events.subscribe', { alerte_id: alertId, key: '   ' }, 'key'],
        ['events.subscribe', { alerte_id: 'pas-un-uuid', key: 'k' }, 'alerte_id'],
        ['events.poll', { subscription_id: alertId, limit: 101 }, 'limit'],
        ['events.poll', { subscription_id: alertId, limit: 0 }, 'limit'],
        ['events.ack', { subscription_id: alertId, ack_token: 'x'.repeat(513) }, 'ack_token'],
        ['events.ack', { ack_token: 'x' }, 'subscription_id'],
      ] as [Operation, Record<string, unknown>, string][]) {
        const message = await refusedOnBoth(me, operation, args, 400, 'invalid_arguments');
        expect(message, `${operation} ${JSON.stringify(args).slice(0, 80)}`).to.include(name);
      }
    });
  });

  describe('isolation between organisations', () => {
    it('refuses another organisation\'s alert and subscription with 404, no hint, and lists none of them', async () => {
      const owner = await actor(`Événements propriétaire ${unique()}`);
      const stranger = await actor(`Événements étrangère ${unique()}`);
      const alertId = await newAlert(owner);
      const s = ok(await call('rest', owner, 'events.subscribe', { alerte_id: alertId, key: 'à-moi' }));
      await write(alertId, ids('secret', 1));
      const token = ok(await call('rest', owner, 'events.poll', { subscription_id: s.subscription_id })).events[0].ack_token;

      const unknownAlert = await refusedOnBoth(stranger, 'events.subscribe', { alerte_id: '6d0c2f4e-8b1a-4c3d-9e5f-7a2b4c6d8e0f', key: 'k' }, 404, 'not_found');
      expect(await refusedOnBoth(stranger, 'events.subscribe', { alerte_id: alertId, key: 'k' }, 404, 'not_found')).to.equal(unknownAlert);
      const unknownSub = await refusedOnBoth(stranger, 'events.poll', { subscription_id: '0b7e9c2a-5d4f-4a1b-8c3e-2f6a9d0b1c4e' }, 404, 'not_found');
      expect(await refusedOnBoth(stranger, 'events.poll', { subscription_id: s.subscription_id }, 404, 'not_found')).to.equal(unknownSub);
      expect(await refusedOnBoth(stranger, 'events.ack', { subscription_id: s.subscription_id, ack_token: token }, 404, 'not_found')).to.equal(unknownSub);
      for (const via of TRANSPORTS) {
        expect(ok(await call(via, stranger, 'events.unsubscribe', { subscription_id: s.subscription_id })).removed).to.equal(false);
        expect(ok(await call(via, stranger, 'events.subscriptions', {}))).to.deep.equal({ total: 0, items: [] });
      }
      // Untouched for its owner.
      expect(recordIds(ok(await call('mcp', owner, 'events.poll', { subscription_id: s.subscription_id })))).to.deep.equal(['secret-000']);
    });

    it('lets a member of the organisation read and acknowledge a colleague\'s subscription; a lecteur reads but may not acknowledge', async () => {
      const organisation = `Événements équipe ${unique()}`;
      const owner = await actor(organisation);
      const colleague = await actor(organisation, { role: 'membre' });
      const reader = await actor(organisation, { role: 'lecteur' });
      const alertId = await newAlert(owner);
      const s = ok(await call('rest', owner, 'events.subscribe', { alerte_id: alertId, key: 'équipe' }));
      await write(alertId, ids('équipe', 2));
      const page = ok(await call('rest', reader, 'events.poll', { subscription_id: s.subscription_id }));
      expect(page.events).to.have.length(2);
      await refusedOnBoth(reader, 'events.ack', { subscription_id: s.subscription_id, ack_token: page.events[0].ack_token }, 403, 'role_denied');
      ok(await call('mcp', colleague, 'events.ack', { subscription_id: s.subscription_id, ack_token: page.events[0].ack_token }));
      expect(recordIds(ok(await call('rest', owner, 'events.poll', { subscription_id: s.subscription_id })))).to.deep.equal(['équipe-001']);
    });
  });

  describe('scopes: the three mutations need mcp:write explicitly', () => {
    async function rawToolCall(token: string, name: string, args: Record<string, unknown>): Promise<{ status: number; json: any; challenge: string | null }> {
      const res = await fetch(`${svc.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
      return { status: res.status, json: await res.json(), challenge: res.headers.get('www-authenticate') };
    }

    it('refuses subscribe, ack and unsubscribe to the legacy mcp:public on MCP (403, -32003) and REST (insufficient_scope), naming mcp:write; poll and list stay open', async () => {
      const organisation = `Événements historique ${unique()}`;
      const writer = await actor(organisation);
      const legacy = await actor(organisation, { scope: '' });
      const alertId = await newAlert(writer);
      const s = ok(await call('rest', writer, 'events.subscribe', { alerte_id: alertId, key: 'historique' }));
      await write(alertId, ids('h', 1));
      const page = ok(await call('mcp', legacy, 'events.poll', { subscription_id: s.subscription_id }));
      expect(page.events).to.have.length(1);
      expect(ok(await call('rest', legacy, 'events.subscriptions', {})).total).to.equal(1);
      // The legacy scope still opens alert writes on MCP (the contrast that proves the rule is the operation's).
      const alertWrite = await rawToolCall(legacy.token, 'service_alerte', { action: 'add', name: `Historique ${unique()}`, query: 'zinguerie' });
      expect(alertWrite.status).to.equal(200);
      expect(alertWrite.json.result.structuredContent.created, JSON.stringify(alertWrite.json)).to.equal(true);

      const mutations: [Operation, Record<string, unknown>][] = [
        ['events.subscribe', { alerte_id: alertId, key: 'autre' }],
        ['events.ack', { subscription_id: s.subscription_id, ack_token: page.events[0].ack_token }],
        ['events.unsubscribe', { subscription_id: s.subscription_id }],
      ];
      for (const [operation, args] of mutations) {
        const viaMcp = await rawToolCall(legacy.token, TOOLS[operation], args);
        expect(viaMcp.status, operation).to.equal(403);
        expect(viaMcp.json.error.code, operation).to.equal(-32003);
        expect(viaMcp.json.error.message).to.include('mcp:write');
        expect(viaMcp.challenge).to.include('insufficient_scope');
        const viaRest = await svc.rest(operation, args, { token: legacy.token });
        expect(viaRest.status, operation).to.equal(403);
        expect(viaRest.json.error.code).to.equal('insufficient_scope');
        expect(viaRest.json.error.message).to.include('mcp:write');
      }
      // Nothing changed: the event is still to acknowledge, the subscription still there, alone.
      expect(ok(await call('rest', writer, 'events.poll', { subscription_id: s.subscription_id })).events).to.have.length(1);
      expect(ok(await call('rest', writer, 'events.subscriptions', {})).total).to.equal(1);
    });

    it('announces to mcp:public and mcp:read only the two reads; to mcp:write all five', async () => {
      const organisation = `Événements annonces ${unique()}`;
      const names = async (who: Actor) => (await who.mcp.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith('evenements_')).sort();
      const reads = ['evenements_abonnements_lister', 'evenements_lire'];
      expect(await names(await actor(organisation, { scope: '' }))).to.deep.equal(reads);
      expect(await names(await actor(organisation, { scope: 'mcp:read' }))).to.deep.equal(reads);
      expect(await names(await actor(organisation))).to.deep.equal(Object.values(TOOLS).sort());
    });
  });

  describe('an alert made inactive', () => {
    it('pauses its subscriptions: poll says so in warnings and still gives what was written, subscribing is a 409, the list says en_pause', async () => {
      const organisation = `Événements pause ${unique()}`;
      const me = await actor(organisation);
      const alertId = await newAlert(me);
      const s = ok(await call('rest', me, 'events.subscribe', { alerte_id: alertId, key: 'pause' }));
      await write(alertId, ids('avant-pause', 2));
      await setOrganisationPlan(svc.db, organisation, { plan: 'free' });
      for (const via of TRANSPORTS) {
        const page = ok(await call(via, me, 'events.poll', { subscription_id: s.subscription_id }));
        expect(recordIds(page)).to.deep.equal(ids('avant-pause', 2));
        expect(page.warnings).to.have.length(1);
        expect(page.warnings[0]).to.match(/inactive.*en pause/);
        expect(ok(await call(via, me, 'events.subscriptions', {})).items[0].etat).to.equal('en_pause');
      }
      const message = await refusedOnBoth(me, 'events.subscribe', { alerte_id: alertId, key: 'nouvelle' }, 409, 'conflict');
      expect(message).to.include('inactive');
      // The same key still gives its existing subscription.
      expect(ok(await call('rest', me, 'events.subscribe', { alerte_id: alertId, key: 'pause' })).created).to.equal(false);
      await setOrganisationPlan(svc.db, organisation, { plan: 'subscribed' });
      expect(ok(await call('mcp', me, 'events.poll', { subscription_id: s.subscription_id })).warnings).to.deep.equal([]);
    });
  });

  describe('the cap of 20 subscriptions per account and per organisation', () => {
    it('creates exactly 20 of 50 concurrent subscribes (REST and MCP mixed), refuses the 30 others with 409 conflict, and a replay still answers', async () => {
      const me = await actor(`Événements plafond ${unique()}`);
      const alertId = await newAlert(me);
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => call(i % 2 ? 'mcp' : 'rest', me, 'events.subscribe', { alerte_id: alertId, key: `k${i}` })));
      const created = outcomes.filter((o) => o.ok && o.body.created === true);
      expect(created).to.have.length(20);
      const refusals = outcomes.filter((o) => !o.ok);
      expect(refusals).to.have.length(30);
      for (const r of refusals) {
        if (r.status !== 200) expect([r.status, r.code]).to.deep.equal([409, 'conflict']);
        expect(r.message).to.include('20 abonnements');
      }
      const rows = await svc.db('event_subscriptions').where('organisation_id', me.account.organisationId);
      expect(rows).to.have.length(20);
      const org = await svc.db('organisations').where('id', me.account.organisationId).first('event_subscription_count');
      const user = await svc.db('users').where('id', me.account.userId).first('event_subscription_count');
      expect([Number(org.event_subscription_count), Number(user.event_subscription_count)]).to.deep.equal([20, 20]);
      // At the cap, an existing key still answers created false.
      const replay = ok(await call('rest', me, 'events.subscribe', { alerte_id: alertId, key: rows[0].key }));
      expect(replay.created).to.equal(false);
      expect(replay.subscription_id).to.equal(rows[0].id);
      // A colleague is refused by the organisation's cap.
      const colleague = await actor((await svc.db('organisations').where('id', me.account.organisationId).first('name')).name);
      const message = await refusedOnBoth(colleague, 'events.subscribe', { alerte_id: alertId, key: 'collègue' }, 409, 'conflict');
      expect(message).to.include("L'organisation");
      // One unsubscribed frees one place.
      expect(ok(await call('rest', me, 'events.unsubscribe', { subscription_id: rows[0].id })).removed).to.equal(true);
      expect(ok(await call('mcp', colleague, 'events.subscribe', { alerte_id: alertId, key: 'collègue' })).created).to.equal(true);
    });
  });
});
