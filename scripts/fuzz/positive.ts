// The positive mode: an outside judge of the contract. Each case is a request the contract
// says is valid (its operation's schema with its combinations: `anyOf` of required sets,
// `if`/`then`, checked by Ajv 2020 before sending), sent to REST and to the MCP tool; the
// service must accept it, or refuse it only for a reason no schema can state:
//   404 not_found             an id or a record that does not exist (or not in this organisation);
//   409 conflict              the state (a name already taken, a version already replaced);
//   403 access_denied, insufficient_scope, role_denied, user_required, organization_required
//                             the plan, the scope or the role of the caller;
//   429 quota_exceeded        a quota or a rate.
// Anything else is a failure: a 400 (invalid_arguments, invalid_cursor…) or a 422 for a
// request the schema accepts means the contract leaves a rule out; a 5xx is a defect. The
// MCP arguments (REST's plus the choosing argument of a dispatching tool) must also satisfy
// the tool's own input schema, and MCP must answer as REST did.
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { NOT_BLANK_PATTERN, TEXT_LOOKAHEAD, TEXT_PATTERN } from '../../src/contract/text-rules.js';
import { checkAgreement, checkMcp, checkRest, mcpView, restView, type Problem } from './check.js';
import { loadFuzzContract, type FuzzContract, type FuzzOperation, type JsonSchema } from './contract.js';
import { type FuzzCase, type RunState } from './generate.js';
import { Oracle } from './oracle.js';
import { Rng } from './prng.js';
import { samplePattern } from './regex-sample.js';
import { harvest, resetWorkspace, showBytes, shorten, type FuzzFailure, type FuzzOptions, type FuzzReport, type FuzzTarget, type MutableState } from './run.js';
import { sendMcp, sendRest, type Answer } from './transport.js';
import { ALERT_NAMES, WORDS } from './values.js';

const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => void }).default;

/** Refusals a schema cannot state (see the header), by REST code. */
export const LEGITIMATE_REFUSALS: Readonly<Record<string, number>> = {
  not_found: 404,
  conflict: 409,
  access_denied: 403,
  insufficient_scope: 403,
  role_denied: 403,
  user_required: 403,
  organization_required: 403,
  quota_exceeded: 429,
};

/** Draws of a case before giving up on a schema-valid request (reported, never sent). */
const ATTEMPTS = 25;

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** A property's schema with what a rule adds to it (`minItems`, `contains`, `pattern`…). */
function narrowed(base: JsonSchema | undefined, extra: unknown): JsonSchema {
  return { ...(base ?? {}), ...(isRecord(extra) ? extra : {}) } as JsonSchema;
}

/** The rules' subschemas, compiled once per run of the process (by identity: the contract is loaded once). */
const conditionAjv = new Ajv2020({ strict: false, allErrors: false, logger: false });
addFormats(conditionAjv);
const conditions = new WeakMap<object, ValidateFunction>();

function matches(schema: unknown, value: unknown): boolean {
  if (!isRecord(schema)) return true;
  let validate = conditions.get(schema);
  if (!validate) {
    validate = conditionAjv.compile(schema);
    conditions.set(schema, validate);
  }
  return validate(value);
}

/** Values valid for a schema: ordinary ones, from the trade's words, earlier answers and the schema's examples. */
export class ValidValues {
  constructor(
    private readonly rng: Rng,
    private readonly op: FuzzOperation,
    private readonly state: RunState,
  ) {}

  private matches(schema: unknown, value: unknown): boolean {
    return matches(schema, value);
  }

  value(schema: JsonSchema, name: string): unknown {
    const { rng } = this;
    const seen = this.state.values.get(`${this.op.name.split('.')[0]}:${name}`);
    if (typesOf(schema)[0] === 'string' && seen?.length && rng.chance(0.6)) return rng.pick(seen);
    if (this.op.name === 'alertes.delete' && name === 'id' && this.state.alertIds.length && rng.chance(0.6)) return rng.pick(this.state.alertIds);
    if (this.op.name === 'alertes.create' && name === 'name') return rng.pick(ALERT_NAMES);
    if (Array.isArray(schema.examples) && schema.examples.length && rng.chance(0.8)) return rng.pick(schema.examples);
    if (schema.enum) return rng.pick(schema.enum);
    if (schema.const !== undefined) return schema.const;
    switch (typesOf(schema)[0]) {
      case 'object':
        return this.object(schema);
      case 'array': {
        const min = Math.max(schema.minItems ?? 0, schema.contains ? 1 : 0);
        const items = Array.from({ length: this.rng.int(min, Math.max(min, Math.min(schema.maxItems ?? 3, 3))) }, () => this.value(schema.items ?? {}, name));
        // A `contains` rule: one item of that kind, unless one is there already.
        if (isRecord(schema.contains) && !items.some((i) => this.matches(schema.contains, i))) items[0] = this.value(narrowed(schema.items, schema.contains), name);
        return schema.uniqueItems ? [...new Set(items)] : items;
      }
      case 'integer':
        return rng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 100, (schema.minimum ?? 0) + 100));
      case 'number':
        return rng.int(schema.minimum ?? 0, Math.min(schema.maximum ?? 1_000_000, 1_000_000));
      case 'boolean':
        return rng.chance(0.5);
      case 'string':
        return this.string(schema);
      default:
        return null;
    }
  }

  private string(schema: JsonSchema): string {
    const { rng } = this;
    if (schema.format === 'date') return `${rng.int(2018, 2026)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
    if (schema.format === 'uuid') {
      const hex = (n: number) => Array.from({ length: n }, () => rng.pick([...'0123456789abcdef'])).join('');
      return `${hex(8)}-${hex(4)}-4${hex(3)}-${rng.pick([...'89ab'])}${hex(3)}-${hex(12)}`;
    }
    // The text rule and « not only spaces » hold for words anyway: the pattern left is the field's own.
    const own = typeof schema.pattern === 'string' && schema.pattern !== TEXT_PATTERN ? schema.pattern.replace(TEXT_LOOKAHEAD, '').replace(NOT_BLANK_PATTERN, '^') : '';
    if (own && own !== '^' && schema['x-query-syntax'] !== true) {
      const sample = samplePattern(own, rng);
      if (sample !== null) return sample;
    }
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 200;
    let text = Array.from({ length: rng.int(1, 3) }, () => rng.pick(WORDS)).join(rng.chance(0.2) ? ', ' : ' ');
    while ([...text].length < min) text += ' lot';
    return [...text].slice(0, max).join('').trim() || 'toiture';
  }

  /** The object's properties: required ones, some optional ones, then what its rules ask. */
  object(schema: JsonSchema): Record<string, unknown> {
    const { rng } = this;
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const out: Record<string, unknown> = {};
    const required = new Set(schema.required ?? []);
    for (const [key, prop] of Object.entries(props)) {
      // A cursor is valid only as the service issued it: it comes from an earlier page.
      if (key === 'cursor' && !required.has(key)) continue;
      if (required.has(key) || rng.chance(0.35)) out[key] = this.value(prop, key);
    }
    this.applyRules(schema, props, out);
    return out;
  }

  /** `anyOf`/`oneOf` (one branch chosen), `allOf` (each), `if`/`then`/`else` (the branch the values take). */
  private applyRules(rules: JsonSchema, props: Record<string, JsonSchema>, out: Record<string, unknown>): void {
    const { rng } = this;
    const branch = (b: unknown) => {
      if (!isRecord(b)) return;
      const extra = isRecord(b.properties) ? b.properties : {};
      for (const key of (b.required as string[] | undefined) ?? []) if (!(key in out) || key in extra) out[key] = this.value(narrowed(props[key], extra[key]), key);
      for (const [key, sub] of Object.entries(extra)) if (key in out && !this.matches(narrowed(props[key], sub), out[key])) out[key] = this.value(narrowed(props[key], sub), key);
      this.applyRules(b as JsonSchema, props, out);
    };
    for (const key of ['anyOf', 'oneOf'] as const) {
      const list = rules[key];
      if (Array.isArray(list) && list.length && !(key === 'anyOf' && list.some((b) => this.matches(b, out)))) branch(rng.pick(list));
    }
    if (Array.isArray(rules.allOf)) for (const b of rules.allOf) branch(b);
    if (rules.if !== undefined) branch(this.matches(rules.if, out) ? rules.then : rules.else);
  }
}

interface ToolSchemas {
  byName: Map<string, ValidateFunction>;
}

function toolSchemas(): ToolSchemas {
  const tools = JSON.parse(readFileSync(new URL('../../generated/tools.json', import.meta.url), 'utf8')) as { tools: { name: string; inputSchema: unknown }[] };
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  addFormats(ajv);
  return { byName: new Map(tools.tools.filter((t) => t.inputSchema).map((t) => [t.name, ajv.compile(t.inputSchema as object)])) };
}

/** Case `index` of the positive run: its arguments (valid for the contract) or null when none was drawn. */
export function generatePositiveCase(contract: FuzzContract, validators: Map<string, ValidateFunction>, seed: number, index: number, state: RunState): { c: FuzzCase; args: Record<string, unknown> } | { op: FuzzOperation; args: null } {
  const rng = Rng.forCase(seed ^ 0x5a5a5a5a, index);
  const op = rng.weighted(contract.operations.filter((o) => o.method === 'post').map((o) => [o, Object.keys(o.schema.properties ?? {}).length ? 2 : 1] as const));
  const validate = validators.get(op.name) as ValidateFunction;
  const pages = state.pages.filter((p) => p.operation === op.name);
  let args: Record<string, unknown> | null = null;
  if (pages.length && rng.chance(0.3)) {
    const page = rng.pick(pages);
    args = { ...(JSON.parse(page.args) as Record<string, unknown>), cursor: page.cursor };
  }
  const values = new ValidValues(rng, op, state);
  for (let attempt = 0; attempt < ATTEMPTS && !(args && validate(args)); attempt++) args = values.object(op.schema);
  if (!args || !validate(args)) return { op, args: null };
  const body = Buffer.from(JSON.stringify(args));
  const dispatch = op.tool.dispatch;
  const mcpArgs = dispatch ? { [dispatch.argument]: dispatch.value, ...args } : args;
  const id = index + 1;
  const mcpBody = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: op.tool.name, arguments: mcpArgs } }));
  return {
    args: mcpArgs,
    c: {
      seed,
      index,
      operation: op,
      mutations: ['valid'],
      rest: { method: 'POST', query: '', contentType: 'application/json', body },
      mcp: { path: rng.pick(op.tool.paths), contentType: 'application/json', body: mcpBody, id },
      compare: true,
      sameMessage: true,
      restFirst: rng.chance(0.5),
    },
  };
}

/** What a schema-valid request may be answered over REST: 200 or a refusal of LEGITIMATE_REFUSALS. */
export function positiveProblems(answer: Answer): Problem[] {
  if (answer.status === 0 || answer.status === 200) return [];
  const { code } = restView(answer);
  if (code !== null && LEGITIMATE_REFUSALS[code] === answer.status) return [];
  const message = restView(answer).message ?? '';
  return [{ kind: answer.status >= 500 ? '5xx' : 'refus hors contrat', detail: `${answer.status} ${code ?? '?'} pour une requête valide selon le schéma : ${message}` }];
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export async function runPositive(target: FuzzTarget, options: FuzzOptions, contract: FuzzContract = loadFuzzContract()): Promise<FuzzReport> {
  const oracle = new Oracle(contract);
  const tools = toolSchemas();
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false });
  addFormats(ajv);
  const validators = new Map(contract.operations.map((o) => [o.name, ajv.compile(o.schema as object)]));
  const started = performance.now();
  await resetWorkspace(target.db);
  const state: MutableState = { alertIds: [], values: new Map(), pages: [] };
  const inputNames = new Set(contract.operations.flatMap((o) => Object.keys(o.schema.properties ?? {}).map((p) => `${o.name.split('.')[0]}:${p}`)));
  const report: FuzzReport = { seed: options.seed, only: options.only, requests: 0, cases: 0, durationMs: 0, outcomes: new Map(), mutations: new Map(), failures: [] };
  const cases = options.only !== undefined ? options.only + 1 : Math.ceil(options.requests / 2);

  for (let index = 0; index < cases; index++) {
    const reported = options.only === undefined || index === options.only;
    const drawn = generatePositiveCase(contract, validators, options.seed, index, state);
    if (drawn.args === null) {
      if (reported) {
        report.cases += 1;
        const outcomes = report.outcomes.get(drawn.op.name) ?? new Map<string, number>();
        report.outcomes.set(drawn.op.name, outcomes);
        bump(outcomes, 'aucune requête valide tirée');
      }
      continue;
    }
    const { c, args } = drawn;
    const first = c.restFirst ? await sendRest(target.url, target.token, c) : await sendMcp(target.url, target.token, c);
    const second = c.restFirst ? await sendMcp(target.url, target.token, c) : await sendRest(target.url, target.token, c);
    const rest = c.restFirst ? first : second;
    const mcp = c.restFirst ? second : first;
    if (restView(rest).ok && isRecord(rest.json)) harvest(state, inputNames, c, rest.json);
    if (c.operation.name.startsWith('alertes.')) state.alertIds = (await target.db('alerts').select('id').orderBy('name')).map((a: { id: string }) => a.id);
    if (!reported) continue;
    report.requests += 2;
    report.cases += 1;
    const outcomes = report.outcomes.get(c.operation.name) ?? new Map<string, number>();
    report.outcomes.set(c.operation.name, outcomes);
    const rv = restView(rest);
    bump(outcomes, rv.ok ? 'REST 200' : `REST ${rest.status} ${rv.code ?? '?'}`);
    bump(outcomes, mcpView(mcp).ok ? 'MCP succès' : 'MCP erreur d’outil');
    bump(report.mutations, 'valid');

    const showAnswer = (a: Answer) => (a.status === 0 ? `(aucune réponse : ${a.failure ?? ''})` : `${a.status} ${shorten(a.text)}`);
    const fail = (transport: FuzzFailure['transport'], p: Problem, answer: string) =>
      report.failures.push({ seed: c.seed, index: c.index, operation: c.operation.name, transport, kind: p.kind, problem: p.detail, mutations: c.mutations, input: transport === 'MCP' ? `${c.mcp.path} ${showBytes(c.mcp.body)}` : showBytes(c.rest.body), answer });
    const toolValid = tools.byName.get(c.operation.tool.name);
    if (toolValid && !toolValid(args)) fail('MCP', { kind: 'schéma d’outil', detail: `arguments valides pour l'opération, refusés par le schéma de l'outil ${c.operation.tool.name} : ${JSON.stringify(toolValid.errors?.slice(0, 2))}` }, '');
    for (const p of positiveProblems(rest)) fail('REST', p, showAnswer(rest));
    const restRaw = new TextDecoder().decode(c.rest.body ?? Buffer.alloc(0));
    for (const p of checkRest(rest, oracle.rest(c), oracle.errorBody, restRaw)) fail('REST', p, showAnswer(rest));
    for (const p of checkMcp(mcp, oracle.mcp(c), c, new TextDecoder().decode(c.mcp.body))) fail('MCP', p, showAnswer(mcp));
    // A write's second call met the first one's effect (a name now taken): only reads are compared.
    if (c.operation.effect === 'read') for (const p of checkAgreement(c, rest, mcp)) fail('REST+MCP', p, `REST ${showAnswer(rest)}\n      MCP ${showAnswer(mcp)}`);
    options.progress?.(report.requests);
  }
  report.durationMs = performance.now() - started;
  return report;
}
