// One fuzz case from the contract: a valid baseline built from the operation's request
// schema, then zero to three mutations (boundaries, type confusions, unknown and prototype
// keys, nulls, deep nesting, extreme numbers, hostile strings, long arrays, near misses
// of enums, patterns and formats), or at a smaller rate a malformed body (not JSON, not
// UTF-8, not declared JSON, not an object, empty, too large). The same arguments go to
// REST and to the MCP tool that runs the operation.
import type { FuzzContract, FuzzOperation, JsonSchema } from './contract.js';
import { arr, deleteEntry, encode, fromValue, obj, raw, setEntry, val, type JsonNode, type ObjectNode } from './json-node.js';
import { Rng } from './prng.js';
import { samplePattern } from './regex-sample.js';
import {
  ALERT_NAMES, CONTENT_TYPES, CONTROL_STRINGS, DATE_NEAR_MISSES, DATE_VALID, EMPTY_BODIES, EXTREME_NUMBERS, INVALID_JSON, INVALID_UTF8, NON_OBJECT_BODIES,
  PROTO_KEYS, QUERY_STRINGS, SPECIAL_STRINGS, UNKNOWN_KEYS, UUID_NEAR_MISSES, WORDS,
} from './values.js';

/** The body limit of the spec (3 MiB): a body over it is refused before it is read. */
export const BODY_LIMIT_BYTES = 3 * 1024 * 1024;

export interface FuzzCase {
  seed: number;
  index: number;
  operation: FuzzOperation;
  /** What was done to the baseline, in order. */
  mutations: string[];
  rest: { method: 'GET' | 'POST'; query: string; contentType: string | null; body: Buffer | null };
  mcp: { path: string; contentType: string | null; body: Buffer; id: number };
  /** REST and MCP received the same arguments: they must answer alike. */
  compare: boolean;
  /** Refusals carry the same message (false where the two transports word a malformed body differently by design). */
  sameMessage: boolean;
  /** Which transport is called first (a write's effect shows on the second). */
  restFirst: boolean;
}

/** What a case may draw from the run so far (all of it deterministic for a seed). */
export interface RunState {
  /** Ids of the alerts that exist, in the order of their names. */
  alertIds: readonly string[];
  /** Values read in earlier answers, by `domain:field` (`marches:marche_id`, `entreprises:siren`…). */
  values: ReadonlyMap<string, readonly string[]>;
  /** Arguments (JSON text) of earlier searches, with the next_cursor they were answered. */
  pages: readonly { operation: string; args: string; cursor: string }[];
}

type Slot = { container: ObjectNode; key: string; schema: JsonSchema } | { array: Extract<JsonNode, { k: 'array' }>; index: number; schema: JsonSchema };

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/** Baseline values: valid for the schema, ordinary for the service. */
class Baseline {
  constructor(
    private readonly rng: Rng,
    private readonly contract: FuzzContract,
    private readonly op: FuzzOperation,
    private readonly state: RunState,
  ) {}

  value(schema: JsonSchema, name: string): JsonNode {
    const { rng } = this;
    const hinted = this.hint(schema, name);
    if (hinted !== undefined) return hinted;
    if (schema.enum) return fromValue(rng.pick(schema.enum));
    if (schema.const !== undefined) return fromValue(schema.const);
    const type = typesOf(schema)[0];
    switch (type) {
      case 'object':
        return this.object(schema);
      case 'array': {
        const min = schema.minItems ?? 0;
        const count = rng.int(min, Math.max(min, Math.min(schema.maxItems ?? 4, 4)));
        return arr(Array.from({ length: count }, () => this.value(schema.items ?? {}, name)));
      }
      case 'integer':
        return val(rng.int(schema.minimum ?? 0, schema.maximum ?? (schema.minimum ?? 0) + 100));
      case 'number':
        return val(rng.chance(0.5) ? rng.int(schema.minimum ?? 0, 1_000_000) : Math.round(rng.next() * 1e8) / 100);
      case 'boolean':
        return val(rng.chance(0.5));
      case 'string':
        return val(this.string(schema, name));
      default:
        return val(null);
    }
  }

  object(schema: JsonSchema): ObjectNode {
    const node = obj();
    const required = new Set(schema.required ?? []);
    for (const [key, prop] of Object.entries(schema.properties ?? {})) {
      // A cursor is valid only as the service issued it: it comes from an earlier page (or a mutation), never drawn.
      if (key === 'cursor' && !required.has(key)) continue;
      if (required.has(key) || this.rng.chance(0.4)) node.entries.push([key, this.value(prop, key)]);
    }
    return node;
  }

  string(schema: JsonSchema, name: string): string {
    const { rng } = this;
    if (schema.pattern) {
      const sample = samplePattern(schema.pattern, rng);
      if (sample !== null) return sample;
    }
    if (schema.format === 'date') return `${rng.int(2015, 2030)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`;
    if (schema.format === 'uuid') return uuid(rng);
    const min = schema.minLength ?? 0;
    const max = schema.maxLength ?? 200;
    if (name === 'cursor') return Array.from({ length: rng.int(8, 60) }, () => rng.pick([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.'])).join(''); // a forged cursor
    let text = Array.from({ length: rng.int(1, 3) }, () => rng.pick(WORDS)).join(rng.chance(0.15) ? ', ' : ' ');
    while ([...text].length < min) text += 'x';
    return [...text].slice(0, max).join('');
  }

  /** Values only this operation's meaning gives: names of tools, alerts that exist, records seen in earlier answers. */
  private hint(schema: JsonSchema, name: string): JsonNode | undefined {
    const { rng, op } = this;
    const seen = this.state.values.get(`${op.name.split('.')[0]}:${name}`);
    if (typesOf(schema)[0] === 'string' && seen?.length && rng.chance(0.5)) return val(rng.pick(seen));
    if (op.name === 'aide.outil' && name === 'nom' && rng.chance(0.6)) return val(rng.pick(this.contract.names));
    if (op.name === 'alertes.delete' && name === 'id' && this.state.alertIds.length && rng.chance(0.6)) return val(rng.pick(this.state.alertIds));
    if (op.name === 'alertes.create' && name === 'name' && rng.chance(0.7)) return val(rng.pick(ALERT_NAMES));
    return undefined;
  }
}

function uuid(rng: Rng): string {
  const hex = (n: number) => Array.from({ length: n }, () => rng.pick([...'0123456789abcdef'])).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${rng.pick([...'89ab'])}${hex(3)}-${hex(12)}`;
}

/** Every place of the arguments a mutation may hit: each declared property (present or not) and each array item. */
function slots(root: ObjectNode, schema: JsonSchema): Slot[] {
  const out: Slot[] = [];
  const visit = (container: ObjectNode, s: JsonSchema) => {
    for (const [key, prop] of Object.entries(s.properties ?? {})) {
      out.push({ container, key, schema: prop });
      const present = container.entries.find(([k]) => k === key)?.[1];
      if (present?.k === 'object' && prop.properties) visit(present, prop);
      if (present?.k === 'array' && prop.items) present.items.forEach((_, index) => out.push({ array: present, index, schema: prop.items as JsonSchema }));
    }
  };
  visit(root, schema);
  return out;
}

function setSlot(slot: Slot, node: JsonNode): void {
  if ('container' in slot) setEntry(slot.container, slot.key, node);
  else slot.array.items[slot.index] = node;
}

function currentValue(slot: Slot): JsonNode | undefined {
  return 'container' in slot ? slot.container.entries.find(([k]) => k === slot.key)?.[1] : slot.array.items[slot.index];
}

/** The containers (objects) an unknown key may be added to. */
function containers(root: ObjectNode): ObjectNode[] {
  const out: ObjectNode[] = [root];
  for (const [, v] of root.entries) if (v.k === 'object') out.push(v);
  return out;
}

const TYPE_CONFUSIONS: (() => JsonNode)[] = [
  () => val(0), () => val(1), () => val(-1), () => val(1.5), () => val(''), () => val('1'), () => val('true'), () => val('null'),
  () => val(true), () => val(false), () => arr(), () => arr([val('a')]), () => obj(), () => obj([['a', val(1)]]),
];

function deepNesting(rng: Rng): JsonNode {
  const depth = rng.pick([64, 1000, 10_000, 100_000]);
  return rng.chance(0.5) ? raw('['.repeat(depth) + ']'.repeat(depth)) : raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

function specialString(rng: Rng, base: string): string {
  const special = rng.chance(0.35) ? rng.pick(CONTROL_STRINGS) : rng.pick(SPECIAL_STRINGS);
  switch (rng.int(0, 5)) {
    case 0:
      return special;
    case 1:
      return base + special;
    case 2:
      return special + base;
    case 3: {
      const at = rng.int(0, base.length);
      return base.slice(0, at) + special + base.slice(at);
    }
    case 4:
      return rng.pick(['x', 'é', '😀', ' ', 'a ']).repeat(rng.pick([1000, 65_536, 1_000_000]));
    default:
      return special.repeat(rng.int(2, 50));
  }
}

/** Text of exactly `length` code points (the unit of minLength and maxLength). */
function filler(rng: Rng, length: number): string {
  return rng.pick(['x', 'é', '😀', '4', ' ']).repeat(length);
}

type Mutation = (ctx: { rng: Rng; root: ObjectNode; schema: JsonSchema; baseline: Baseline; slots: Slot[] }) => string | null;

/** Name, weight, whether it needs a declared property to hit, and the mutation (null: not applicable here). */
const MUTATIONS: [string, number, boolean, Mutation][] = [
  ['boundary', 14, true, ({ rng, slots: all, baseline }) => {
    const slot = rng.pick(all);
    const s = slot.schema;
    const type = typesOf(s)[0];
    if (type === 'string' && !s.enum) {
      const min = s.minLength ?? 0;
      const max = s.maxLength;
      const lengths = [min, min - 1, 0, 1, ...(max !== undefined ? [max, max + 1, max * 2] : [10_000])].filter((n) => n >= 0);
      const length = rng.pick(lengths);
      setSlot(slot, val(filler(rng, length)));
      return `boundary:length ${length}`;
    }
    if (type === 'integer' || type === 'number') {
      const min = s.minimum;
      const max = s.maximum;
      const candidates = [0, -1, 1, 2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, -(2 ** 53), Number.MAX_VALUE, 5e-324, ...(min !== undefined ? [min, min - 1, min - 1e-9] : []), ...(max !== undefined ? [max, max + 1, max + 1e-9] : [])];
      const n = rng.pick(candidates);
      setSlot(slot, val(n));
      return `boundary:${n}`;
    }
    if (type === 'array') {
      const min = s.minItems ?? 0;
      const counts = [min, min - 1, ...(s.maxItems !== undefined ? [s.maxItems, s.maxItems + 1] : [])].filter((n) => n >= 0);
      const count = rng.pick(counts);
      setSlot(slot, arr(Array.from({ length: count }, () => baseline.value(s.items ?? {}, ''))));
      return `boundary:${count} items`;
    }
    setSlot(slot, baseline.value(s, ''));
    return 'boundary:valid';
  }],
  ['type-confusion', 10, true, ({ rng, slots: all }) => {
    const slot = rng.pick(all);
    setSlot(slot, rng.pick(TYPE_CONFUSIONS)());
    return 'type-confusion';
  }],
  ['null', 5, true, ({ rng, slots: all }) => {
    setSlot(rng.pick(all), val(null));
    return 'null';
  }],
  ['null-everywhere', 2, true, ({ slots: all }) => {
    for (const slot of all) setSlot(slot, val(null));
    return 'null-everywhere';
  }],
  ['missing-required', 4, false, ({ rng, root, schema }) => {
    if (!schema.required?.length) return null;
    deleteEntry(root, rng.pick(schema.required));
    return 'missing-required';
  }],
  ['unknown-key', 6, false, ({ rng, root }) => {
    rng.pick(containers(root)).entries.push([rng.pick(UNKNOWN_KEYS), rng.pick(TYPE_CONFUSIONS)()]);
    return 'unknown-key';
  }],
  ['proto-key', 6, false, ({ rng, root }) => {
    const value = rng.pick([obj(), obj([['admin', val(true)]]), obj([['polluted', val(1)]]), val(1), val(null), val('x'), arr()]);
    const target = rng.pick(containers(root));
    const entry: [string, JsonNode] = [rng.pick(PROTO_KEYS), value];
    if (rng.chance(0.5)) target.entries.unshift(entry);
    else target.entries.push(entry);
    return `proto-key:${entry[0]}`;
  }],
  ['deep-nesting', 3, false, ({ rng, root, slots: all }) => {
    if (all.length && rng.chance(0.7)) setSlot(rng.pick(all), deepNesting(rng));
    else root.entries.push(['profond', deepNesting(rng)]);
    return 'deep-nesting';
  }],
  ['extreme-number', 7, true, ({ rng, slots: all }) => {
    const numeric = all.filter((s) => ['integer', 'number'].includes(typesOf(s.schema)[0] ?? ''));
    const text = rng.pick(EXTREME_NUMBERS);
    setSlot(rng.pick(numeric.length && rng.chance(0.8) ? numeric : all), raw(text));
    return `extreme-number:${text.length > 30 ? `${text.slice(0, 8)}…(${text.length})` : text}`;
  }],
  ['special-string', 14, true, ({ rng, slots: all }) => {
    const strings = all.filter((s) => typesOf(s.schema)[0] === 'string');
    const slot = rng.pick(strings.length && rng.chance(0.85) ? strings : all);
    const current = currentValue(slot);
    const base = current?.k === 'value' && typeof current.v === 'string' ? current.v : 'toiture';
    setSlot(slot, val(specialString(rng, base)));
    return 'special-string';
  }],
  ['long-array', 8, true, ({ rng, slots: all, baseline }) => {
    const arrays = all.filter((s) => typesOf(s.schema)[0] === 'array');
    if (!arrays.length) return null;
    // An array without maxItems is a gap in the contract: aimed at first.
    const unbounded = arrays.filter((s) => s.schema.maxItems === undefined);
    const slot = rng.pick(unbounded.length && rng.chance(0.7) ? unbounded : arrays);
    const max = slot.schema.maxItems;
    const count = rng.pick([...(max !== undefined ? [max + 1] : []), 999, 5000, 20_000]);
    const item = () => baseline.value(slot.schema.items ?? {}, '');
    setSlot(slot, arr(Array.from({ length: count }, item)));
    return `long-array:${count}${max === undefined ? ' (no maxItems)' : ''}`;
  }],
  ['enum-neighbour', 6, true, ({ rng, slots: all }) => {
    const enums = all.filter((s) => s.schema.enum?.length);
    if (!enums.length) return null;
    const slot = rng.pick(enums);
    const v = String(rng.pick(slot.schema.enum as unknown[]));
    const neighbours: JsonNode[] = [v.toUpperCase(), v.toLowerCase(), ` ${v}`, `${v} `, v.slice(0, -1), `${v}x`, '', `${v}\u0000`, `${v},${v}`].map(val);
    if (/^\d+$/.test(v)) neighbours.push(val(Number(v)));
    neighbours.push(arr([val(v)]));
    setSlot(slot, rng.pick(neighbours));
    return 'enum-neighbour';
  }],
  ['pattern-near-miss', 6, true, ({ rng, slots: all }) => {
    const patterned = all.filter((s) => typeof s.schema.pattern === 'string');
    if (!patterned.length) return null;
    const slot = rng.pick(patterned);
    const s = samplePattern(slot.schema.pattern as string, rng) ?? '45';
    const misses = [`${s}0`, s.slice(0, -1), s.replace(/[0-9]/, 'a'), ` ${s}`, `${s} `, `${s}\n`, s.toLowerCase(), '',
      s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d))), s.replace(/[0-9]/g, (d) => String.fromCharCode(0x0660 + Number(d))), `${s}\u0000`, s.repeat(2)];
    setSlot(slot, val(rng.pick(misses)));
    return 'pattern-near-miss';
  }],
  ['format-near-miss', 4, true, ({ rng, slots: all }) => {
    const formatted = all.filter((s) => typeof s.schema.format === 'string');
    if (!formatted.length) return null;
    const slot = rng.pick(formatted);
    const list = slot.schema.format === 'date' ? [...DATE_NEAR_MISSES, ...DATE_VALID] : slot.schema.format === 'uuid' ? UUID_NEAR_MISSES : ['x'];
    setSlot(slot, val(rng.pick(list)));
    return 'format-near-miss';
  }],
  ['duplicate-key', 3, false, ({ rng, root }) => {
    if (!root.entries.length) return null;
    const [key] = rng.pick(root.entries);
    const other = rng.pick(TYPE_CONFUSIONS)();
    // JSON.parse keeps the last of duplicate keys: the spoiled value goes first or last.
    if (rng.chance(0.5)) root.entries.push([key, other]);
    else root.entries.unshift([key, other]);
    return `duplicate-key:${key}`;
  }],
];

/** The whole body spoiled: the JSON text, its bytes, its declared type or its size. */
type BodyMutation = (ctx: { rng: Rng; args: ObjectNode; baseline: Baseline; schema: JsonSchema }) => {
  label: string;
  args: JsonNode;
  contentType?: string | null;
  sameMessage?: boolean;
  /** Whitespace written before and after the arguments. */
  pad?: [string, string];
};

const BODY_MUTATIONS: [string, number, BodyMutation][] = [
  ['invalid-json', 30, ({ rng, args }) => {
    if (rng.chance(0.35) && args.entries.length) {
      const text = encode(args);
      return { label: 'invalid-json:truncated', args: raw(text.subarray(0, rng.int(1, text.length - 1))) };
    }
    return { label: 'invalid-json', args: raw(rng.pick(INVALID_JSON)) };
  }],
  ['invalid-utf8', 20, ({ rng, args }) => {
    const bad = Buffer.from(rng.pick(INVALID_UTF8));
    const where = rng.int(0, 2);
    if (where === 0) {
      const strings = args.entries.filter(([, v]) => v.k === 'value' && typeof v.v === 'string');
      const target = strings.length ? rng.pick(strings) : undefined;
      const text = target && target[1].k === 'value' ? String(target[1].v) : 'toiture';
      const at = rng.int(0, text.length);
      const node = raw(Buffer.concat([Buffer.from(JSON.stringify(text.slice(0, at)).slice(0, -1)), bad, Buffer.from(JSON.stringify(text.slice(at)).slice(1))]));
      if (target) target[1] = node;
      else args.entries.push(['query', node]);
      return { label: 'invalid-utf8:value', args };
    }
    if (where === 1) {
      const body = encode(args);
      return { label: 'invalid-utf8:key', args: raw(Buffer.concat([body.subarray(0, body.length - 1), Buffer.from(args.entries.length ? ',"' : '"'), bad, Buffer.from('":1}')])) };
    }
    return { label: 'invalid-utf8:outside strings', args: raw(Buffer.concat([bad, encode(args)])) };
  }],
  ['content-type', 18, ({ rng, args }) => ({ label: 'content-type', args, contentType: rng.pick(CONTENT_TYPES) })],
  ['non-object-body', 14, ({ rng }) => ({ label: 'non-object-body', args: raw(rng.pick(NON_OBJECT_BODIES)), sameMessage: false })],
  ['empty-body', 6, ({ rng }) => ({ label: 'empty-body', args: raw(rng.pick(EMPTY_BODIES)), sameMessage: false })],
  ['whitespace', 4, ({ rng, args }) => ({ label: 'whitespace', args, pad: [rng.pick([' ', '\n', '\t', '\r\n  ']), rng.pick(['', ' ', '\n'])] })],
  ['oversized-body', 2, ({ args }) => {
    args.entries.push(['remplissage', val('x'.repeat(BODY_LIMIT_BYTES + 16))]);
    return { label: 'oversized-body', args };
  }],
];

/** The value of the dispatching argument, spoiled (MCP only: REST has no such argument). */
function dispatchMutation(rng: Rng, argument: string, value: string, operations: Record<string, string>): { label: string; entry: JsonNode | undefined } {
  const others = Object.keys(operations).filter((v) => v !== value);
  const choices: [string, JsonNode | undefined][] = [
    ['absent', undefined], ['empty', val('')], ['upper case', val(value.toUpperCase())], ['padded', val(` ${value}`)], ['unknown', val('delete')],
    ['constructor', val('constructor')], ['toString', val('toString')], ['__proto__', val('__proto__')], ['hasOwnProperty', val('hasOwnProperty')],
    ['number', val(5)], ['null', val(null)], ['boolean', val(true)], ['list', arr([val(value)])], ['object', obj()], ['other action', val(rng.pick(others))],
  ];
  const [label, entry] = rng.pick(choices);
  return { label: `dispatch:${argument} ${label}`, entry };
}

/** The operation of case `index` and its inputs; all drawn from the case's own generator. */
export function generateCase(contract: FuzzContract, seed: number, index: number, state: RunState): FuzzCase {
  const rng = Rng.forCase(seed, index);
  // Operations with arguments get twice the share of those without.
  const op = rng.weighted(contract.operations.map((o) => [o, Object.keys(o.schema.properties ?? {}).length ? 2 : 1] as const));
  const baseline = new Baseline(rng, contract, op, state);
  // A later page of an earlier search: its arguments and the cursor it was answered.
  const pages = state.pages.filter((p) => p.operation === op.name);
  const page = pages.length && rng.chance(0.35) ? rng.pick(pages) : null;
  const args = page ? (fromValue(JSON.parse(page.args)) as ObjectNode) : baseline.object(op.schema);
  if (page) setEntry(args, 'cursor', val(page.cursor));
  const mutations: string[] = [];
  let argsNode: JsonNode = args;
  let contentType: string | null = 'application/json';
  let sameMessage = true;
  let compare = true;
  let dispatchEntry: { entry: JsonNode | undefined } | null = null;
  let pad: [string, string] = ['', ''];

  const kind = rng.weighted([['arguments', 84], ['body', 12], ['dispatch', op.tool.dispatch ? 6 : 0]] as const);
  if (kind === 'body') {
    const [, , mutate] = rng.weighted(BODY_MUTATIONS.map((m) => [m, m[1]] as const));
    const out = mutate({ rng, args, baseline, schema: op.schema });
    mutations.push(out.label);
    argsNode = out.args;
    if (out.contentType !== undefined) contentType = out.contentType;
    if (out.sameMessage === false) sameMessage = false;
    if (out.pad) pad = out.pad;
  } else {
    const count = kind === 'dispatch' ? 0 : rng.weighted([[0, 20], [1, 50], [2, 20], [3, 10]] as const);
    for (let i = 0; i < count; i++) {
      const all = slots(args, op.schema);
      const applicable = MUTATIONS.filter(([, , needsSlots]) => all.length || !needsSlots);
      let label: string | null = null;
      for (let attempt = 0; attempt < 4 && label === null; attempt++) {
        const [, , , mutate] = rng.weighted(applicable.map((m) => [m, m[1]] as const));
        label = mutate({ rng, root: args, schema: op.schema, baseline, slots: all });
      }
      if (label) mutations.push(label);
    }
    if (!mutations.length) mutations.push('valid');
    if (kind === 'dispatch' && op.tool.dispatch) {
      const d = dispatchMutation(rng, op.tool.dispatch.argument, op.tool.dispatch.value, op.tool.dispatch.operations);
      mutations.push(d.label);
      dispatchEntry = { entry: d.entry };
      compare = false;
    }
  }

  const padded = (bytes: Buffer) => Buffer.concat([Buffer.from(pad[0]), bytes, Buffer.from(pad[1])]);
  const argsBytes = padded(encode(argsNode));
  // The MCP arguments: the same, plus the dispatching argument naming the operation.
  let mcpArgs = argsBytes;
  if (op.tool.dispatch && argsNode.k === 'object') {
    const entry = dispatchEntry ? dispatchEntry.entry : val(op.tool.dispatch.value);
    mcpArgs = padded(encode(obj([...(entry ? [[op.tool.dispatch.argument, entry] as [string, JsonNode]] : []), ...argsNode.entries])));
  }
  const id = index + 1;
  const mcpBody = Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":${JSON.stringify(op.tool.name)},"arguments":`),
    mcpArgs,
    Buffer.from('}}'),
  ]);
  // REST knows no dispatching argument (an unknown argument there): only MCP reads it.
  if (op.tool.dispatch && argsNode.k === 'object' && argsNode.entries.some(([key]) => key === op.tool.dispatch?.argument)) compare = false;
  const get = op.method === 'get';
  if (get) compare = false; // GET me reads no arguments: only its tool sees them
  return {
    seed,
    index,
    operation: op,
    mutations,
    rest: get ? { method: 'GET', query: rng.pick(QUERY_STRINGS), contentType: null, body: null } : { method: 'POST', query: '', contentType, body: argsBytes },
    mcp: { path: rng.pick(op.tool.paths), contentType, body: mcpBody, id },
    compare,
    sameMessage,
    restFirst: rng.chance(0.5),
  };
}
