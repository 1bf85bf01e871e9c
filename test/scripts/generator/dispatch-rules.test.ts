// A dispatching tool's input schema carries each action's own rules under if/then (its arguments only, required ones, combinations), and the TypeScript types are made without the rules that add no property.
import { expect } from 'chai';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { dispatchInputSchema } from '../../../scripts/generator/tool-entry.js';
import { withoutPropertyRules } from '../../../scripts/generator/typescript-types.js';
import type { OperationEntry } from '../../../src/contract/types.js';

const op = (name: string, inputSchema: Record<string, unknown>) => ({ name, summary: name, inputSchema }) as unknown as OperationEntry;
const operations = new Map([
  ['x.add', op('x.add', { type: 'object', additionalProperties: false, required: ['name'], properties: { name: { type: 'string' }, a: { type: 'string' }, b: { type: 'string' } }, anyOf: [{ required: ['a'] }, { required: ['b'] }] })],
  ['x.list', op('x.list', { type: 'object', additionalProperties: false, maxProperties: 0 })],
]);
const schema = dispatchInputSchema({ argument: 'action', operations: { add: 'x.add', list: 'x.list' } }, operations);
const validate = new Ajv2020({ strict: false }).compile(schema);

describe('generator: a dispatching tool carries each action’s rules', () => {
  const cases: [string, Record<string, unknown>, boolean][] = [
    ['an action with its required argument and one of its combinations', { action: 'add', name: 'n', a: '1' }, true],
    ['an action without its combination', { action: 'add', name: 'n' }, false],
    ['an action without its required argument', { action: 'add', a: '1' }, false],
    ['an action taking nothing, alone', { action: 'list' }, true],
    ['an action given another action’s argument', { action: 'list', name: 'n' }, false],
    ['no action', { name: 'n', a: '1' }, false],
  ];
  for (const [name, args, want] of cases) it(name, () => expect(validate(args)).to.equal(want));
});

describe('generator: types without the rules that add no property', () => {
  it('drops if/then/else and constraint-only anyOf beside properties, keeps unions of types', () => {
    const given = {
      a: { type: 'object', properties: { x: { type: 'string' } }, anyOf: [{ required: ['x'] }], if: { properties: { x: { const: 'a' } } }, then: { required: ['x'] } },
      b: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      c: { type: 'object', properties: { y: { type: 'string' } }, oneOf: [{ $ref: '#/components/schemas/Y' }] },
    };
    expect(withoutPropertyRules(given)).to.deep.equal({
      a: { type: 'object', properties: { x: { type: 'string' } } },
      b: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      c: { type: 'object', properties: { y: { type: 'string' } }, oneOf: [{ $ref: '#/components/schemas/Y' }] },
    });
  });
});
