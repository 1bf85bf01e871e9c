// Issue 12: no input, however malformed, gets a 5xx (or MCP -32603), an error outside the contract's shapes, a stack trace, SQL or a path, a change of the workspace when refused, or different answers from REST and MCP.
import { expect } from 'chai';
import { importFuzzData } from '../../../scripts/fuzz/data.js';
import { formatReport } from '../../../scripts/fuzz/report.js';
import { runFuzz } from '../../../scripts/fuzz/run.js';
import { startTestService, usingPostgres, type TestService } from '../../helpers/service.js';

/** Fixed seeds, so that CI sends the same requests every time; `npm run fuzz` draws new ones. */
const SEEDS = [20261124, 12, 4242];
/** Per seed (half REST, half MCP): 4,500 in all, about 20 s on SQLite and 35 s on PostgreSQL on the 2-core machine. */
const REQUESTS = 1500;

const replay = (seed: number, index?: number) =>
  `${usingPostgres ? 'TEST_DB=postgres ' : ''}npm run fuzz -- --seed ${seed} ${index === undefined ? `--requests ${REQUESTS}` : `--case ${index}`}`;

describe('fuzz: malformed and boundary inputs over REST and MCP (issue 12)', function () {
  this.timeout(120_000);
  let svc: TestService;

  before(async () => {
    svc = await startTestService();
    await importFuzzData(svc.db);
  });
  after(async () => svc?.close());

  for (const seed of SEEDS) {
    it(`seed ${seed}: ${REQUESTS} requests, every answer within the rules`, async () => {
      // Each run starts from an empty workspace, so the replay command meets the same state.
      const report = await runFuzz({ url: svc.url, token: svc.token, db: svc.db }, { seed, requests: REQUESTS });
      if (report.failures.length) console.log(formatReport(report, replay));
      expect(report.requests).to.equal(REQUESTS);
      expect(report.failures.length, `${report.failures.length} échec(s), graine ${seed} ; rejouer : ${replay(seed)}`).to.equal(0);
    });
  }
});
