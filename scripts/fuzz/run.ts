// The fuzz run: cases one after another (so a seed replays the same sequence of states),
// each sent to REST and to MCP in an order the case draws, every answer checked, and for
// a write the workspace read before and after each call, so a refused write that changed
// anything is caught.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { checkAgreement, checkMcp, checkRest, mcpView, restView, type Problem } from './check.js';
import { loadFuzzContract, type FuzzContract } from './contract.js';
import { generateCase, type FuzzCase, type RunState } from './generate.js';
import { Oracle } from './oracle.js';
import { sendMcp, sendRest, type Answer } from './transport.js';

export interface FuzzTarget {
  url: string;
  /** A token with mcp:read mcp:write on a subscribed organisation whose limits no run reaches. */
  token: string;
  /** The service's database, to read the workspace before and after writes. */
  db: Knex;
}

export interface FuzzOptions {
  seed: number;
  /** HTTP requests to send (two per case: REST and MCP). */
  requests: number;
  /**
   * Reports this case alone (its index as printed): the cases before it still run, unreported,
   * so it meets the same state and draws the same values as in the whole run.
   */
  only?: number;
  /** Called after each case (progress of long runs). */
  progress?: (requestsDone: number) => void;
}

export interface FuzzFailure {
  seed: number;
  index: number;
  operation: string;
  transport: 'REST' | 'MCP' | 'REST+MCP' | 'état';
  kind: string;
  problem: string;
  mutations: string[];
  input: string;
  answer: string;
}

export interface FuzzReport {
  seed: number;
  /** The one case reported, when the run replayed one. */
  only?: number;
  requests: number;
  cases: number;
  durationMs: number;
  /** operation → outcome → count. */
  outcomes: Map<string, Map<string, number>>;
  /** mutation kind → cases. */
  mutations: Map<string, number>;
  failures: FuzzFailure[];
}

/** What a refused write must leave untouched: the alerts and each organisation's alert counter. */
async function workspace(db: Knex): Promise<{ digest: string; count: number; alertIds: string[] }> {
  // In name order (unique in the one organisation), not id order: ids are random, names are drawn from the seed.
  const alerts = await db('alerts').select('id', 'organisation_id', 'name', 'query', 'criteria', 'frequency', 'sources', 'departements', 'montant_min', 'is_active').orderBy(['organisation_id', 'name']);
  const organisations = await db('organisations').select('id', 'alert_count').orderBy('id');
  const digest = createHash('sha256').update(JSON.stringify({ alerts, organisations })).digest('hex');
  return { digest, count: alerts.length, alertIds: alerts.map((a: { id: string }) => a.id) };
}

/**
 * Every run starts from an empty workspace, so that a seed replays the same on any fuzz
 * service; the fuzz organisation holds every option (the e-mail option included), so that a
 * refusal comes from the arguments only.
 */
export async function resetWorkspace(db: Knex): Promise<void> {
  await db('alerts').del();
  await db('organisations').update({ alert_count: 0 });
  await db('email_messages').del();
  await db('email_hourly_counts').del();
  await db('email_domains').del();
  await db('organisations').update({ email_option: true });
}

const POOL_SIZE = 40;

/** Remembers `value` under `key`, the oldest forgotten past POOL_SIZE. */
function remember<T>(pool: T[], value: T, same: (a: T) => boolean): void {
  if (pool.some(same)) return;
  pool.push(value);
  if (pool.length > POOL_SIZE) pool.shift();
}

/**
 * Values of a successful answer that an input of the same domain may take (a record's
 * `id`, `siren`, `marche_id`…), and its next_cursor with the arguments it belongs to.
 */
export function harvest(state: MutableState, inputNames: ReadonlySet<string>, c: FuzzCase, answer: unknown): void {
  const domain = c.operation.name.split('.')[0] as string;
  const stack: { value: unknown; depth: number }[] = [{ value: answer, depth: 0 }];
  let visited = 0;
  for (let next = stack.pop(); next !== undefined && visited < 5000; next = stack.pop(), visited++) {
    const { value, depth } = next;
    if (depth > 6 || value === null || typeof value !== 'object') continue;
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && v.length <= 300 && inputNames.has(`${domain}:${key}`)) {
        const pool = state.values.get(`${domain}:${key}`) ?? [];
        state.values.set(`${domain}:${key}`, pool);
        remember(pool, v, (x) => x === v);
      } else if (typeof v === 'object') stack.push({ value: v, depth: depth + 1 });
    }
  }
  const cursor = (answer as { next_cursor?: unknown }).next_cursor;
  if (typeof cursor === 'string' && c.rest.body && c.compare) {
    const args = c.rest.body.toString('utf8');
    remember(state.pages, { operation: c.operation.name, args, cursor }, (p) => p.cursor === cursor);
  }
}

export interface MutableState {
  alertIds: string[];
  values: Map<string, string[]>;
  pages: { operation: string; args: string; cursor: string }[];
}

const MAX_SHOWN = 600;

/** At most MAX_SHOWN characters of a text, long runs of one character shortened. */
export function shorten(text: string): string {
  // Only the head is looked at: a body of megabytes of one character overflowed the regular
  // expression's stack, and the report shows MAX_SHOWN characters anyway.
  const head = text.length > 20 * MAX_SHOWN ? text.slice(0, 20 * MAX_SHOWN) : text;
  const squeezed = head.replace(/([\s\S])\1{40,}/g, (run, ch: string) => `${ch.repeat(8)}…(${run.length}×)`);
  return squeezed.length > MAX_SHOWN || head !== text ? `${squeezed.slice(0, MAX_SHOWN)}…(${text.length} caractères)` : squeezed;
}

/** Bytes as text for a report: not-UTF-8 bytes shown as \xNN. */
export function showBytes(bytes: Buffer | null): string {
  if (!bytes) return '';
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (!text.includes('\ufffd')) return shorten(text);
  let out = '';
  for (const b of bytes.subarray(0, 4000)) out += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`;
  return shorten(out);
}

function restOutcome(a: Answer): string {
  if (a.status === 0) return 'REST sans réponse';
  const v = restView(a);
  return v.ok ? 'REST 200' : `REST ${a.status} ${v.code ?? '?'}`;
}

function mcpOutcome(a: Answer): string {
  if (a.status === 0) return 'MCP sans réponse';
  const v = mcpView(a);
  if (v.ok) return 'MCP succès';
  return v.rpcCode === null ? 'MCP erreur d’outil' : `MCP ${v.rpcCode}`;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Keys a prototype-pollution payload would plant on every object of the process (the service runs in it in tests). */
const POLLUTION_KEYS = ['admin', 'polluted'];

export async function runFuzz(target: FuzzTarget, options: FuzzOptions, contract: FuzzContract = loadFuzzContract()): Promise<FuzzReport> {
  const oracle = new Oracle(contract);
  const started = performance.now();
  await resetWorkspace(target.db);
  const state: MutableState = { alertIds: [], values: new Map(), pages: [] };
  const inputNames = new Set(contract.operations.flatMap((o) => Object.keys(o.schema.properties ?? {}).map((p) => `${o.name.split('.')[0]}:${p}`)));
  const report: FuzzReport = { seed: options.seed, only: options.only, requests: 0, cases: 0, durationMs: 0, outcomes: new Map(), mutations: new Map(), failures: [] };
  const cases = options.only !== undefined ? options.only + 1 : Math.ceil(options.requests / 2);

  for (let index = 0; index < cases; index++) {
    const reported = options.only === undefined || index === options.only;
    const c = generateCase(contract, options.seed, index, state as RunState);
    const write = c.operation.effect === 'write';
    const before = write ? await workspace(target.db) : null;
    const first = c.restFirst ? await sendRest(target.url, target.token, c) : await sendMcp(target.url, target.token, c);
    const between = write ? await workspace(target.db) : null;
    const second = c.restFirst ? await sendMcp(target.url, target.token, c) : await sendRest(target.url, target.token, c);
    const after = write ? await workspace(target.db) : null;
    const rest = c.restFirst ? first : second;
    const mcp = c.restFirst ? second : first;
    if (restView(rest).ok && isRecord(rest.json)) harvest(state, inputNames, c, rest.json);
    else if (mcpView(mcp).ok) harvest(state, inputNames, c, (mcp.json as { result: { structuredContent?: unknown } }).result.structuredContent);
    if (write && after) state.alertIds = after.alertIds;
    const polluted = POLLUTION_KEYS.filter((key) => key in Object.prototype);
    for (const key of polluted) delete (Object.prototype as Record<string, unknown>)[key];
    if (!reported) continue;
    report.requests += 2;
    report.cases += 1;

    const outcomes = report.outcomes.get(c.operation.name) ?? new Map<string, number>();
    report.outcomes.set(c.operation.name, outcomes);
    bump(outcomes, restOutcome(rest));
    bump(outcomes, mcpOutcome(mcp));
    for (const m of c.mutations) bump(report.mutations, m.split(':')[0] as string);

    const declared = (type: string | null) => (type === 'application/json' ? '' : `[Content-Type: ${type === null ? 'absent' : JSON.stringify(type)}] `);
    const restRequest = c.rest.method === 'GET' ? `GET ${c.rest.query}` : declared(c.rest.contentType) + showBytes(c.rest.body);
    const mcpRequest = `${c.mcp.path} ${declared(c.mcp.contentType)}${showBytes(c.mcp.body)}`;
    const fail = (transport: FuzzFailure['transport'], p: Problem, answer: string) =>
      report.failures.push({
        seed: c.seed,
        index: c.index,
        operation: c.operation.name,
        transport,
        kind: p.kind,
        problem: p.detail,
        mutations: c.mutations,
        input: transport === 'MCP' ? mcpRequest : restRequest,
        answer,
      });
    const showAnswer = (a: Answer) => (a.status === 0 ? `(aucune réponse : ${a.failure ?? ''})` : `${a.status} ${shorten(a.text)}`);

    const restRaw = c.rest.body ? new TextDecoder().decode(c.rest.body) + c.rest.query : c.rest.query;
    const mcpRaw = new TextDecoder().decode(c.mcp.body);
    for (const p of checkRest(rest, oracle.rest(c), oracle.errorBody, restRaw)) fail('REST', p, showAnswer(rest));
    for (const p of checkMcp(mcp, oracle.mcp(c), c, mcpRaw)) fail('MCP', p, showAnswer(mcp));

    // The second call of a write met the state the first one left: compare only when nothing changed.
    const firstChanged = write && before?.digest !== between?.digest;
    if (c.compare && !firstChanged) for (const p of checkAgreement(c, rest, mcp)) fail('REST+MCP', p, `REST ${showAnswer(rest)}\n      MCP ${showAnswer(mcp)}`);

    if (write && before && between && after) {
      const firstRefused = c.restFirst ? !restView(rest).ok : !mcpView(mcp).ok;
      const secondRefused = c.restFirst ? !mcpView(mcp).ok : !restView(rest).ok;
      const [firstName, secondName] = c.restFirst ? ['REST', 'MCP'] : ['MCP', 'REST'];
      if (firstRefused && before.digest !== between.digest)
        fail('état', { kind: 'état modifié par un refus', detail: `${firstName} a refusé mais l'espace de travail a changé (${before.count} → ${between.count} alertes)` }, showAnswer(c.restFirst ? rest : mcp));
      if (secondRefused && between.digest !== after.digest)
        fail('état', { kind: 'état modifié par un refus', detail: `${secondName} a refusé mais l'espace de travail a changé (${between.count} → ${after.count} alertes)` }, showAnswer(c.restFirst ? mcp : rest));
    }

    for (const key of polluted) fail('REST+MCP', { kind: 'pollution du prototype', detail: `Object.prototype.${key} a été défini` }, '');
    options.progress?.(report.requests);
  }
  report.durationMs = performance.now() - started;
  return report;
}
