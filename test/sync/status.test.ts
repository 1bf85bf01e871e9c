// A source's freshness follows its state row and the plan: import manuel without SYNC, désactivée without credentials or outside SYNC_SOURCES, en échec after a failure, en retard past its cadence or never run, à jour otherwise; an alert source fed by several connectors takes the worst of those that run.
import { expect } from 'chai';
import type { Connector } from '../../src/sync/connector.js';
import { syncFreshness, type SourceFreshness } from '../../src/sync/status.js';
import { sourceSync } from '../../src/domains/source-freshness.js';
import { openMigratedDatabase, type MigratedDatabase } from '../helpers/service.js';

const NOW = new Date('2026-11-26T12:00:00Z');
const HOUR = 3600_000;
const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR).toISOString();

function connector(name: string, credentials?: string[]): Connector {
  return { name, label: name, alertSource: 'entreprise', importers: {}, baseUrl: { setting: 'X_URL', default: 'http://x' }, credentials, schedule: [], staleAfterHours: 26, pages: async function* () {} };
}

describe('sync: freshness of the sources', () => {
  let m: MigratedDatabase;
  beforeEach(async () => {
    m = await openMigratedDatabase();
  });
  afterEach(async () => m.close());

  const state = async (plan: { enabled: boolean; sources?: string[] | null; settings?: Record<string, string> }, connectors: Connector[]) =>
    syncFreshness(m.db, connectors, { enabled: plan.enabled, sources: plan.sources ?? null, settings: plan.settings ?? {} }, NOW);

  it('says import manuel without SYNC, désactivée without credentials or outside SYNC_SOURCES', async () => {
    const [off] = await state({ enabled: false }, [connector('a')]);
    expect(off).to.include({ state: 'import manuel' });
    const [noKey] = await state({ enabled: true }, [connector('a', ['KEY'])]);
    expect(noKey).to.include({ state: 'désactivée', reason: 'identifiants absents : KEY' });
    const [excluded] = await state({ enabled: true, sources: ['b'], settings: { KEY: 'k' } }, [connector('a', ['KEY'])]);
    expect(excluded).to.include({ state: 'désactivée', reason: 'source absente de SYNC_SOURCES' });
  });

  it('says en retard when never run or past its cadence, en échec after a failure newer than the last success, à jour otherwise', async () => {
    const c = connector('a');
    expect((await state({ enabled: true }, [c]))[0]).to.include({ state: 'en retard', reason: 'jamais synchronisée' });
    await m.db('sync_state').insert({ source: 'a', last_success_at: at(30) });
    expect((await state({ enabled: true }, [c]))[0]?.state).to.equal('en retard');
    await m.db('sync_state').where('source', 'a').update({ last_success_at: at(2) });
    expect((await state({ enabled: true }, [c]))[0]).to.include({ state: 'à jour', reason: null });
    await m.db('sync_state').where('source', 'a').update({ last_failure_at: at(1), last_failure_reason: 'api.test a répondu HTTP 500' });
    expect((await state({ enabled: true }, [c]))[0]).to.include({ state: 'en échec', reason: 'api.test a répondu HTTP 500' });
    await m.db('sync_state').where('source', 'a').update({ last_success_at: at(0.5) });
    expect((await state({ enabled: true }, [c]))[0]?.state).to.equal('à jour');
  });

  it('an alert source takes the worst state of the connectors that run, names the others, and gives the oldest success', () => {
    const base = { label: 'x', alertSource: 'entreprise', lastFailureAt: null, running: false, run: { startedAt: null, read: 0, added: 0, updated: 0, skipped: 0 } };
    const ok = (source: string, lastSuccessAt: string): SourceFreshness => ({ ...base, source, state: 'à jour', reason: null, lastSuccessAt });
    const plan = { enabled: true, sources: null, settings: {} };
    const disabled: SourceFreshness = { ...base, source: 'sirene', state: 'désactivée', reason: 'identifiants absents : INSEE_API_KEY', lastSuccessAt: null };
    const both = sourceSync('entreprise', [ok('rge', at(1)), ok('ratios', at(5)), disabled], plan);
    expect(both.etat).to.equal('à jour');
    expect(both.raison).to.equal('sirene : identifiants absents : INSEE_API_KEY');
    expect(new Date(both.derniere_synchronisation as string).toISOString()).to.equal(at(5));
    const late: SourceFreshness = { ...base, source: 'rne', state: 'en retard', reason: 'jamais synchronisée', lastSuccessAt: null };
    expect(sourceSync('entreprise', [ok('rge', at(1)), late], plan)).to.deep.include({ etat: 'en retard', derniere_synchronisation: null });
    expect(sourceSync('entreprise', [disabled], plan).etat).to.equal('désactivée');
    expect(sourceSync('entreprise', [{ ...disabled, state: 'import manuel' }], { ...plan, enabled: false }).etat).to.equal('import manuel');
    expect(sourceSync('mairie', [], plan)).to.deep.equal({ etat: 'import manuel', raison: 'aucun producteur national : les données viennent des imports', derniere_synchronisation: null, connecteurs: [] });
  });
});
