// The service's robot runs the slot of the moment as soon as it starts (a missed slot, once), logs counts only, and stops cleanly.
import { expect } from 'chai';
import { startRobotScheduler } from '../../../src/domains/robot/scheduler.js';
import { collectingLogger, openMigratedDatabase, type MigratedDatabase } from '../../helpers/service.js';
import { addNotice, createAlert, createOrganisation, iso } from './fixtures.js';

describe('alert robot scheduler', () => {
  let m: MigratedDatabase;
  before(async () => {
    m = await openMigratedDatabase();
  });
  after(async () => {
    await m?.close();
  });

  it('runs the slot of the moment at start, once, and logs no user value', async () => {
    const T = new Date('2026-11-24T08:05:00Z');
    const org = await createOrganisation(m.db);
    await createAlert(m.db, org, { name: 'Secret client', query: 'zinc confidentiel', sources: ['marche'], createdAt: iso(T.getTime() - 86_400_000) });
    await addNotice(m.db, { objet: 'Zinc confidentiel', at: iso(T.getTime() - 2 * 3_600_000) });
    const { logger, lines } = collectingLogger();
    const robot = startRobotScheduler({ db: m.db, publicUrl: 'https://service.test', now: () => T }, logger);
    await robot.current();
    await robot.stop();
    expect(Number((await m.db('robot_runs').whereNotNull('finished_at').count<{ n: number }[]>('* as n'))[0]?.n)).to.equal(1);
    expect(Number((await m.db('alert_events').count<{ n: number }[]>('* as n'))[0]?.n)).to.equal(1);
    const line = lines.find((l) => l.msg === 'robot : créneau évalué');
    expect(line).to.deep.include({ alertes: 1, evenements: 1 });
    expect(JSON.stringify(lines)).not.to.match(/Secret|confidentiel|zinc/i);
  });
});
