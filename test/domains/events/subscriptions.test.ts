// A subscription starts at the head of its alert's log, reads what is after its checkpoint and not acknowledged, moves its checkpoint over the acknowledged prefix only, skips purged events, ends with its alert, and keeps the 20-per-account and 20-per-organisation counters exact.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  acknowledge,
  appendEvents,
  MAX_SUBSCRIPTIONS,
  pendingEvents,
  purgeEvents,
  subscribe,
  unsubscribe,
  type NewEvent,
  type SubscriptionRecord,
} from '../../../src/domains/events/store.js';
import { deleteAlert } from '../../../src/domains/alerts/store.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

describe('event subscriptions (store)', () => {
  let m: MigratedDatabase;

  before(async () => {
    m = await openMigratedDatabase();
  });
  after(async () => {
    await m?.close();
  });

  const stamp = () => new Date().toISOString();

  async function organisation(): Promise<string> {
    const id = randomUUID();
    await m.db('organisations').insert({ id, name: `Org ${id}`, created_at: stamp() });
    return id;
  }
  async function account(): Promise<string> {
    const id = randomUUID();
    await m.db('users').insert({ id, email: `${id}@exemple.fr`, password_hash: 'x', created_at: stamp() });
    return id;
  }
  async function alert(organisationId: string, active = true): Promise<{ id: string; organisationId: string }> {
    const id = randomUUID();
    await m.db('alerts').insert({
      id, organisation_id: organisationId, created_by: randomUUID(), name: `a-${id}`, query: 'toiture', frequency: 'realtime',
      sources: '[]', sources_watched: '[]', departements: '[]', departements_followed: '[]', departement: null, montant_min: null,
      is_active: active, kind: 'mots_cles', criteria: id, created_at: stamp(), last_evaluated_at: null,
    });
    await m.db('organisations').where('id', organisationId).increment('alert_count', 1);
    return { id, organisationId };
  }
  const event = (id: string): NewEvent => ({ kind: 'nouveau_marche', source: 'marche', occurredAt: '2026-11-20T10:00:00.000Z', record: { id, titre: `Avis ${id}`, resume: 'r', fields: { marche_id: id } } });
  const events = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => event(`${prefix}-${i}`));

  async function subscribed(a: { id: string; organisationId: string }, createdBy: string, key = 'k'): Promise<SubscriptionRecord> {
    const outcome = await subscribe(m.db, { id: randomUUID(), organisationId: a.organisationId, alertId: a.id, createdBy, key, createdAt: stamp() });
    if (outcome.kind !== 'created' && outcome.kind !== 'exists') throw new Error(outcome.kind);
    return outcome.subscription;
  }
  /** The subscription as stored now (its checkpoint moves). */
  async function current(s: SubscriptionRecord): Promise<SubscriptionRecord> {
    const row = await m.db('event_subscriptions').where('id', s.id).first();
    return { ...s, checkpoint: Number(row.checkpoint) };
  }
  const recordIds = async (s: SubscriptionRecord, limit = 100) => (await pendingEvents(m.db, await current(s), limit)).events.map((e) => e.record.id);
  const seqOf = async (s: SubscriptionRecord, recordId: string) => (await pendingEvents(m.db, await current(s), 100)).events.find((e) => e.record.id === recordId)?.seq as number;
  async function counters(organisationId: string, accountId: string): Promise<{ organisation: number; account: number; rows: number }> {
    const org = await m.db('organisations').where('id', organisationId).first('event_subscription_count');
    const user = await m.db('users').where('id', accountId).first('event_subscription_count');
    const rows = await m.db('event_subscriptions').where('organisation_id', organisationId).count({ n: '*' }).first();
    return { organisation: Number(org.event_subscription_count), account: Number(user.event_subscription_count), rows: Number(rows?.n) };
  }

  it('starts at the head: events written before it are never delivered, those after are, oldest first', async () => {
    const a = await alert(await organisation());
    await appendEvents(m.db, a, events('avant', 3), new Date());
    const s = await subscribed(a, await account());
    expect(await recordIds(s)).to.deep.equal([]);
    await appendEvents(m.db, a, events('après', 3), new Date());
    expect(await recordIds(s)).to.deep.equal(['après-0', 'après-1', 'après-2']);
  });

  it('pages: at most `limit` events, and whether more follow', async () => {
    const a = await alert(await organisation());
    const s = await subscribed(a, await account());
    await appendEvents(m.db, a, events('e', 5), new Date());
    const first = await pendingEvents(m.db, s, 2);
    expect(first.events.map((e) => e.record.id)).to.deep.equal(['e-0', 'e-1']);
    expect(first.hasMore).to.equal(true);
    const all = await pendingEvents(m.db, s, 5);
    expect(all.events).to.have.length(5);
    expect(all.hasMore).to.equal(false);
  });

  it('acknowledged out of order: the checkpoint moves over the acknowledged prefix only, nothing is lost, nothing comes back', async () => {
    const a = await alert(await organisation());
    const s = await subscribed(a, await account());
    await appendEvents(m.db, a, events('e', 5), new Date());
    const seqs = await Promise.all(['e-0', 'e-1', 'e-2', 'e-3', 'e-4'].map((r) => seqOf(s, r)));
    const [s0, s1, s2, s3, s4] = seqs as [number, number, number, number, number];
    // e-2 and e-4 first: the checkpoint stays, e-0, e-1 and e-3 still come.
    expect((await acknowledge(m.db, a.organisationId, s.id, s2, new Date()))?.checkpoint).to.equal(s.checkpoint);
    expect((await acknowledge(m.db, a.organisationId, s.id, s4, new Date()))?.checkpoint).to.equal(s.checkpoint);
    expect(await recordIds(s)).to.deep.equal(['e-0', 'e-1', 'e-3']);
    // e-1: still a gap at e-0.
    expect((await acknowledge(m.db, a.organisationId, s.id, s1, new Date()))?.checkpoint).to.equal(s.checkpoint);
    // e-0 closes the gap: the checkpoint jumps over e-0, e-1, e-2 and stops before e-3.
    expect((await acknowledge(m.db, a.organisationId, s.id, s0, new Date()))?.checkpoint).to.equal(s2);
    expect(await recordIds(s)).to.deep.equal(['e-3']);
    // The acknowledgements the checkpoint passed are forgotten; e-4's waits.
    expect((await m.db('event_acks').where('subscription_id', s.id).select('seq')).map((r) => Number(r.seq))).to.deep.equal([s4]);
    // Twice is harmless, below or above the checkpoint.
    expect((await acknowledge(m.db, a.organisationId, s.id, s0, new Date()))?.checkpoint).to.equal(s2);
    expect((await acknowledge(m.db, a.organisationId, s.id, s4, new Date()))?.checkpoint).to.equal(s2);
    expect((await acknowledge(m.db, a.organisationId, s.id, s3, new Date()))?.checkpoint).to.equal(s4);
    expect(await recordIds(s)).to.deep.equal([]);
    expect(await m.db('event_acks').where('subscription_id', s.id)).to.deep.equal([]);
  });

  it('keeps the prefix exact when acknowledgements race', async () => {
    const a = await alert(await organisation());
    const s = await subscribed(a, await account());
    await appendEvents(m.db, a, events('r', 30), new Date());
    const page = await pendingEvents(m.db, s, 100);
    const seqs = page.events.map((e) => e.seq);
    // Every second one in parallel, then the rest in parallel, in reverse order.
    await Promise.all(seqs.filter((_, i) => i % 2 === 1).map((q) => acknowledge(m.db, a.organisationId, s.id, q, new Date())));
    expect((await current(s)).checkpoint).to.equal(s.checkpoint);
    await Promise.all(seqs.filter((_, i) => i % 2 === 0).reverse().map((q) => acknowledge(m.db, a.organisationId, s.id, q, new Date())));
    expect((await current(s)).checkpoint).to.equal(seqs[seqs.length - 1]);
    expect(await recordIds(s)).to.deep.equal([]);
  });

  it('refuses to acknowledge for another organisation', async () => {
    const a = await alert(await organisation());
    const s = await subscribed(a, await account());
    await appendEvents(m.db, a, events('x', 1), new Date());
    const seq = await seqOf(s, 'x-0');
    expect(await acknowledge(m.db, await organisation(), s.id, seq, new Date())).to.equal(undefined);
    expect(await recordIds(s)).to.deep.equal(['x-0']);
  });

  it('skips events purged after 30 days, acknowledged or not', async () => {
    const a = await alert(await organisation());
    const s = await subscribed(a, await account());
    await appendEvents(m.db, a, events('vieux', 2), new Date(Date.now() - 31 * 86_400_000));
    await appendEvents(m.db, a, events('récent', 2), new Date());
    expect(await recordIds(s)).to.deep.equal(['vieux-0', 'vieux-1', 'récent-0', 'récent-1']);
    await acknowledge(m.db, a.organisationId, s.id, await seqOf(s, 'vieux-1'), new Date());
    await purgeEvents(m.db, new Date());
    expect(await recordIds(s)).to.deep.equal(['récent-0', 'récent-1']);
    // The prefix ignores what is gone: acknowledging récent-0 moves the checkpoint to it.
    const r0 = await seqOf(s, 'récent-0');
    expect((await acknowledge(m.db, a.organisationId, s.id, r0, new Date()))?.checkpoint).to.equal(r0);
  });

  it('gives the same subscription for the same key on the same alert, another for another key or alert', async () => {
    const org = await organisation();
    const a = await alert(org);
    const b = await alert(org);
    const me = await account();
    const first = await subscribed(a, me, 'make');
    const again = await subscribe(m.db, { id: randomUUID(), organisationId: org, alertId: a.id, createdBy: me, key: 'make', createdAt: stamp() });
    expect(again.kind).to.equal('exists');
    expect(again.kind === 'exists' && again.subscription.id).to.equal(first.id);
    expect((await subscribed(a, me, 'n8n')).id).to.not.equal(first.id);
    expect((await subscribed(b, me, 'make')).id).to.not.equal(first.id);
    expect(await counters(org, me)).to.deep.equal({ organisation: 3, account: 3, rows: 3 });
  });

  it('refuses an alert of another organisation, an unknown one and an inactive one', async () => {
    const org = await organisation();
    const theirs = await alert(await organisation());
    const paused = await alert(org, false);
    const me = await account();
    const attempt = (alertId: string) => subscribe(m.db, { id: randomUUID(), organisationId: org, alertId, createdBy: me, key: 'k', createdAt: stamp() });
    expect((await attempt(theirs.id)).kind).to.equal('alert_not_found');
    expect((await attempt(randomUUID())).kind).to.equal('alert_not_found');
    expect((await attempt(paused.id)).kind).to.equal('alert_inactive');
    expect(await counters(org, me)).to.deep.equal({ organisation: 0, account: 0, rows: 0 });
  });

  it('ends the subscriptions of a deleted alert and gives their places back; another alert of the organisation keeps its own', async () => {
    const org = await organisation();
    const a = await alert(org);
    const b = await alert(org);
    const me = await account();
    const other = await account();
    const s = await subscribed(a, me, 'un');
    await subscribed(a, other, 'deux');
    await subscribed(b, me, 'trois');
    await appendEvents(m.db, a, events('d', 2), new Date());
    await acknowledge(m.db, org, s.id, await seqOf(s, 'd-1'), new Date());
    expect(await deleteAlert(m.db, org, a.id)).to.equal(true);
    expect(await counters(org, me)).to.deep.equal({ organisation: 1, account: 1, rows: 1 });
    expect(Number((await m.db('users').where('id', other).first('event_subscription_count')).event_subscription_count)).to.equal(0);
    expect(await m.db('event_acks').where('subscription_id', s.id)).to.deep.equal([]);
    // Another organisation cannot delete b, and b's subscription stays.
    expect(await deleteAlert(m.db, await organisation(), b.id)).to.equal(false);
    expect(await counters(org, me)).to.deep.equal({ organisation: 1, account: 1, rows: 1 });
    expect(Number((await m.db('organisations').where('id', org).first('alert_count')).alert_count)).to.equal(1);
  });

  it('unsubscribes once, only in its organisation, giving the place back', async () => {
    const org = await organisation();
    const me = await account();
    const s = await subscribed(await alert(org), me);
    expect(await unsubscribe(m.db, await organisation(), s.id)).to.equal(false);
    expect(await unsubscribe(m.db, org, s.id)).to.equal(true);
    expect(await unsubscribe(m.db, org, s.id)).to.equal(false);
    expect(await counters(org, me)).to.deep.equal({ organisation: 0, account: 0, rows: 0 });
  });

  it(`holds exactly ${MAX_SUBSCRIPTIONS} per organisation and per account under 50 concurrent subscribes`, async () => {
    const org = await organisation();
    const a = await alert(org);
    const accounts = await Promise.all([account(), account(), account()]);
    // One account alone: 20 of its 50 succeed.
    const solo = accounts[0] as string;
    const outcomes = await Promise.all(Array.from({ length: 50 }, (_, i) => subscribe(m.db, { id: randomUUID(), organisationId: org, alertId: a.id, createdBy: solo, key: `k${i}`, createdAt: stamp() })));
    expect(outcomes.filter((o) => o.kind === 'created')).to.have.length(MAX_SUBSCRIPTIONS);
    expect(outcomes.filter((o) => o.kind === 'account_full' || o.kind === 'organisation_full')).to.have.length(50 - MAX_SUBSCRIPTIONS);
    expect(await counters(org, solo)).to.deep.equal({ organisation: 20, account: 20, rows: 20 });
    // Free 10 places; two other accounts race for them: the organisation's cap decides.
    const rows = await m.db('event_subscriptions').where('organisation_id', org).limit(10).select('id');
    for (const r of rows) expect(await unsubscribe(m.db, org, r.id)).to.equal(true);
    const raced = await Promise.all(
      Array.from({ length: 50 }, (_, i) => subscribe(m.db, { id: randomUUID(), organisationId: org, alertId: a.id, createdBy: accounts[1 + (i % 2)] as string, key: `r${i}`, createdAt: stamp() })),
    );
    expect(raced.filter((o) => o.kind === 'created')).to.have.length(10);
    expect(raced.filter((o) => o.kind === 'organisation_full')).to.have.length(40);
    const c1 = await counters(org, accounts[1] as string);
    const c2 = await counters(org, accounts[2] as string);
    expect(c1.organisation).to.equal(20);
    expect(c1.rows).to.equal(20);
    expect(c1.account + c2.account).to.equal(10);
    expect(c1.account).to.equal(Number((await m.db('event_subscriptions').where({ organisation_id: org, created_by: accounts[1] }).count({ n: '*' }).first())?.n));
  });
});
