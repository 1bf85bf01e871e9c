// The contract says everything the service enforces: requests valid for the contract (combinations included) are accepted over REST and MCP, or refused only as not found, conflict, plan, scope or quota; the judge fails when the contract leaves a rule out.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { importFuzzData } from '../../../scripts/fuzz/data.js';
import { loadFuzzContract, type FuzzOperation } from '../../../scripts/fuzz/contract.js';
import { generatePositiveCase, runPositive } from '../../../scripts/fuzz/positive.js';
import { formatReport } from '../../../scripts/fuzz/report.js';
import type { RunState } from '../../../scripts/fuzz/generate.js';
import { startTestService, usingPostgres, type TestService } from '../../helpers/service.js';

/** Fixed seeds and a few hundred requests: `npm run fuzz -- --positive` draws new ones. */
const SEEDS = [20261124, 7];
const REQUESTS = 300;

const contract = loadFuzzContract();
const empty: RunState = { alertIds: [], values: new Map(), pages: [] };
const ajv = new Ajv2020({ strict: false, logger: false });
const validators = new Map(contract.operations.map((o) => [o.name, ajv.compile(o.schema as object)]));
const replay = (seed: number, index?: number) =>
  `${usingPostgres ? 'TEST_DB=postgres ' : ''}npm run fuzz -- --positive --seed ${seed} ${index === undefined ? `--requests ${REQUESTS}` : `--case ${index}`}`;

/** The arguments of `count` positive cases of one operation. */
function draws(operation: string, count: number): Record<string, unknown>[] {
  const only = { ...contract, operations: contract.operations.filter((o) => o.name === operation) };
  return Array.from({ length: count }, (_, i) => generatePositiveCase(only, validators, 1, i, empty).args).filter((a): a is Record<string, unknown> => a !== null);
}

describe('fuzz, positive mode: the contract as the judge of the service', function () {
  this.timeout(120_000);

  it('draws a request valid for the contract for every operation', () => {
    for (const op of contract.operations.filter((o) => o.method === 'post')) expect(draws(op.name, 20), op.name).to.have.length(20);
  });

  it('draws every valid combination: siren, siret or both; sources needing departments with them', () => {
    const companies = draws('entreprises.get', 60);
    expect(companies.some((a) => a.siren && !a.siret)).to.equal(true);
    expect(companies.some((a) => a.siret && !a.siren)).to.equal(true);
    expect(companies.some((a) => a.siret && a.siren)).to.equal(true);
    const alerts = draws('alertes.create', 300).filter((a) => Array.isArray(a.sources) && a.sources.every((s) => s === 'attribution' || s === 'dvf'));
    expect(alerts.length).to.be.greaterThan(0);
    for (const a of alerts) expect(Boolean((a.departements as unknown[] | undefined)?.length) || ((a.sources as string[]).includes('dvf') && Boolean(a.departement)), JSON.stringify(a)).to.equal(true);
    const reads = draws('dce.read', 60);
    expect(reads.every((a) => a.query !== undefined || (a.marche_id !== undefined && a.type !== undefined))).to.equal(true);
  });

  describe('against the service', () => {
    let svc: TestService;
    before(async () => {
      svc = await startTestService();
      await importFuzzData(svc.db);
    });
    after(async () => svc?.close());

    for (const seed of SEEDS) {
      it(`seed ${seed}: ${REQUESTS} valid requests, none refused for a reason the contract does not state`, async () => {
        const report = await runPositive({ url: svc.url, token: svc.token, db: svc.db }, { seed, requests: REQUESTS });
        if (report.failures.length) console.log(formatReport(report, replay));
        expect(report.requests).to.equal(REQUESTS);
        expect(report.failures.length, `${report.failures.length} échec(s), graine ${seed} ; rejouer : ${replay(seed)}`).to.equal(0);
      });
    }

    it('fails when the contract leaves a rule out (entreprises.get without « siren or siret »)', async () => {
      const op = contract.operations.find((o) => o.name === 'entreprises.get') as FuzzOperation;
      const { anyOf: _rule, ...loose } = op.schema;
      const report = await runPositive({ url: svc.url, token: svc.token, db: svc.db }, { seed: 3, requests: 60 }, { ...contract, operations: [{ ...op, schema: loose }] });
      const kinds = new Set(report.failures.map((f) => f.kind));
      expect([...kinds]).to.include('refus hors contrat');
      // The MCP tool's own schema still states the rule: the judge says so too.
      expect([...kinds]).to.include('schéma d’outil');
    });
  });
});
