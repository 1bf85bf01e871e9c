// The robot reports, per source, exactly what the rules say on a fixed clock: new documents since the last evaluation (with the window margin), D-7 once, the 45-day permits, departments and amounts, frequencies, inactive alerts skipped, a missed slot run once, one run per slot under a race.
import { expect } from 'chai';
import { openDatabase } from '../../../src/platform/db/database.js';
import { runRobotSlot } from '../../../src/domains/robot/run.js';
import { WINDOW_MARGIN_MS } from '../../../src/domains/robot/evaluate.js';
import { claimSlot, ROBOT_LEASE_MS } from '../../../src/domains/robot/slot-lease.js';
import { robotSlotOf } from '../../../src/domains/robot/schedule.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import {
  addAnnouncement, addAward, addCompany, addContact, addDce, addDeliberation, addNotice, addPermit, addPublication, addSale, createAlert, createOrganisation, eventsOf, iso,
} from './fixtures.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 09:05 in Paris, in the 09:00 slot. */
const T = new Date('2026-11-24T08:05:00Z');
const URL = 'https://service.test';

describe('alert robot: the rules of each source on a fixed clock', function () {
  this.timeout(30_000);
  let m: MigratedDatabase;
  let org: string;
  const created = iso(T.getTime() - 2 * DAY);
  const before = iso(T.getTime() - 3 * DAY);
  const fresh = iso(T.getTime() - 2 * HOUR);
  /** Inside the margin: entered too recently for this run, taken by the next. */
  const late = iso(T.getTime() - WINDOW_MARGIN_MS / 2);
  const run = (at: Date, owner?: string) => runRobotSlot({ db: m.db, publicUrl: URL, now: () => at, owner });

  beforeEach(async () => {
    m = await openMigratedDatabase();
    org = await createOrganisation(m.db);
  });
  afterEach(async () => {
    await m?.close();
  });

  it('marche: new notices citing the terms in the departments, after the margin; older or other ones not', async () => {
    const alert = await createAlert(m.db, org, { query: 'toiture zinc', sources: ['marche'], departements: ['35'], createdAt: created });
    const wanted = await addNotice(m.db, { objet: 'Réfection de la toiture en zinc de l’école', departements: ['35'], at: fresh });
    await addNotice(m.db, { objet: 'Toiture zinc de la mairie', departements: ['35'], at: before });
    await addNotice(m.db, { objet: 'Toiture zinc du gymnase', departements: ['56'], at: fresh });
    await addNotice(m.db, { objet: 'Peinture de la toiture', departements: ['35'], at: fresh });
    const lateOne = await addNotice(m.db, { objet: 'Toiture zinc de la crèche', departements: ['35'], at: late });

    const first = await run(T);
    expect(first.ran).to.equal(true);
    const events = await eventsOf(m.db, alert);
    expect(events.map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([`nouveau_marche:${wanted}`]);
    const record = JSON.parse(events[0]?.record ?? '{}');
    expect(record.fields.url).to.equal(`${URL}/marches/${wanted}`);
    expect(record.titre).to.match(/zinc/);

    await run(new Date(T.getTime() + 3 * HOUR));
    expect((await eventsOf(m.db, alert)).map((e) => e.record_id)).to.deep.equal([wanted, lateOne]);
    const row = await m.db('alerts').where('id', alert).first('last_evaluated_at');
    expect(row.last_evaluated_at).to.equal(iso(T.getTime() + 3 * HOUR));
  });

  it('marche: one D-7 reminder per reported notice, at once or when the deadline comes near, never twice', async () => {
    const alert = await createAlert(m.db, org, { query: 'charpente', sources: ['marche'], createdAt: created });
    const near = await addNotice(m.db, { objet: 'Charpente bois', dateLimite: iso(T.getTime() + 5 * DAY), at: iso(T.getTime() - 3 * HOUR) });
    const far = await addNotice(m.db, { objet: 'Charpente métallique', dateLimite: iso(T.getTime() + 10 * DAY), at: fresh });
    await run(T);
    expect((await eventsOf(m.db, alert)).map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([`nouveau_marche:${near}`, `nouveau_marche:${far}`, `rappel_echeance:${near}`]);
    const later = new Date(T.getTime() + 4 * DAY);
    await run(later);
    await run(new Date(later.getTime() + 3 * HOUR));
    expect((await eventsOf(m.db, alert)).map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([
      `nouveau_marche:${near}`, `nouveau_marche:${far}`, `rappel_echeance:${near}`, `rappel_echeance:${far}`,
    ]);
  });

  it('dce: new files citing the terms on one page; with a department only files of a notice there', async () => {
    const anywhere = await createAlert(m.db, org, { query: 'désamiantage', sources: ['dce'], createdAt: created });
    const in35 = await createAlert(m.db, org, { query: 'désamiantage', sources: ['dce'], departements: ['35'], createdAt: created });
    const notice = await addNotice(m.db, { objet: 'Rénovation du collège', departements: ['35'], at: before });
    const located = await addDce(m.db, { marcheId: notice, pages: ['Article 1 : objet.', 'Le titulaire assure le désamiantage des locaux.'], at: fresh });
    const unmatched = await addDce(m.db, { marcheId: null, pages: ['Travaux de désamiantage'], at: fresh });
    await addDce(m.db, { marcheId: notice, pages: ['Peinture des couloirs'], at: fresh });
    await run(T);
    expect((await eventsOf(m.db, anywhere)).map((e) => e.record_id).sort()).to.deep.equal([located, unmatched].sort());
    const events = await eventsOf(m.db, in35);
    expect(events.map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([`nouveau_dce:${located}`]);
    expect(JSON.parse(events[0]?.record ?? '{}').fields.url).to.equal(`${URL}/marches/${notice}`);
  });

  it('attribution: awards citing the terms in the followed departments, montant_min applied', async () => {
    const alert = await createAlert(m.db, org, { query: 'voirie', sources: ['attribution'], departementsFollowed: ['35'], departements: ['35'], montantMin: 100_000, createdAt: created });
    const big = await addAward(m.db, { objet: 'Travaux de voirie', departement: '35', montant: 250_000, at: fresh, titulaire: 'Colas' });
    await addAward(m.db, { objet: 'Travaux de voirie', departement: '35', montant: 50_000, at: fresh });
    await addAward(m.db, { objet: 'Travaux de voirie', departement: '56', montant: 250_000, at: fresh });
    await addAward(m.db, { objet: 'Travaux de voirie', departement: '35', montant: null, at: fresh });
    const byWinner = await createAlert(m.db, org, { query: 'colas', sources: ['attribution'], departementsFollowed: ['35'], departements: ['35'], createdAt: created });
    await run(T);
    expect((await eventsOf(m.db, alert)).map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([`attribution:${big}`]);
    expect((await eventsOf(m.db, byWinner)).map((e) => e.record_id)).to.deep.equal([big]);
  });

  it('permis: new permits authorised, started or finished in the last 45 days', async () => {
    const alert = await createAlert(m.db, org, { query: 'maison', sources: ['permis'], createdAt: created });
    const recent = await addPermit(m.db, { nature: 'Construction d’une maison individuelle', departement: '35', etat: '2', dateAutorisation: iso(T.getTime() - 10 * DAY).slice(0, 10), at: fresh });
    const started = await addPermit(m.db, { nature: 'Maison', departement: '35', etat: '5', dateAutorisation: iso(T.getTime() - 44 * DAY).slice(0, 10), at: fresh });
    await addPermit(m.db, { nature: 'Maison', departement: '35', etat: '2', dateAutorisation: iso(T.getTime() - 60 * DAY).slice(0, 10), at: fresh });
    await addPermit(m.db, { nature: 'Maison', departement: '35', etat: '4', dateAutorisation: iso(T.getTime() - 5 * DAY).slice(0, 10), at: fresh });
    await run(T);
    expect((await eventsOf(m.db, alert)).map((e) => e.record_id).sort()).to.deep.equal([recent, started].sort());
  });

  it('reseaux_sociaux, mairie, bodacc, entreprise, contact: new records citing the terms (prefix of the last word too)', async () => {
    const alert = await createAlert(m.db, org, { query: 'isolation therm', sources: ['reseaux_sociaux', 'mairie', 'bodacc', 'entreprise', 'contact'], createdAt: created });
    const post = await addPublication(m.db, { texte: 'Chantier d’isolation thermique terminé à l’école', departement: '35', at: fresh });
    await addPublication(m.db, { texte: 'Isolation phonique', departement: '35', at: fresh });
    const minutes = await addDeliberation(m.db, { titre: 'Isolation thermique de la salle des fêtes', texte: 'Le conseil approuve.', departement: '35', at: fresh });
    const announcement = await addAnnouncement(m.db, { denomination: 'Breizh Iso', activite: 'isolation thermique des bâtiments', departement: '35', at: fresh });
    const company = await addCompany(m.db, { denomination: 'ISOLATION THERMIQUE DE L’OUEST', departement: '35', at: fresh });
    const contact = await addContact(m.db, { nom: 'Jeanne Martin', role: 'Chargée isolation thermique', departement: '35', at: fresh });
    await run(T);
    const events = await eventsOf(m.db, alert);
    expect(events.map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([
      `publication:${post}`, `deliberation:${minutes}`, `annonce_bodacc:${announcement}`, `entreprise:${company}`, `contact:${contact}`,
    ]);
    for (const e of events) {
      const record = JSON.parse(e.record);
      expect(record).to.have.keys(['id', 'titre', 'resume', 'fields']);
      expect(JSON.stringify(record)).not.to.match(/@|telephone|email/i);
    }
  });

  it('dvf: every new sale of the followed departments, the terms ignored', async () => {
    const alert = await createAlert(m.db, org, { query: 'sans rapport', sources: ['dvf'], departements: ['35'], createdAt: created });
    const sale = await addSale(m.db, { departement: '35', at: fresh });
    await addSale(m.db, { departement: '56', at: fresh });
    await addSale(m.db, { departement: '35', at: before });
    await run(T);
    expect((await eventsOf(m.db, alert)).map((e) => `${e.kind}:${e.record_id}`)).to.deep.equal([`vente:${sale}`]);
  });

  it('frequencies: realtime each run, daily once a day, weekly once a week; inactive alerts never', async () => {
    const ids = {
      realtime: await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], frequency: 'realtime', createdAt: created }),
      daily: await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], frequency: 'daily', createdAt: created }),
      weekly: await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], frequency: 'weekly', createdAt: created }),
      inactive: await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], isActive: false, createdAt: created }),
    };
    const evaluated = async () => {
      const rows = await m.db('alerts').whereIn('id', Object.values(ids)).select('id', 'last_evaluated_at');
      return Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, rows.find((r) => r.id === id)?.last_evaluated_at ?? null]));
    };
    await addNotice(m.db, { objet: 'Couverture zinc', at: fresh });
    const times = [0, 3 * HOUR, DAY, 2 * DAY, 7 * DAY].map((d) => new Date(T.getTime() + d));
    const seen: Record<string, (string | null)[]> = { realtime: [], daily: [], weekly: [], inactive: [] };
    for (const at of times) {
      expect((await run(at)).ran).to.equal(true);
      for (const [k, v] of Object.entries(await evaluated())) seen[k]?.push(v);
    }
    const at = times.map(iso);
    expect(seen.realtime).to.deep.equal(at);
    expect(seen.daily).to.deep.equal([at[0], at[0], at[2], at[3], at[4]]);
    expect(seen.weekly).to.deep.equal([at[0], at[0], at[0], at[0], at[4]]);
    expect(seen.inactive).to.deep.equal([null, null, null, null, null]);
    expect(await eventsOf(m.db, ids.inactive)).to.deep.equal([]);
    // Each active alert reported the notice once.
    for (const k of ['realtime', 'daily', 'weekly'] as const) expect(await eventsOf(m.db, ids[k])).to.have.length(1);
  });

  it('a missed slot is run once when the service comes back, not once per missed slot', async () => {
    await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], createdAt: created });
    await run(T);
    // Down from 09:10 to 19:20 (Paris): the 12:00, 15:00 and 18:00 slots were missed.
    const back = new Date(T.getTime() + 10 * HOUR + 15 * 60_000);
    const outcome = await run(back);
    expect(outcome.ran).to.equal(true);
    expect((await run(new Date(back.getTime() + 10 * 60_000))).ran).to.equal(false);
    const slots = (await m.db('robot_runs').orderBy('slot_start').pluck('slot_start')) as string[];
    expect(slots).to.deep.equal([iso(robotSlotOf(T)), iso(robotSlotOf(back))]);
  });

  it('a slot is claimed once while its lease runs; an expired lease is taken over, the alerts done are not evaluated again', async () => {
    const done = await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], createdAt: created });
    const todo = await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], createdAt: created });
    const notice = await addNotice(m.db, { objet: 'Zinc', at: fresh });
    const slot = robotSlotOf(T);
    // A runner that claimed the slot, wrote one alert, and died.
    expect(await claimSlot(m.db, slot, T, 'mort')).to.deep.include({ resumed: false });
    await m.db('alerts').where('id', done).update({ robot_slot: iso(slot), robot_window_end: iso(T.getTime() - WINDOW_MARGIN_MS), last_evaluated_at: iso(T) });
    expect(await run(new Date(T.getTime() + ROBOT_LEASE_MS / 2), 'vivant')).to.deep.include({ ran: false, reason: 'held' });
    const resumed = await run(new Date(T.getTime() + ROBOT_LEASE_MS + 1000), 'vivant');
    expect(resumed).to.deep.include({ ran: true, resumed: true, alertsEvaluated: 1 });
    expect(await eventsOf(m.db, done)).to.deep.equal([]);
    expect((await eventsOf(m.db, todo)).map((e) => e.record_id)).to.deep.equal([notice]);
    const row = await m.db('robot_runs').first('owner', 'finished_at', 'takeovers');
    expect(row).to.deep.include({ owner: 'vivant', takeovers: 1 });
    expect(row.finished_at).to.be.a('string');
  });

  it('two database handles racing for the same slot: one run', async () => {
    await createAlert(m.db, org, { query: 'zinc', sources: ['marche'], createdAt: created });
    await addNotice(m.db, { objet: 'Zinc', at: fresh });
    // Two connections as two service processes have them (a lock is waited for off the event loop).
    const handles = [openDatabase(m.databaseUrl, { busyTimeoutMs: 10 }), openDatabase(m.databaseUrl, { busyTimeoutMs: 10 })];
    try {
      const outcomes = await Promise.all(handles.map((db, i) => runRobotSlot({ db, publicUrl: URL, now: () => T, owner: `p${i}` })));
      expect(outcomes.filter((o) => o.ran)).to.have.length(1);
      expect(await m.db('robot_runs').count<{ n: number }[]>('* as n').then((r) => Number(r[0]?.n))).to.equal(1);
      expect(await m.db('alert_events').count<{ n: number }[]>('* as n').then((r) => Number(r[0]?.n))).to.equal(1);
    } finally {
      await Promise.all(handles.map((h) => h.destroy()));
    }
  });
});
