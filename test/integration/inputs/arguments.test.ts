// Degrade, never freeze: bad arguments (too many items, NUL or unpaired surrogates, numbers past their bounds, __proto__) get the same 400 invalid_arguments on REST and MCP on both engines, change nothing, and the largest valid inputs answer 200.
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { ToolEntry } from '../../../src/contract/types.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const tools = (JSON.parse(readFileSync(new URL('../../../generated/tools.json', import.meta.url), 'utf8')) as { tools: ToolEntry[] }).tools;

/** The MCP tool running an operation, and the `action` that chooses it on a dispatching tool. */
function toolOf(operation: string): { name: string; action: string | null } {
  const tool = tools.find((t) => t.status === 'active' && t.operations.includes(operation));
  if (!tool) throw new Error(`aucun outil pour ${operation}`);
  const action = tool.dispatch ? (Object.entries(tool.dispatch.operations).find(([, op]) => op === operation)?.[0] ?? null) : null;
  return { name: tool.name, action };
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Case {
  name: string;
  operation: string;
  /** The arguments as JSON text, so that `1e309` and `__proto__` reach the service as written. */
  args: string;
  /** What the French message must say; REST and MCP must give the very same one. */
  message: RegExp;
}

const json = (value: unknown) => JSON.stringify(value);
const many = (n: number, value: string) => Array.from({ length: n }, () => value);
// An unpaired surrogate can only arrive as a JSON escape: its UTF-8 bytes are not UTF-8.
const LONE_HIGH = '"ab\\ud83dcd"';
const LONE_LOW = '"ab\\ude00cd"';
const NUL = '"ab\\u0000cd"';

const refusals: Case[] = [
  // Lists past their maxItems (999 used to reach SQLite's bound-parameter limit: 503).
  { name: '999 type_marche', operation: 'marches.search', args: json({ type_marche: many(999, 'TRAVAUX') }), message: /^L'argument « type_marche » contient trop d'éléments : 3 au plus\.$/ },
  { name: '999 effectif', operation: 'entreprises.search', args: json({ effectif: many(999, '11') }), message: /^L'argument « effectif » contient trop d'éléments : 15 au plus\.$/ },
  { name: '111 departements', operation: 'marches.search', args: json({ departements: many(111, '29') }), message: /« departements » contient trop d'éléments : 110 au plus/ },
  { name: '11 alert sources', operation: 'alertes.create', args: json({ name: 'a', query: 'toiture', sources: many(11, 'marche') }), message: /« sources » contient trop d'éléments : 10 au plus/ },
  // NUL and unpaired surrogates (PostgreSQL refused the NUL: 503), named, at any place.
  { name: 'NUL in marches.get marche_id', operation: 'marches.get', args: `{"marche_id":${NUL}}`, message: /^L'argument « marche_id » contient un caractère refusé : le caractère nul \(U\+0000\)\.$/ },
  { name: 'NUL in acheteurs.get id', operation: 'acheteurs.get', args: `{"id":${NUL}}`, message: /« id » contient un caractère refusé : le caractère nul/ },
  { name: 'NUL in attributions.get id', operation: 'attributions.get', args: `{"id":${NUL}}`, message: /« id » contient un caractère refusé : le caractère nul/ },
  { name: 'NUL in an alert name', operation: 'alertes.create', args: `{"name":${NUL},"query":"toiture"}`, message: /« name » contient un caractère refusé : le caractère nul/ },
  { name: 'NUL in an alert query', operation: 'alertes.create', args: `{"name":"Toitures","query":${NUL}}`, message: /« query » contient un caractère refusé : le caractère nul/ },
  { name: 'NUL in a search query', operation: 'marches.search', args: `{"query":${NUL}}`, message: /« query » contient un caractère refusé/ },
  { name: 'NUL in aide.outil nom', operation: 'aide.outil', args: `{"nom":${NUL}}`, message: /« nom » contient un caractère refusé/ },
  {
    name: 'an unpaired high surrogate',
    operation: 'attributions.get',
    args: `{"id":${LONE_HIGH}}`,
    message: /^L'argument « id » contient un caractère refusé : un demi-caractère UTF-16 isolé \(U\+D83D\)\.$/,
  },
  { name: 'an unpaired low surrogate', operation: 'alertes.create', args: `{"name":${LONE_LOW},"query":"toiture"}`, message: /« name » contient un caractère refusé : un demi-caractère UTF-16 isolé \(U\+DE00\)/ },
  { name: 'an unpaired surrogate in an acheteur', operation: 'marches.search', args: `{"acheteur":${LONE_HIGH}}`, message: /« acheteur » contient un caractère refusé/ },
  // Numbers: JSON's 1e309 is an infinity; every number has its maximum.
  { name: 'montant_min 1e309 (alert)', operation: 'alertes.create', args: '{"name":"a","query":"toiture","montant_min":1e309}', message: /^L'argument « montant_min » doit être inférieur ou égal à 1000000000000\.$/ },
  { name: 'montant_min -1e309 (alert)', operation: 'alertes.create', args: '{"name":"a","query":"toiture","montant_min":-1e309}', message: /« montant_min » doit être supérieur ou égal à 0/ },
  { name: 'montant_min past its maximum (awards)', operation: 'attributions.search', args: '{"montant_min":1000000000001}', message: /« montant_min » doit être inférieur ou égal à 1000000000000/ },
  { name: 'montant_min 1e309 (awards)', operation: 'attributions.search', args: '{"montant_min":1e309}', message: /« montant_min » doit être inférieur ou égal à 1000000000000/ },
  { name: 'limit 1e309', operation: 'marches.search', args: '{"limit":1e309}', message: /« limit » doit être inférieur ou égal à 50/ },
  // __proto__ is an argument like any other: unknown, on both transports.
  { name: '__proto__ as an argument', operation: 'referentiels.naf', args: '{"__proto__":{"prefix":"43"}}', message: /^Argument inconnu : « __proto__ » n'est pas accepté\.$/ },
  { name: '__proto__ beside known arguments', operation: 'marches.search', args: '{"query":"toiture","__proto__":{}}', message: /^Argument inconnu : « __proto__ » n'est pas accepté\.$/ },
  { name: '__proto__ in a nested object', operation: 'entreprises.search', args: '{"localisation":{"__proto__":{"dept":"29"}}}', message: /Argument inconnu : « localisation.__proto__ » n'est pas accepté dans « localisation »/ },
  { name: '__proto__ on a dispatching tool', operation: 'alertes.list', args: '{"__proto__":{"x":1}}', message: /Argument inconnu : « __proto__ »/ },
  // A long unknown name is quoted short: a message never carries a caller's megabytes.
  { name: 'a 10,000-character unknown name', operation: 'referentiels.naf', args: json({ ['x'.repeat(10_000)]: 1 }), message: /^Argument inconnu : « x{80}… » n'est pas accepté\.$/ },
  { name: 'a NUL in an unknown name', operation: 'referentiels.naf', args: '{"a\\u0000b":1}', message: /^Argument inconnu : « a\uFFFDb » n'est pas accepté\.$/ },
];

/** The largest inputs the contract allows: 200 on both engines (no bound-parameter or encoding failure). */
const allowed: { name: string; operation: string; args: unknown }[] = [
  { name: 'every type_marche, 110 departements and a long query', operation: 'marches.search', args: { type_marche: ['TRAVAUX', 'FOURNITURES', 'SERVICES'], departements: many(110, '2A'), query: many(10, 'toiture zinc ardoise bac').join(', '), acheteur: 'mairie de quimper' } },
  { name: 'every effectif and 20 naf codes', operation: 'entreprises.search', args: { effectif: ['00', '01', '02', '03', '11', '12', '21', '22', '31', '32', '41', '42', '51', '52', '53'], naf: many(20, '43.21A'), localisation: { dept: '29' } } },
  { name: 'montant_min at its maximum and 110 departements', operation: 'attributions.search', args: { montant_min: 1e12, departements: many(110, '971'), query: 'voirie' } },
  { name: 'an id of 500 characters', operation: 'attributions.get', args: { id: 'é'.repeat(500) } },
  { name: 'a buyer id of 1100 characters, with a paired surrogate (emoji)', operation: 'acheteurs.get', args: { id: `${'x'.repeat(1098)}😀` } },
  { name: 'a marche_id of 100 characters', operation: 'marches.get', args: { marche_id: '9'.repeat(100) } },
];

describe('arguments on both transports', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc.close());

  async function viaRest(operation: string, args: string) {
    return svc.rest(operation, args);
  }

  async function viaMcp(operation: string, args: string) {
    const { name, action } = toolOf(operation);
    const withAction = action ? `{"action":${JSON.stringify(action)}${args.trim() === '{}' ? '' : ','}${args.trim().slice(1)}` : args;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${withAction}}}`;
    const res = await fetch(`${svc.url}/api/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, authorization: `Bearer ${svc.token}` }, body });
    return { status: res.status, json: (await res.json()) as any };
  }

  async function alertNames(): Promise<string[]> {
    const { json: list } = await svc.rest('alertes.list', {});
    return (list.items as { name: string }[]).map((a) => a.name);
  }

  for (const c of refusals) {
    it(`refuses ${c.name}: 400 invalid_arguments and the same French message on MCP`, async () => {
      const before = await alertNames();
      const rest = await viaRest(c.operation, c.args);
      expect(rest.status, JSON.stringify(rest.json)).to.equal(400);
      expect(rest.json.error.code).to.equal('invalid_arguments');
      expect(rest.json.error.message).to.match(c.message);
      const mcp = await viaMcp(c.operation, c.args);
      expect(mcp.status).to.equal(200);
      expect(mcp.json.result?.isError, JSON.stringify(mcp.json)).to.equal(true);
      expect(mcp.json.result.content[0].text).to.equal(rest.json.error.message);
      expect(await alertNames(), 'nothing written').to.deep.equal(before);
    });
  }

  for (const c of allowed) {
    it(`answers the largest valid input: ${c.name}`, async () => {
      const rest = await viaRest(c.operation, JSON.stringify(c.args));
      expect(rest.status, JSON.stringify(rest.json)).to.equal(200);
      const mcp = await viaMcp(c.operation, JSON.stringify(c.args));
      expect(mcp.json.result?.isError, JSON.stringify(mcp.json)).to.equal(undefined);
      expect(mcp.json.result.structuredContent).to.deep.equal(rest.json);
    });
  }

  it('creates an alert with the largest valid name, query and amount, and lists it back as stored', async () => {
    const args = { name: `${'N'.repeat(118)}😀`, query: many(10, 'toiture zinc ardoise bac acier couverture tuile').join(', '), montant_min: 1e12, departements: many(110, '29'), sources: ['marche', 'attribution'] };
    const created = await svc.rest('alertes.create', args);
    expect(created.status, JSON.stringify(created.json)).to.equal(200);
    expect(created.json.alerte.montant_min).to.equal(1e12);
    expect(created.json.alerte.name).to.equal(args.name);
    expect(await alertNames()).to.include(args.name);
  });
});
