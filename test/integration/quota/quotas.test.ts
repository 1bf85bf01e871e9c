// Call quotas are one rule below both transports: every REST call and MCP tools/call counts once (whatever its outcome, never when refused by a quota), per account across REST and the MCP addresses, with the spec's French refusals, counters and limits that change on the next call.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { OperationEntry, ToolEntry } from '../../../src/contract/types.js';
import { setOrganisationPlan } from '../../../src/auth/store/accounts.js';
import { mcpClient } from '../../helpers/mcp.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { accountInOwnOrganisation, callLogCount, mcpPost, nextDate, parisDateAndOffset, restAt, snapshot, toolCall, type Answer } from './quota-helpers.js';

const { operations } = JSON.parse(readFileSync(new URL('../../../generated/operations.json', import.meta.url), 'utf8')) as { operations: OperationEntry[] };
const catalogue = JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] };

const PARIS_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?\+0[12]:00$/;
const MINUTE_MESSAGE = [/Quota par minute atteint/, /un appel à la fois/];

/** The per-minute refusal tells the real wait (the answer's seconds) and the truth of the caller's plan: a free account's rate is raised by a subscription (5 → 30). */
function expectMinuteMessage(message: string, seconds: number, plan: 'free' | 'subscribed'): void {
  for (const pattern of MINUTE_MESSAGE) expect(message).to.match(pattern);
  expect(message).to.include(`Réessayer dans ${seconds} seconde${seconds > 1 ? 's' : ''}`);
  expect(message).to.not.match(/Attendre une minute|ne change rien/);
  if (plan === 'free') expect(message).to.include('5 appels par minute').and.include('au plus un toutes les 12 secondes').and.include('la formule abonnée porte ce rythme à 30 appels par minute');
  else expect(message).to.include('30 appels par minute').and.include('au plus un toutes les 2 secondes').and.include('l’organisation est déjà abonnée').and.not.include('porte ce rythme');
}

/** A REST quota refusal: 429 quota_exceeded, Retry-After integer equal to the body's seconds; returns those seconds. */
function expectRestQuotaRefusal(answer: Answer, max: number): number {
  expect(answer.status, JSON.stringify(answer.json)).to.equal(429);
  expect(answer.json.api_contract_version).to.equal('3.0.0');
  expect(answer.json.error.code).to.equal('quota_exceeded');
  const header = answer.headers.get('retry-after');
  expect(header).to.match(/^\d+$/);
  const seconds = answer.json.error.retry_after_seconds;
  expect(seconds).to.be.a('number').and.equal(Number(header));
  expect(seconds).to.be.within(1, max);
  return seconds as number;
}

/** An MCP call-quota refusal: JSON-RPC -32004 in an HTTP 200 answer, Retry-After header equal to data.retry_after_seconds. */
function expectMcpQuotaRefusal(answer: Answer, max: number): { seconds: number; message: string } {
  expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
  expect(answer.json.result, JSON.stringify(answer.json)).to.equal(undefined);
  expect(answer.json.error.code).to.equal(-32004);
  const seconds = answer.json.error.data?.retry_after_seconds;
  expect(seconds).to.be.a('number').and.within(1, max);
  expect(answer.headers.get('retry-after')).to.equal(String(seconds));
  return { seconds: seconds as number, message: answer.json.error.message as string };
}

/** A tools/call answered by the tool (a result, possibly a tool error), not refused by the protocol. */
function expectToolResult(answer: Answer, isError = false): CallToolResult {
  expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
  expect(answer.json.error, JSON.stringify(answer.json)).to.equal(undefined);
  expect(Boolean(answer.json.result.isError), JSON.stringify(answer.json.result)).to.equal(isError);
  return answer.json.result as CallToolResult;
}

describe('call quotas on REST and MCP', function () {
  this.timeout(30000);
  let svc: TestService;
  let mcp: string;
  let assistant: string;
  let connectors: string;

  before(async () => {
    svc = await startTestService();
    mcp = `${svc.url}/api/mcp`;
    assistant = `${svc.url}/api/mcp/assistant`;
    connectors = `${svc.url}/api/mcp/connectors`;
  });
  after(async () => svc.close());

  describe('the per-minute ceiling of a free account', () => {
    it('REST: admits 5 calls, answers the 6th 429 quota_exceeded with Retry-After and the French per-minute message', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      for (let i = 0; i < 5; i++) expect((await svc.rest('referentiels.sources', {}, { token })).status, `appel ${i + 1}`).to.equal(200);
      const sixth = await svc.rest('referentiels.sources', {}, { token });
      expectMinuteMessage(sixth.json.error.message, expectRestQuotaRefusal(sixth, 60), 'free');
      // Still refused: the refusal did not free anything.
      expectRestQuotaRefusal(await svc.rest('me', undefined, { token }), 60);
    });

    it('MCP: admits 5 tools/call on /api/mcp, answers the 6th JSON-RPC -32004 with data.retry_after_seconds; the SDK client sees McpError -32004', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      for (let i = 0; i < 5; i++) expectToolResult(await toolCall(mcp, token, 'referentiel_sources'));
      const sixth = expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_sources'), 60);
      expectMinuteMessage(sixth.message, sixth.seconds, 'free');

      const client = await mcpClient(mcp, token);
      try {
        const err = await client.callTool({ name: 'referentiel_regions', arguments: {} }).then(
          () => expect.fail('appel admis au-delà du quota'),
          (e: unknown) => e,
        );
        expect(err).to.be.instanceOf(McpError);
        expect((err as McpError).code).to.equal(-32004);
        expect((err as McpError).data).to.have.property('retry_after_seconds').that.is.within(1, 60);
      } finally {
        await client.close();
      }
    });

    it('a subscribed account (30 a minute) is told its real wait and that a subscription is no remedy, on REST and MCP', async () => {
      const { token } = await accountInOwnOrganisation(svc, { plan: 'subscribed' });
      for (let i = 0; i < 30; i++) expect((await svc.rest('referentiels.regions', {}, { token })).status, `appel ${i + 1}`).to.equal(200);
      const rest = await svc.rest('referentiels.regions', {}, { token });
      expectMinuteMessage(rest.json.error.message, expectRestQuotaRefusal(rest, 60), 'subscribed');
      const viaMcp = expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_regions'), 60);
      expectMinuteMessage(viaMcp.message, viaMcp.seconds, 'subscribed');
    });

    it('the counters are shared by REST and the MCP addresses: 3 REST + 2 on /api/mcp/assistant, then /api/mcp, REST and the assistant are refused', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      for (let i = 0; i < 3; i++) expect((await svc.rest('referentiels.regions', {}, { token })).status).to.equal(200);
      expectToolResult(await toolCall(assistant, token, 'referentiel_regions'));
      expectToolResult(await toolCall(assistant, token, 'compte_statut'));
      expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_regions'), 60);
      expectMcpQuotaRefusal(await toolCall(assistant, token, 'referentiel_regions'), 60);
      expectRestQuotaRefusal(await svc.rest('referentiels.regions', {}, { token }), 60);
    });

    it('counts 2 on /api/mcp then 3 on REST the same way (the other order)', async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      expectToolResult(await toolCall(mcp, token, 'referentiel_regions'));
      expectToolResult(await toolCall(assistant, token, 'referentiel_regions'));
      for (let i = 0; i < 3; i++) expect((await svc.rest('referentiels.regions', {}, { token })).status).to.equal(200);
      expectRestQuotaRefusal(await svc.rest('referentiels.regions', {}, { token }), 60);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
    });
  });

  describe('what counts', () => {
    it('every call counts whatever its outcome: invalid arguments, not found, insufficient scope, tool errors', async () => {
      const { account, token, organisation } = await accountInOwnOrganisation(svc);
      const writeOnly = await svc.tokenFor(account, 'mcp:write');
      const invalid = await svc.rest('aide.outil', {}, { token });
      expect(invalid.status).to.equal(400);
      expect(invalid.json.error.code).to.equal('invalid_arguments');
      const notFound = await svc.rest('aide.outil', { nom: 'x' }, { token });
      expect(notFound.status).to.equal(404);
      expect(notFound.json.error.code).to.equal('not_found');
      const scope = await svc.rest('referentiels.sources', {}, { token: writeOnly });
      expect(scope.status).to.equal(403);
      expect(scope.json.error.code).to.equal('insufficient_scope');
      expectToolResult(await toolCall(mcp, token, 'aide_outil', { nom: 5 }), true);
      expectToolResult(await toolCall(assistant, token, 'aide_outil', { nom: 'x' }), true);
      // Five failed calls, five units: the sixth is refused.
      expectRestQuotaRefusal(await svc.rest('quotas.get', {}, { token }), 60);
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 10 });
      const quotas = await svc.rest('quotas.get', {}, { token });
      expect(quotas.status).to.equal(200);
      expect(quotas.json.appels_minute).to.include({ utilises: 6, limite: 10 });
      expect(quotas.json.appels_jour).to.include({ utilises: 6, limite: 100 });
    });

    it('a call refused by a quota does not count (negotiated 3 per minute, exact numbers)', async () => {
      const { account, token, organisation } = await accountInOwnOrganisation(svc, { limits: { callsPerMinute: 3 } });
      expect((await svc.rest('referentiels.regions', {}, { token })).status).to.equal(200);
      expectToolResult(await toolCall(mcp, token, 'referentiel_regions'));
      expect((await svc.rest('me', undefined, { token })).status).to.equal(200);
      const refused = await svc.rest('referentiels.regions', {}, { token });
      expectRestQuotaRefusal(refused, 60);
      expect(refused.json.error.message).to.include('3 appels par minute');
      expectRestQuotaRefusal(await svc.rest('quotas.get', {}, { token }), 60);
      expectMcpQuotaRefusal(await toolCall(mcp, token, 'compte_quotas'), 60);
      expectMcpQuotaRefusal(await toolCall(assistant, token, 'referentiel_regions'), 60);
      expect(await callLogCount(svc.db, account.userId)).to.equal(3);

      // One more unit allowed: the next call is admitted and is the 4th counted, not the 8th.
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 4 });
      const quotas = await svc.rest('quotas.get', {}, { token });
      expect(quotas.status, JSON.stringify(quotas.json)).to.equal(200);
      expect(quotas.json.appels_minute).to.include({ utilises: 4, limite: 4 });
      expect(quotas.json.appels_jour).to.include({ utilises: 4, limite: 100 });
      expectRestQuotaRefusal(await svc.rest('quotas.get', {}, { token }), 60);
      expect(await callLogCount(svc.db, account.userId)).to.equal(4);
    });

    it('an unauthenticated call counts nothing, on REST and MCP, without a token or with a bad one', async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      const before = await callLogCount(svc.db);
      for (const bad of [null, 'jeton-inconnu']) {
        for (let i = 0; i < 3; i++) {
          expect((await svc.rest('referentiels.sources', {}, { token: bad })).status).to.equal(401);
          const onMcp = await toolCall(mcp, bad, 'referentiel_sources');
          expect(onMcp.status).to.equal(401);
          expect(onMcp.json.error.code).to.equal(-32001);
        }
      }
      expect(await callLogCount(svc.db)).to.equal(before);
      const quotas = await svc.rest('quotas.get', {}, { token });
      expect(quotas.json.appels_minute.utilises).to.equal(2);
      expect(await callLogCount(svc.db, account.userId)).to.equal(2);
    });

    it('MCP initialize, notifications, tools/list, resources/list and resources/read count nothing, on the three addresses', async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      const init = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'quota-test', version: '0' } };
      for (const url of [mcp, assistant, connectors]) {
        // More than the free ceiling of such messages on each address.
        for (let i = 0; i < 2; i++) {
          const initialized = await mcpPost(url, token, 'initialize', init);
          expect(initialized.status, url).to.equal(200);
          expect(initialized.json.result.serverInfo.name).to.equal('batidata-api');
          expect((await mcpPost(url, token, 'notifications/initialized', undefined, true)).status).to.equal(202);
          const tools = await mcpPost(url, token, 'tools/list', {});
          expect(tools.json.result.tools, url).to.be.an('array');
          expect((await mcpPost(url, token, 'resources/list', {})).json.result.resources).to.be.an('array');
          expect((await mcpPost(url, token, 'resources/read', { uri: 'ui://inconnu' })).json.error.code).to.equal(-32602);
          expect((await mcpPost(url, token, 'ping')).json.result).to.deep.equal({});
        }
      }
      // The SDK client too: connect, list, then one tool call.
      const client = await mcpClient(mcp, token);
      try {
        await client.listTools();
        await client.listResources();
        await client.listTools();
        expect(await callLogCount(svc.db, account.userId)).to.equal(0);
        const result = (await client.callTool({ name: 'compte_quotas', arguments: {} })) as CallToolResult;
        expect(result.isError).to.not.equal(true);
        expect(result.structuredContent).to.deep.include({ formule: 'free' });
        expect((result.structuredContent as any).appels_minute.utilises).to.equal(1);
      } finally {
        await client.close();
      }
      expect(await callLogCount(svc.db, account.userId)).to.equal(1);
    });
  });

  describe('the quota read operation', () => {
    it('quotas.get (REST) gives the plan and the three counters, this very call included, with Paris timestamps', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      const before = Date.now();
      const answer = await svc.rest('quotas.get', {}, { token });
      const after = Date.now();
      expect(answer.status, JSON.stringify(answer.json)).to.equal(200);
      const q = answer.json;
      expect(q).to.have.all.keys('formule', 'appels_minute', 'appels_jour', 'dossiers_jour');
      expect(q.formule).to.equal('free');
      expect(q.appels_minute).to.have.all.keys('utilises', 'limite', 'fenetre_secondes', 'prochaine_liberation');
      expect(q.appels_minute).to.include({ utilises: 1, limite: 5, fenetre_secondes: 60 });
      expect(q.appels_jour).to.have.all.keys('utilises', 'limite', 'fenetre_secondes', 'prochaine_liberation');
      expect(q.appels_jour).to.include({ utilises: 1, limite: 100, fenetre_secondes: 86_400 });
      expect(q.dossiers_jour).to.have.all.keys('utilises', 'limite', 'remise_a_zero');
      expect(q.dossiers_jour).to.include({ utilises: 0, limite: 5 });

      // The oldest counted call is this one: it leaves the windows 60 s and 24 h after it (timestamps to the second).
      for (const [window, span] of [
        ['appels_minute', 60_000],
        ['appels_jour', 86_400_000],
      ] as const) {
        const at = q[window].prochaine_liberation as string;
        expect(at, window).to.match(PARIS_ISO);
        const ms = Date.parse(at);
        expect(ms, window).to.be.within(before + span - 1000, after + span);
        expect(at.slice(-6), `${window} : décalage de Paris à cet instant`).to.equal(parisDateAndOffset(new Date(ms)).offset);
      }

      // The file counter restarts at the next midnight, Paris time.
      const reset = q.dossiers_jour.remise_a_zero as string;
      expect(reset).to.match(PARIS_ISO);
      const today = parisDateAndOffset(new Date(after));
      const resetAt = new Date(Date.parse(reset));
      expect(reset.slice(0, 19)).to.equal(`${nextDate(today.date)}T00:00:00`);
      expect(reset.slice(-6)).to.equal(parisDateAndOffset(resetAt).offset);
      expect(resetAt.getTime()).to.be.above(after).and.at.most(after + 25 * 3600_000);
      expect(parisDateAndOffset(new Date(resetAt.getTime() - 1)).date).to.equal(today.date);
    });

    it('compte_quotas on /api/mcp and /api/mcp/assistant gives the same counters, each call counted; the oldest call sets the next release', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      const before = Date.now();
      expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      const afterFirst = Date.now();
      const onMcp = expectToolResult(await toolCall(mcp, token, 'compte_quotas')).structuredContent as any;
      expect(onMcp.formule).to.equal('free');
      expect(onMcp.appels_minute).to.include({ utilises: 2, limite: 5, fenetre_secondes: 60 });
      expect(onMcp.appels_jour).to.include({ utilises: 2, limite: 100, fenetre_secondes: 86_400 });
      expect(onMcp.dossiers_jour).to.include({ utilises: 0, limite: 5 });
      expect(Date.parse(onMcp.appels_minute.prochaine_liberation)).to.be.within(before + 60_000 - 1000, afterFirst + 60_000);
      const onAssistant = expectToolResult(await toolCall(assistant, token, 'compte_quotas')).structuredContent as any;
      expect(onAssistant.appels_minute.utilises).to.equal(3);
      expect(onAssistant.appels_jour.utilises).to.equal(3);
      expect(onAssistant.appels_minute.prochaine_liberation).to.equal(onMcp.appels_minute.prochaine_liberation);
      expect(onAssistant.appels_jour.prochaine_liberation).to.equal(onMcp.appels_jour.prochaine_liberation);
      expect(onAssistant.dossiers_jour.remise_a_zero).to.equal(onMcp.dossiers_jour.remise_a_zero);
    });
  });

  describe('the daily ceiling', () => {
    it('REST: a negotiated 4 calls per 24 h (100 per minute): the 5th is 429 naming the 24-hour sliding ceiling, retry close to 86400 s', async () => {
      const { account, token } = await accountInOwnOrganisation(svc, { limits: { callsPerDay: 4, callsPerMinute: 100 } });
      for (let i = 0; i < 4; i++) expect((await svc.rest('referentiels.regions', {}, { token })).status, `appel ${i + 1}`).to.equal(200);
      const fifth = await svc.rest('referentiels.regions', {}, { token });
      const seconds = expectRestQuotaRefusal(fifth, 86_400);
      expect(seconds).to.be.at.least(86_400 - 30);
      const message = fifth.json.error.message as string;
      expect(message).to.match(/Quota journalier atteint/);
      expect(message).to.include('4 appels sur 24 heures glissantes');
      expect(message).to.match(/pas de remise à zéro à minuit/);
      expect(message).to.include(`Réessayer dans ${seconds} secondes ; la formule abonnée porte ce plafond à `);
      expect(await callLogCount(svc.db, account.userId)).to.equal(4);
    });

    it('MCP: the daily ceiling is JSON-RPC -32004 too, with the same message', async () => {
      const { token } = await accountInOwnOrganisation(svc, { limits: { callsPerDay: 4, callsPerMinute: 100 } });
      for (let i = 0; i < 4; i++) expectToolResult(await toolCall(assistant, token, 'referentiel_regions'));
      const refused = expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_regions'), 86_400);
      expect(refused.seconds).to.be.at.least(86_400 - 30);
      expect(refused.message).to.match(/Quota journalier atteint/).and.include('4 appels sur 24 heures glissantes');
      const rest = await svc.rest('referentiels.regions', {}, { token });
      expectRestQuotaRefusal(rest, 86_400);
      expect(rest.json.error.message).to.equal(refused.message.replace(/\d+ secondes/, `${rest.json.error.retry_after_seconds} secondes`));
    });
  });

  describe('plan and limit changes take effect on the next call', () => {
    it('raising the per-minute limit after a refusal admits the very next call, lowering it refuses the next one', async () => {
      const { token, organisation } = await accountInOwnOrganisation(svc);
      for (let i = 0; i < 5; i++) expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      expectRestQuotaRefusal(await svc.rest('referentiels.sources', {}, { token }), 60);
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 7 });
      expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      expectToolResult(await toolCall(mcp, token, 'referentiel_sources'));
      expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_sources'), 60);
      // Back to the plan's limit (null): refused, and the message names the plan's ceiling.
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: null });
      const refused = await svc.rest('referentiels.sources', {}, { token });
      expectRestQuotaRefusal(refused, 60);
      expect(refused.json.error.message).to.include('5 appels par minute');
    });

    it('free → subscribed: `me` says subscribed and quotas.get shows 30 / 5000 / 500 on the next call; a refused free account is admitted again', async () => {
      const { token, organisation } = await accountInOwnOrganisation(svc);
      const me = await svc.rest('me', undefined, { token });
      expect(me.json.tier).to.equal('free');
      for (let i = 0; i < 4; i++) expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      expectRestQuotaRefusal(await svc.rest('me', undefined, { token }), 60);
      await setOrganisationPlan(svc.db, organisation, { plan: 'subscribed' });
      const after = await svc.rest('me', undefined, { token });
      expect(after.status).to.equal(200);
      expect(after.json.tier).to.equal('subscribed');
      const quotas = await svc.rest('quotas.get', {}, { token });
      expect(quotas.json.formule).to.equal('subscribed');
      expect(quotas.json.appels_minute).to.include({ utilises: 7, limite: 30 });
      expect(quotas.json.appels_jour).to.include({ utilises: 7, limite: 5000 });
      expect(quotas.json.dossiers_jour).to.include({ limite: 500 });
      const onMcp = expectToolResult(await toolCall(mcp, token, 'compte_quotas')).structuredContent as any;
      expect(onMcp.formule).to.equal('subscribed');
      expect(onMcp.appels_minute.limite).to.equal(30);

      // And back to free: refused at once (8 calls counted, 5 allowed).
      await setOrganisationPlan(svc.db, organisation, { plan: 'free' });
      expectRestQuotaRefusal(await svc.rest('me', undefined, { token }), 60);
    });

    it('the limits of a plan live in the database: changing plan_limits applies to the next call of every free account', async () => {
      const { token } = await accountInOwnOrganisation(svc);
      const original = await svc.db('plan_limits').where({ plan: 'free' }).first();
      try {
        await svc.db('plan_limits').where({ plan: 'free' }).update({ calls_per_minute: 2, calls_per_day: 50, files_per_day: 3 });
        const quotas = await svc.rest('quotas.get', {}, { token });
        expect(quotas.json.appels_minute).to.include({ utilises: 1, limite: 2 });
        expect(quotas.json.appels_jour).to.include({ limite: 50 });
        expect(quotas.json.dossiers_jour).to.include({ limite: 3 });
        expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
        const refused = await svc.rest('referentiels.sources', {}, { token });
        expectRestQuotaRefusal(refused, 60);
        expect(refused.json.error.message).to.include('2 appels par minute');
      } finally {
        await svc.db('plan_limits').where({ plan: 'free' }).update(original);
      }
    });
  });

  describe('edge cases', () => {
    // When both ceilings are reached, the refusal names the one that frees up later.
    it('when the per-minute and the daily ceilings are both reached, the refusal names the daily one and its Retry-After (≈ 86400 s)', async () => {
      const { token } = await accountInOwnOrganisation(svc, { limits: { callsPerDay: 5 } });
      for (let i = 0; i < 5; i++) expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      const refused = await svc.rest('referentiels.sources', {}, { token });
      const seconds = expectRestQuotaRefusal(refused, 86_400);
      expect(seconds, 'aucun appel ne passera avant la sortie du plus ancien de la fenêtre de 24 h').to.be.at.least(86_400 - 30);
      expect(refused.json.error.message).to.match(/Quota journalier atteint/);
      const onMcp = expectMcpQuotaRefusal(await toolCall(mcp, token, 'referentiel_sources'), 86_400);
      expect(onMcp.seconds).to.be.at.least(86_400 - 30);
    });

    // Every tools/call counts, whatever its outcome, even arguments the SDK would not accept.
    it('a tools/call whose arguments are not an object (a tool error) counts one unit', async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      const answer = await mcpPost(mcp, token, 'tools/call', { name: 'referentiel_sources', arguments: 5 });
      expectToolResult(answer, true);
      expect(await callLogCount(svc.db, account.userId)).to.equal(1);
    });

    // An authenticated call of an existing operation counts even when its body is refused.
    it('an authenticated REST call of an existing operation refused for its body (invalid_json, invalid_body) counts one unit', async () => {
      const { account, token } = await accountInOwnOrganisation(svc);
      const send = (body: string) =>
        fetch(`${svc.url}/api/mcp/v1/referentiels.sources`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
      expect((await send('{"a":')).status).to.equal(400);
      expect((await send('[1]')).status).to.equal(400);
      expect(await callLogCount(svc.db, account.userId)).to.equal(2);
    });
  });

  describe('a refusal changes nothing', () => {
    it('a refused call of every REST operation and every MCP tool leaves every table as it was, and counts nothing', async () => {
      const { account, token, organisation } = await accountInOwnOrganisation(svc);
      for (let i = 0; i < 5; i++) expect((await svc.rest('referentiels.sources', {}, { token })).status).to.equal(200);
      const logBefore = await callLogCount(svc.db);
      // quota_accounts holds the store's own bookkeeping of the windows (it may move on any check): the counters it
      // keeps are compared through the call log and quotas.get below.
      const before = await snapshot(svc.db, ['quota_accounts']);

      expect(operations.length).to.be.above(0);
      for (const op of operations) {
        const answer = await restAt(svc.url, op.name, token, {}, op.method === 'get' ? 'get' : 'post');
        expectRestQuotaRefusal(answer, 60);
      }
      for (const [url, profile] of [
        [mcp, 'full'],
        [assistant, 'assistant'],
      ] as const) {
        const tools = catalogue.tools.filter((t) => t.status === 'active' && t.profiles.includes(profile));
        expect(tools.length).to.be.above(0);
        for (const tool of tools) expectMcpQuotaRefusal(await toolCall(url, token, tool.name, {}), 60);
      }

      expect(await callLogCount(svc.db)).to.equal(logBefore);
      expect(await callLogCount(svc.db, account.userId)).to.equal(5);
      expect(await snapshot(svc.db, ['quota_accounts'])).to.deep.equal(before);
      await setOrganisationPlan(svc.db, organisation, { callsPerMinute: 6, callsPerDay: 6 });
      const quotas = await svc.rest('quotas.get', {}, { token });
      expect(quotas.status, JSON.stringify(quotas.json)).to.equal(200);
      expect(quotas.json.appels_minute.utilises).to.equal(6);
      expect(quotas.json.appels_jour.utilises).to.equal(6);
      // Both ceilings are now reached: the refusal names the daily one, which frees up later.
      expectRestQuotaRefusal(await svc.rest('me', undefined, { token }), 86_400);
    });
  });
});
