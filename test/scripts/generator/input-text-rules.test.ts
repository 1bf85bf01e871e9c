// applyInputTextRules writes into every text an operation accepts the rules the service keeps: no NUL nor unpaired surrogate (a whole pattern, or a lookahead on a pattern admitting any character), the query syntax on a text marked x-query-syntax; enums, consts, formats and explicit patterns are left alone.
import { expect } from 'chai';
import { admitsAnyCharacter, applyInputTextRules } from '../../../scripts/generator/input-text-rules.js';
import { TEXT_LOOKAHEAD, TEXT_PATTERN } from '../../../src/contract/text-rules.js';
import { queryPattern } from '../../../src/platform/search/query-syntax.js';

const body = (schema: unknown) => ({ content: { 'application/json': { schema } } });
const props = (b: { content: { 'application/json': { schema: unknown } } }) => (b.content['application/json'].schema as { properties: Record<string, Record<string, unknown>> }).properties;

const cases: { name: string; given: Record<string, unknown>; want: Record<string, unknown> }[] = [
  { name: 'a free text gets the text pattern', given: { type: 'string', maxLength: 10 }, want: { type: 'string', maxLength: 10, pattern: TEXT_PATTERN } },
  { name: 'a nullable text too', given: { type: ['string', 'null'], maxLength: 10 }, want: { type: ['string', 'null'], maxLength: 10, pattern: TEXT_PATTERN } },
  { name: 'an explicit pattern is kept', given: { type: 'string', pattern: '^[0-9]{9}$' }, want: { type: 'string', pattern: '^[0-9]{9}$' } },
  { name: 'a pattern admitting any character gets the lookahead', given: { type: 'string', pattern: '^(?=[\\s\\S]*\\S)' }, want: { type: 'string', pattern: `^${TEXT_LOOKAHEAD}(?=[\\s\\S]*\\S)` } },
  { name: 'an enum is left alone', given: { type: 'string', enum: ['a'] }, want: { type: 'string', enum: ['a'] } },
  { name: 'a format is left alone', given: { type: 'string', format: 'uuid' }, want: { type: 'string', format: 'uuid' } },
  { name: 'a number is left alone', given: { type: 'integer', minimum: 1 }, want: { type: 'integer', minimum: 1 } },
  { name: 'a search text gets the syntax, with the lookahead', given: { type: 'string', maxLength: 300, 'x-query-syntax': true }, want: { type: 'string', maxLength: 300, 'x-query-syntax': true, pattern: `^${TEXT_LOOKAHEAD}${queryPattern().slice(1)}` } },
];

describe('generator: input text rules', () => {
  for (const c of cases) {
    it(c.name, () => {
      const b = body({ type: 'object', properties: { x: structuredClone(c.given) } });
      applyInputTextRules(b, {}, 'test');
      expect(props(b).x).to.deep.equal(c.want);
    });
  }

  it('reaches items, nested objects, then branches and referenced components, each once', () => {
    const doc = { components: { schemas: { Tag: { type: 'string', maxLength: 5 } } } };
    const b = body({
      type: 'object',
      properties: { list: { type: 'array', items: { $ref: '#/components/schemas/Tag' } }, o: { type: 'object', properties: { t: { type: 'string' } } } },
      then: { properties: { u: { type: 'string' } } },
      anyOf: [{ properties: { v: { type: 'string' } } }],
    });
    applyInputTextRules(b, doc, 'test');
    applyInputTextRules(b, doc, 'test');
    expect(doc.components.schemas.Tag).to.deep.equal({ type: 'string', maxLength: 5, pattern: TEXT_PATTERN });
    const s = b.content['application/json'].schema as { properties: { o: { properties: { t: { pattern?: string } } } }; then: { properties: { u: { pattern?: string } } } };
    expect(s.properties.o.properties.t.pattern).to.equal(TEXT_PATTERN);
    expect(s.then.properties.u.pattern).to.equal(TEXT_PATTERN);
  });

  it('refuses a search text with a pattern of its own, and an unanchored pattern admitting anything', () => {
    expect(() => applyInputTextRules(body({ type: 'object', properties: { q: { type: 'string', pattern: '^a$', 'x-query-syntax': true } } }), {}, 'op')).to.throw(/x-query-syntax/);
    expect(() => applyInputTextRules(body({ type: 'object', properties: { q: { type: 'string', pattern: '\\S' } } }), {}, 'op')).to.throw(/\^/);
  });

  it('tells patterns admitting any character from explicit ones', () => {
    for (const p of ['^[^,]*$', '^a.b$', '\\S', '\\W', '\\D', '\\P{L}']) expect(admitsAnyCharacter(p), p).to.equal(true);
    for (const p of ['^[0-9]{9}$', '^a\\.b$', '^[A-Za-z]+$', '^\\d+$']) expect(admitsAnyCharacter(p), p).to.equal(false);
  });

  it('the rule refuses NUL and unpaired surrogates, keeps pairs (u flag, as Ajv)', () => {
    const re = new RegExp(TEXT_PATTERN, 'u');
    expect(['a\u0000', '\ud800', 'a\udc00b'].map((s) => re.test(s))).to.deep.equal([false, false, false]);
    expect(['', 'toiture 😀', 'é'].map((s) => re.test(s))).to.deep.equal([true, true, true]);
  });
});
