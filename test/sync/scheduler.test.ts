// The scheduler in the service runs, soon after the start, the sources that are late or never ran, and only those; a source disabled by the plan is never run; stopping waits for the runs in progress.
import { expect } from 'chai';
import { pino } from 'pino';
import type { Connector } from '../../src/sync/connector.js';
import { startSyncScheduler } from '../../src/sync/scheduler.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

function connector(name: string, runs: string[], credentials?: string[]): Connector {
  return {
    name,
    label: name,
    alertSource: 'marche',
    importers: {},
    baseUrl: { setting: 'X_URL', default: 'http://127.0.0.1:9' },
    credentials,
    schedule: ['0 3 * * *'],
    staleAfterHours: 24,
    pages: async function* () {
      runs.push(name);
      await new Promise((r) => setTimeout(r, 50));
      yield { records: [], cursor: { at: name } };
    },
  };
}

describe('sync: the scheduler in the service', () => {
  let m: MigratedDatabase;
  beforeEach(async () => {
    m = await openMigratedDatabase();
  });
  afterEach(async () => m.close());

  it('catches up the sources never run or late, not those up to date nor those disabled, and waits for them at stop', async () => {
    const runs: string[] = [];
    await m.db('sync_state').insert([
      { source: 'fresh', last_success_at: new Date(Date.now() - 3600_000).toISOString() },
      { source: 'late', last_success_at: new Date(Date.now() - 48 * 3600_000).toISOString() },
    ]);
    const scheduler = startSyncScheduler({
      db: m.db,
      connectors: [connector('never', runs), connector('fresh', runs), connector('late', runs), connector('locked', runs, ['KEY'])],
      plan: { enabled: true, sources: null, settings: {} },
      logger: pino({ level: 'silent' }),
      catchUpAfterMs: 20,
    });
    for (let i = 0; i < 100 && runs.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
    await scheduler.stop();
    expect(runs.sort()).to.deep.equal(['late', 'never']);
    const rows = (await m.db('sync_state').select('source', 'last_success_at', 'cursor').orderBy('source')) as { source: string; last_success_at: string | null; cursor: string | null }[];
    expect(rows.filter((r) => r.cursor).map((r) => r.source)).to.deep.equal(['late', 'never']);
  });
});
