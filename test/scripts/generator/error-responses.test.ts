// withErrorResponses gives every operation the twelve error responses, each a reference to its component, after what the operation writes itself, which it keeps as written.
import { expect } from 'chai';
import { ERROR_RESPONSES, withErrorResponses } from '../../../scripts/generator/error-responses.js';
import type { JsonSchema } from '../../../src/contract/types.js';

interface Case {
  name: string;
  given: Record<string, JsonSchema> | undefined;
  /** Compared with its key order: generated/openapi.json is written in that order. */
  want: Record<string, JsonSchema>;
}

const ref = (component: string) => ({ $ref: `#/components/responses/${component}` });
const ok = { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } };
const TWELVE = {
  '400': ref('BadRequest'),
  '401': ref('Unauthenticated'),
  '403': ref('Forbidden'),
  '404': ref('NotFound'),
  '405': ref('MethodNotAllowed'),
  '408': ref('RequestTimeout'),
  '409': ref('Conflict'),
  '413': ref('PayloadTooLarge'),
  '415': ref('UnsupportedMediaType'),
  '429': ref('QuotaExceeded'),
  '503': ref('Unavailable'),
  '504': ref('Timeout'),
};

const cases: Case[] = [
  { name: 'a 200 alone gets the twelve, after it', given: { '200': ok }, want: { '200': ok, ...TWELVE } },
  { name: 'no responses at all: the twelve alone', given: undefined, want: TWELVE },
  { name: 'an empty table: the twelve alone', given: {}, want: TWELVE },
  {
    name: 'a response of its own with another status is kept, statuses in ascending order',
    given: { '200': ok, '202': { description: 'Accepté.' } },
    want: { '200': ok, '202': { description: 'Accepté.' }, ...TWELVE },
  },
  {
    name: 'a common status written by the operation is kept as written (checkContract judges it)',
    given: { '200': ok, '404': { description: 'Pas de note.' } },
    want: { '200': ok, ...TWELVE, '404': { description: 'Pas de note.' } },
  },
  {
    name: 'a default response stays after the numbered ones',
    given: { '200': ok, default: { description: 'Autre.' } },
    want: { '200': ok, ...TWELVE, default: { description: 'Autre.' } },
  },
];

describe('withErrorResponses', () => {
  it('covers twelve statuses', () => expect(Object.keys(ERROR_RESPONSES)).to.have.length(12));
  for (const c of cases) {
    it(c.name, () => {
      const given = c.given && Object.freeze({ ...c.given });
      expect(JSON.stringify(withErrorResponses(given))).to.equal(JSON.stringify(c.want));
    });
  }
});
