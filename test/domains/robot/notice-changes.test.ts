// A notice an alert reported, then corrected (deadline moved) or cancelled by a later BOAMP notice (`annonce_lie`), raises `avis_modifie` with what changed; a second correction raises a second event; the same correction never twice (re-import, replayed window).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { importFile } from '../../../src/import/run.js';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { stableUuid } from '../../../src/import/fields.js';
import { runRobotSlot } from '../../../src/domains/robot/run.js';
import { openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { createAlert, createOrganisation, eventsOf } from './fixtures.js';

const EXCERPTS = fileURLToPath(new URL('../notices/fixtures/boamp-forms-excerpts.json', import.meta.url));
const URL_BASE = 'https://service.test';
const silent = () => ({ update: () => undefined, stop: () => undefined });
type Answer = { total_count: number; results: Record<string, unknown>[] };
type Event = Awaited<ReturnType<typeof eventsOf>>[number];

const HOUR = 3_600_000;
const at = (iso: string) => new Date(iso);
/** The robot's run two hours after an import: past the window's margin. */
const runAfter = (iso: string) => new Date(new Date(iso).getTime() + 2 * HOUR + 5 * 60_000);

describe('alert robot: a reported notice corrected or cancelled by a later notice (avis_modifie)', function () {
  this.timeout(60_000);
  let m: MigratedDatabase;
  let dir: string;
  let alert: string;
  const excerpts = JSON.parse(readFileSync(EXCERPTS, 'utf8')) as Answer;
  const [first, second, , , correction, cancellation] = excerpts.results as Record<string, unknown>[];
  const quimper = stableUuid('boamp:26-90001');
  const college = stableUuid('boamp:26-90002');
  /** A second correction of the first notice, published later: the deadline moves again. */
  const secondCorrection = { ...correction, id: '26_91003', idweb: '26-91003', dateparution: '2026-09-20', datelimitereponse: '2026-10-20T10:00:00+00:00', annonce_lie: ['26-90001'] };

  const importAt = (name: string, results: unknown[], when: string) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ total_count: results.length, results }));
    return importFile(m.db, IMPORTERS.boamp as never, path, { progress: silent, now: () => at(when) });
  };
  const run = (when: Date) => runRobotSlot({ db: m.db, publicUrl: URL_BASE, now: () => when });
  const changes = async () => (await eventsOf(m.db, alert)).filter((e) => e.kind === 'avis_modifie');
  const fieldsOf = (e: Event | undefined) => JSON.parse(e?.record ?? '{}').fields as Record<string, any>;

  before(async () => {
    m = await openMigratedDatabase();
    dir = mkdtempSync(join(tmpdir(), 'robot-notice-changes-'));
    const org = await createOrganisation(m.db);
    alert = await createAlert(m.db, org, { query: 'groupe scolaire, isolation collège', sources: ['marche'], departements: ['29'], createdAt: '2026-08-01T00:00:00.000Z' });
  });
  after(async () => {
    await m?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the notices as new first, with no change', async () => {
    // Imported late August: the journal keeps an alert's events 30 days, the changes come within them.
    await importAt('notices.json', [first, second], '2026-08-25T06:00:00.000Z');
    await run(runAfter('2026-08-25T06:00:00.000Z'));
    const events = await eventsOf(m.db, alert);
    expect(events.map((e) => `${e.kind}:${e.record_id}`).sort()).to.deep.equal([`nouveau_marche:${college}`, `nouveau_marche:${quimper}`].sort());
    expect(fieldsOf(events[0]).modification).to.equal(null);
  });

  it('a correction moving the deadline and a cancellation each raise avis_modifie with fields.modification', async () => {
    await importAt('corrections.json', [correction, cancellation], '2026-09-02T06:00:00.000Z');
    await run(runAfter('2026-09-02T06:00:00.000Z'));
    const events = await changes();
    expect(events.map((e) => e.record_id).sort()).to.deep.equal([`${college}@26-91002`, `${quimper}@26-91001`].sort());
    const moved = fieldsOf(events.find((e) => e.record_id.startsWith(quimper)));
    expect(moved).to.include({ marche_id: quimper, date_limite: '2026-10-06T12:00:00+02:00', annule: false });
    expect(moved.modification).to.deep.equal({ le: '2026-09-02T08:00:00+02:00', par: '26-91001', libelle: 'date limite fixée au 06/10/2026 par l’avis rectificatif 26-91001' });
    const cancelled = fieldsOf(events.find((e) => e.record_id.startsWith(college)));
    expect(cancelled).to.include({ marche_id: college, annule: true, ouvert: false });
    expect(cancelled.modification).to.deep.include({ par: '26-91002', libelle: 'avis annulé par l’avis 26-91002 du 02/09/2026' });
    const record = JSON.parse(events.find((e) => e.record_id.startsWith(college))?.record ?? '{}');
    expect(record.resume).to.include('avis annulé');
  });

  it('the same correction is never reported twice: a later run, a re-import, a replayed window', async () => {
    await run(runAfter('2026-09-02T09:00:00.000Z'));
    // The synchronisation reads the same notices again: what they say is unchanged.
    await importAt('again.json', [first, second, correction, cancellation], '2026-09-03T06:00:00.000Z');
    await run(runAfter('2026-09-03T06:00:00.000Z'));
    expect(await changes()).to.have.length(2);
    // A run replaying the window where the changes entered (its progress lost) writes nothing anew.
    await m.db('alerts').where('id', alert).update({ robot_slot: null, robot_window_end: '2026-09-01T00:00:00.000Z' });
    await run(runAfter('2026-09-04T06:00:00.000Z'));
    expect(await changes()).to.have.length(2);
  });

  it('a second correction of the same notice raises a second event, once', async () => {
    await importAt('second-correction.json', [secondCorrection], '2026-09-20T06:00:00.000Z');
    await run(runAfter('2026-09-20T06:00:00.000Z'));
    const events = await changes();
    expect(events.map((e) => e.record_id)).to.have.length(3);
    const last = events[2] as Event;
    expect(last.record_id).to.equal(`${quimper}@26-91003`);
    expect(fieldsOf(last)).to.include({ date_limite: '2026-10-20T12:00:00+02:00' });
    expect(fieldsOf(last).modification).to.deep.include({ par: '26-91003', libelle: 'date limite fixée au 20/10/2026 par l’avis rectificatif 26-91003' });
    await importAt('second-again.json', [secondCorrection, correction], '2026-09-21T06:00:00.000Z');
    await run(runAfter('2026-09-21T06:00:00.000Z'));
    await m.db('alerts').where('id', alert).update({ robot_slot: null, robot_window_end: '2026-09-19T00:00:00.000Z' });
    await run(runAfter('2026-09-22T06:00:00.000Z'));
    expect((await changes()).map((e) => e.record_id)).to.deep.equal(events.map((e) => e.record_id));
  });
});
