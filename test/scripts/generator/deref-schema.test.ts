// derefSchema makes a schema self-contained: every local $ref is inlined, cycles and dangling refs are refused.
import { expect } from 'chai';
import { derefSchema } from '../../../scripts/generator/deref-schema.js';

interface Case {
  name: string;
  given: { schema: unknown; doc: unknown };
  /** The inlined schema, or `{ error }` with the message derefSchema throws. */
  want: unknown;
}

/** Freezes the whole input, so a transform that writes into it fails the case. */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function run({ schema, doc }: Case['given']): unknown {
  try {
    return derefSchema(schema, doc);
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const components = (schemas: Record<string, unknown>) => ({ components: { schemas } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const cases: Case[] = [
  {
    name: 'a schema without $ref comes back equal',
    given: { schema: { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } } }, doc: {} },
    want: { type: 'object', required: ['q'], properties: { q: { type: 'string', minLength: 1 } } },
  },
  {
    name: 'scalars and null pass through',
    given: { schema: { const: null, default: 3, enum: ['a', 1, true] }, doc: {} },
    want: { const: null, default: 3, enum: ['a', 1, true] },
  },
  {
    name: 'a top-level $ref is replaced by its target',
    given: { schema: ref('Code'), doc: components({ Code: { type: 'string', pattern: '^[0-9]{2}$' } }) },
    want: { type: 'string', pattern: '^[0-9]{2}$' },
  },
  {
    name: 'nested refs are inlined at every depth (A -> B -> C)',
    given: {
      schema: ref('A'),
      doc: components({
        A: { type: 'object', properties: { b: ref('B') } },
        B: { type: 'object', properties: { c: ref('C') } },
        C: { type: 'integer', minimum: 0 },
      }),
    },
    want: {
      type: 'object',
      properties: { b: { type: 'object', properties: { c: { type: 'integer', minimum: 0 } } } },
    },
  },
  {
    name: 'refs inside items, prefixItems and oneOf arrays are inlined',
    given: {
      schema: {
        type: 'object',
        properties: {
          list: { type: 'array', items: ref('Code') },
          pair: { type: 'array', prefixItems: [ref('Code'), { type: 'integer' }] },
          either: { oneOf: [ref('Code'), { type: 'null' }] },
        },
      },
      doc: components({ Code: { type: 'string' } }),
    },
    want: {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'string' } },
        pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }] },
        either: { oneOf: [{ type: 'string' }, { type: 'null' }] },
      },
    },
  },
  {
    name: 'the same ref used twice (not a cycle) is inlined twice',
    given: {
      schema: { type: 'object', properties: { from: ref('Day'), to: ref('Day') } },
      doc: components({ Day: { type: 'string', format: 'date' } }),
    },
    want: {
      type: 'object',
      properties: { from: { type: 'string', format: 'date' }, to: { type: 'string', format: 'date' } },
    },
  },
  {
    name: 'sibling keywords beside a $ref are kept',
    given: {
      schema: { $ref: '#/components/schemas/Code', description: 'Code du département.', default: '35' },
      doc: components({ Code: { type: 'string' } }),
    },
    want: { type: 'string', description: 'Code du département.', default: '35' },
  },
  {
    name: 'a sibling keyword wins over the same keyword of the target',
    given: {
      schema: { $ref: '#/components/schemas/Code', description: 'Locale.' },
      doc: components({ Code: { type: 'string', description: 'Générale.' } }),
    },
    want: { type: 'string', description: 'Locale.' },
  },
  {
    name: 'refs inside sibling keywords are inlined too',
    given: {
      schema: { $ref: '#/components/schemas/Base', properties: { extra: ref('Code') } },
      doc: components({ Base: { type: 'object' }, Code: { type: 'string' } }),
    },
    want: { type: 'object', properties: { extra: { type: 'string' } } },
  },
  {
    name: 'a ref may point anywhere in the document, not only to components',
    given: { schema: { $ref: '#/paths/~1api~1v1~1me/get/x-schema' }, doc: { paths: { '/api/v1/me': { get: { 'x-schema': { type: 'boolean' } } } } } },
    want: { type: 'boolean' },
  },
  {
    name: 'JSON-pointer escape ~1 stands for /',
    given: { schema: { $ref: '#/defs/a~1b' }, doc: { defs: { 'a/b': { type: 'integer' } } } },
    want: { type: 'integer' },
  },
  {
    name: 'JSON-pointer escape ~0 stands for ~',
    given: { schema: { $ref: '#/defs/a~0b' }, doc: { defs: { 'a~b': { type: 'number' } } } },
    want: { type: 'number' },
  },
  {
    name: 'escapes are decoded ~1 first, so ~01 means the key ~1 (RFC 6901)',
    given: { schema: { $ref: '#/defs/~01' }, doc: { defs: { '~1': { type: 'string' }, '/': { type: 'null' } } } },
    want: { type: 'string' },
  },
  {
    name: 'a pointer segment can index an array',
    given: { schema: { $ref: '#/list/1' }, doc: { list: [{ type: 'string' }, { type: 'integer' }] } },
    want: { type: 'integer' },
  },
  {
    name: 'a schema that refers to itself is refused',
    given: { schema: ref('Node'), doc: components({ Node: { type: 'object', properties: { next: ref('Node') } } }) },
    want: { error: 'référence circulaire : #/components/schemas/Node' },
  },
  {
    name: 'an indirect cycle (A -> B -> A) is refused',
    given: {
      schema: { type: 'array', items: ref('A') },
      doc: components({ A: { type: 'object', properties: { b: ref('B') } }, B: { anyOf: [ref('A'), { type: 'null' }] } }),
    },
    want: { error: 'référence circulaire : #/components/schemas/A' },
  },
  {
    name: 'a ref to a missing component is refused',
    given: { schema: { type: 'object', properties: { x: ref('Missing') } }, doc: components({ Code: { type: 'string' } }) },
    want: { error: 'référence introuvable : #/components/schemas/Missing' },
  },
  {
    name: 'a ref through a scalar is refused',
    given: { schema: { $ref: '#/components/schemas/Code/type/x' }, doc: components({ Code: { type: 'string' } }) },
    want: { error: 'référence introuvable : #/components/schemas/Code/type/x' },
  },
  {
    name: 'a dangling ref inside a target is refused with its own name',
    given: { schema: ref('A'), doc: components({ A: { items: ref('Gone') } }) },
    want: { error: 'référence introuvable : #/components/schemas/Gone' },
  },
  {
    name: 'a ref to another file is refused',
    given: { schema: { $ref: 'common.yaml#/components/schemas/Code' }, doc: {} },
    want: { error: 'référence non locale : common.yaml#/components/schemas/Code' },
  },
  {
    name: 'a ref to a URL is refused',
    given: { schema: { items: { $ref: 'https://example.org/schema.json' } }, doc: {} },
    want: { error: 'référence non locale : https://example.org/schema.json' },
  },
];

describe('derefSchema', () => {
  for (const c of cases) it(c.name, () => expect(run(deepFreeze(c.given))).to.deep.equal(c.want));
});

describe('derefSchema and inherited names', () => {
  it('refuses a reference to a name only inherited from Object (constructor, toString)', () => {
    const doc = { components: { schemas: { A: { type: 'string' } } } };
    for (const name of ['constructor', 'toString', '__proto__']) {
      expect(() => derefSchema({ $ref: `#/components/schemas/${name}` }, doc), name).to.throw(/introuvable/);
    }
  });
});
