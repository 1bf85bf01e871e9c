// An alert's event is written once per (alert, kind, record): appending it again changes nothing, and the purge keeps the last 30 days.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { appendEvents, purgeEvents, type NewEvent } from '../../../src/domains/events/store.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';

describe('alert event log', () => {
  let m: MigratedDatabase;
  const alert = { id: randomUUID(), organisationId: randomUUID() };

  before(async () => {
    m = await openMigratedDatabase();
    const now = new Date().toISOString();
    await m.db('organisations').insert({ id: alert.organisationId, name: 'Org', created_at: now });
    await m.db('alerts').insert({
      id: alert.id, organisation_id: alert.organisationId, created_by: randomUUID(), name: 'a', query: 'toiture', frequency: 'realtime',
      sources: '[]', sources_watched: '[]', departements: '[]', departements_followed: '[]', departement: null, montant_min: null,
      is_active: true, kind: 'mots_cles', criteria: 'x', created_at: now, last_evaluated_at: null,
    });
  });

  after(async () => {
    await m?.close();
  });

  const event = (id: string, kind: NewEvent['kind'] = 'nouveau_marche'): NewEvent => ({
    kind, source: 'marche', occurredAt: '2026-11-20T10:00:00.000Z', record: { id, titre: `Avis ${id}`, resume: 'r', fields: { marche_id: id } },
  });

  it('appends new events in order and skips those already written', async () => {
    expect(await appendEvents(m.db, alert, [event('a'), event('b')], new Date())).to.equal(2);
    expect(await appendEvents(m.db, alert, [event('b'), event('c'), event('a', 'rappel_echeance')], new Date())).to.equal(2);
    const rows = await m.db('alert_events').where('alert_id', alert.id).orderBy('seq').select('kind', 'record_id', 'record');
    expect(rows.map((r) => `${r.kind}:${r.record_id}`)).to.deep.equal(['nouveau_marche:a', 'nouveau_marche:b', 'nouveau_marche:c', 'rappel_echeance:a']);
    expect(JSON.parse(rows[0].record)).to.deep.equal(event('a').record);
  });

  it('purges what was written more than 30 days ago, only that', async () => {
    const old = new Date(Date.now() - 31 * 86_400_000);
    expect(await appendEvents(m.db, alert, [event('vieux')], old)).to.equal(1);
    expect(await purgeEvents(m.db, new Date())).to.equal(1);
    const left = await m.db('alert_events').where('alert_id', alert.id).count({ n: '*' }).first();
    expect(Number(left?.n)).to.equal(4);
  });
});
