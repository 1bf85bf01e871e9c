// The MCP conformance suite's applicable server scenarios pass on the three addresses, on both revisions (2025-11-25 and 2026-07-28), with a token.
// The suite takes a URL and no header: it reaches the service through a loopback proxy that adds the bearer token.
// The scenarios and checks left out need the suite's test-only tools, prompts or features the service does not declare (see the README).
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { startBearerProxy, type BearerProxy } from '../../helpers/bearer-proxy.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SUITE = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url));
const NODE20_SHIM = fileURLToPath(new URL('../../helpers/conformance-node20.mjs', import.meta.url));

const ADDRESSES = ['/api/mcp', '/api/mcp/connectors', '/api/mcp/assistant'];

/** The applicable server scenarios, per revision (`conformance list --server` lists them all). */
const SCENARIOS: Record<string, string[]> = {
  '2025-11-25': ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'],
  '2026-07-28': [
    'server-stateless',
    'tools-list',
    'resources-list',
    'sep-2164-resource-not-found',
    'caching',
    'http-header-validation',
    'server-sse-multiple-streams',
    'dns-rebinding-protection',
  ],
};

/**
 * Checks of applicable scenarios that probe what the service does not have: the suite
 * reports them as failures it could not test. Each is accepted only with that reason.
 */
const NOT_APPLICABLE_CHECKS: Record<string, RegExp> = {
  // The suite's test-only tools (a tool needing sampling, one streaming an elicitation, one logging).
  'sep-2575-server-rejects-undeclared-capability': /^Not testable: .*'test_missing_capability'/,
  'sep-2575-missing-capability-http-400': /^Not testable: .*'test_missing_capability'/,
  'sep-2575-http-server-no-independent-requests-on-stream': /^Not testable: .*'test_streaming_elicitation'/,
  'sep-2575-server-no-log-without-loglevel': /^Not testable: .*'test_logging_tool'/,
  // No prompts are declared: prompts/list is an unknown method, so it has no cache hints to check.
  'sep-2549-prompts-list-caching-hints': /returned JSON-RPC error -32601/,
};

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Runs one scenario of the suite and reads its checks (the suite exits 1 on any failure: judged here, check by check). */
function runScenario(url: string, scenario: string, revision: string): Promise<Check[]> {
  const out = mkdtempSync(join(tmpdir(), 'conformance-'));
  const args = ['--import', NODE20_SHIM, SUITE, 'server', '--url', url, '--scenario', scenario, '--spec-version', revision, '--timeout', '20000', '-o', out];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { timeout: 40_000 }, (error, stdout) => {
      try {
        const [dir] = readdirSync(out);
        if (!dir) return reject(new Error(`la suite n'a rien écrit (${error?.message ?? ''}) ${stdout.slice(-500)}`));
        resolve(JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
      } catch (err) {
        reject(err as Error);
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  });
}

describe('MCP conformance suite (server scenarios)', function () {
  this.timeout(60_000);
  let svc: TestService;
  let proxy: BearerProxy;

  before(async () => {
    proxy = await startBearerProxy();
    // The suite's requests come from the proxy's origin (its DNS-rebinding scenario sends it): declared, as ALLOWED_ORIGINS does.
    svc = await startTestService({ config: { allowedOrigins: [proxy.url] } });
    proxy.aim(svc.url, svc.token);
  });
  after(async () => {
    await proxy.close();
    await svc.close();
  });

  for (const [revision, scenarios] of Object.entries(SCENARIOS)) {
    for (const address of ADDRESSES) {
      for (const scenario of scenarios) {
        it(`${revision} ${address}: ${scenario}`, async () => {
          const checks = await runScenario(`${proxy.url}${address}`, scenario, revision);
          expect(checks.filter((c) => c.status === 'SUCCESS'), 'aucun contrôle réussi').to.not.be.empty;
          const wrong = checks.filter((c) => {
            if (c.status === 'SUCCESS' || c.status === 'INFO' || c.status === 'SKIPPED') return false;
            const reason = NOT_APPLICABLE_CHECKS[c.id];
            return !(c.status === 'FAILURE' && reason && reason.test(c.errorMessage ?? ''));
          });
          expect(wrong.map((c) => `${c.id} ${c.status}: ${c.errorMessage ?? ''}`)).to.deep.equal([]);
        });
      }
    }
  }
});
