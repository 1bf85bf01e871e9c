// A JSON text under construction: a tree the mutations edit, written out byte for byte.
// Plain JavaScript values cannot hold what the fuzzer must send: numbers JSON.stringify
// would not write (1e309), own `__proto__` keys, duplicate keys, nesting deeper than a
// recursive writer's stack, bytes that are not UTF-8.

export type JsonNode =
  | { k: 'value'; v: string | number | boolean | null }
  | { k: 'object'; entries: [string, JsonNode][] }
  | { k: 'array'; items: JsonNode[] }
  /** Written as is. */
  | { k: 'raw'; bytes: Buffer };

export type ObjectNode = Extract<JsonNode, { k: 'object' }>;

export const val = (v: string | number | boolean | null): JsonNode => ({ k: 'value', v });
export const raw = (text: string | Buffer): JsonNode => ({ k: 'raw', bytes: typeof text === 'string' ? Buffer.from(text, 'utf8') : text });
export const obj = (entries: [string, JsonNode][] = []): ObjectNode => ({ k: 'object', entries });
export const arr = (items: JsonNode[] = []): JsonNode => ({ k: 'array', items });

/** A node for a plain JSON value (object keys in their order). */
export function fromValue(v: unknown): JsonNode {
  if (Array.isArray(v)) return arr(v.map(fromValue));
  if (v !== null && typeof v === 'object') return obj(Object.entries(v).map(([key, value]) => [key, fromValue(value)]));
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) return val(v);
  throw new Error(`not a JSON value: ${typeof v}`);
}

/** The JSON text of the node, as bytes. Iterative, so no nesting depth breaks it. */
export function encode(node: JsonNode): Buffer {
  const parts: (string | Buffer)[] = [];
  const stack: (JsonNode | string)[] = [node];
  while (stack.length) {
    const top = stack.pop() as JsonNode | string;
    if (typeof top === 'string') {
      parts.push(top);
      continue;
    }
    switch (top.k) {
      case 'value':
        // JSON.stringify writes lone surrogates as \uXXXX escapes and NUL as \u0000.
        parts.push(typeof top.v === 'number' && !Number.isFinite(top.v) ? String(top.v) : JSON.stringify(top.v));
        break;
      case 'raw':
        parts.push(top.bytes);
        break;
      case 'array': {
        const pending: (JsonNode | string)[] = ['['];
        top.items.forEach((item, i) => pending.push(...(i ? [','] : []), item));
        pending.push(']');
        for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as JsonNode | string);
        break;
      }
      case 'object': {
        const pending: (JsonNode | string)[] = ['{'];
        top.entries.forEach(([key, value], i) => pending.push(`${i ? ',' : ''}${JSON.stringify(key)}:`, value));
        pending.push('}');
        for (let i = pending.length - 1; i >= 0; i--) stack.push(pending[i] as JsonNode | string);
        break;
      }
    }
  }
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
}

/** Sets `key` of an object node (replacing its first entry, or adding one). */
export function setEntry(node: ObjectNode, key: string, value: JsonNode): void {
  const entry = node.entries.find(([k]) => k === key);
  if (entry) entry[1] = value;
  else node.entries.push([key, value]);
}

export function deleteEntry(node: ObjectNode, key: string): void {
  node.entries = node.entries.filter(([k]) => k !== key);
}
