// Transform: an operation's own responses plus the twelve error responses every operation
// has, each a reference to its component; the contract writes only the operation's own.
import type { JsonSchema } from '../../src/contract/types.js';

export const ERROR_RESPONSES: Record<string, string> = {
  '400': 'BadRequest',
  '401': 'Unauthenticated',
  '403': 'Forbidden',
  '404': 'NotFound',
  '405': 'MethodNotAllowed',
  '408': 'RequestTimeout',
  '409': 'Conflict',
  '413': 'PayloadTooLarge',
  '415': 'UnsupportedMediaType',
  '429': 'QuotaExceeded',
  '503': 'Unavailable',
  '504': 'Timeout',
};

/** A status the operation writes itself is kept as written: checkContract then judges it. */
export function withErrorResponses(responses: Record<string, JsonSchema> | undefined): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = { ...responses };
  for (const [status, component] of Object.entries(ERROR_RESPONSES)) {
    if (!Object.hasOwn(out, status)) out[status] = { $ref: `#/components/responses/${component}` };
  }
  return out;
}
