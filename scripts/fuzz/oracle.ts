// What each transport must answer to the bytes it was sent, decided from the contract
// alone: the declared type, the size, the bytes (UTF-8, JSON, an object), then the
// operation's request schema (Ajv 2020, the contract's dialect). A schema-valid input may
// still be refused for its meaning (a query with nothing to search, an unknown id): it
// must then be an ordinary refusal, never a 5xx.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { FuzzContract, FuzzOperation } from './contract.js';
import { BODY_LIMIT_BYTES, type FuzzCase } from './generate.js';

// ajv-formats is CommonJS; its plugin is both module.exports and module.exports.default.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv2020) => void }).default;

export type Expectation =
  /** GET me: arguments are not read, the answer is the caller's status. */
  | { kind: 'ok' }
  | { kind: 'unsupported-media' }
  | { kind: 'too-large' }
  | { kind: 'invalid-json' }
  | { kind: 'not-object' }
  /** Refused, whatever the code among the body and argument ones (bytes that are not UTF-8, numbers beyond doubles). */
  | { kind: 'refused'; why: string }
  | { kind: 'invalid-arguments'; why: string; mentions?: string }
  | { kind: 'any' };

export class Oracle {
  private readonly validators = new Map<string, ValidateFunction>();
  readonly errorBody: ValidateFunction;

  constructor(private readonly contract: FuzzContract) {
    const ajv = new Ajv2020({ allErrors: false, strict: false });
    addFormats(ajv);
    for (const op of contract.operations) this.validators.set(op.name, ajv.compile(op.schema as object));
    this.errorBody = ajv.compile(contract.errorBody as object);
  }

  rest(c: FuzzCase): Expectation {
    if (c.rest.method === 'GET') return { kind: 'ok' };
    const read = readBody(c.rest.contentType, c.rest.body ?? Buffer.alloc(0));
    if ('kind' in read) return read;
    return this.arguments(c.operation, read.value);
  }

  mcp(c: FuzzCase): Expectation {
    const read = readBody(c.mcp.contentType, c.mcp.body);
    if ('kind' in read) return read;
    const args = ((read.value as { params?: { arguments?: unknown } }).params ?? {}).arguments;
    const dispatch = c.operation.tool.dispatch;
    if (!dispatch || !isPlainObject(args)) return this.arguments(c.operation, args);
    // The tool's choosing argument names the operation; the others go to that operation.
    const { argument, operations } = dispatch;
    const choice = Object.hasOwn(args, argument) ? args[argument] : undefined;
    const mentions = `« ${argument} »`;
    if (choice === undefined) return { kind: 'invalid-arguments', why: `${argument} absent`, mentions };
    if (typeof choice !== 'string' || !Object.hasOwn(operations, choice)) return { kind: 'invalid-arguments', why: `${argument} inconnu`, mentions };
    const target = this.contract.operations.find((o) => o.name === operations[choice]) as FuzzOperation;
    const rest: Record<string, unknown> = {};
    for (const key of Object.keys(args)) if (key !== argument) Object.defineProperty(rest, key, { value: args[key], enumerable: true, writable: true, configurable: true });
    return this.arguments(target, rest);
  }

  private arguments(op: FuzzOperation, args: unknown): Expectation {
    if (!isPlainObject(args)) return { kind: 'not-object' };
    if (hasNonFiniteNumber(args)) return { kind: 'refused', why: 'nombre hors des doubles (infini)' };
    const validate = this.validators.get(op.name) as ValidateFunction;
    if (!validate(args)) {
      const e = validate.errors?.[0];
      return { kind: 'invalid-arguments', why: e ? `${e.instancePath || '/'} ${e.keyword}` : 'schéma' };
    }
    return { kind: 'any' };
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Declared JSON as the contract's 415 response says: `application/json`, without charset or
 * with `charset=utf-8` (other parameters aside).
 */
export function declaredJson(contentType: string | null): boolean {
  if (!contentType) return false;
  const [type, ...parameters] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const [name, ...value] = parameter.split('=');
    return name?.trim().toLowerCase() !== 'charset' || value.join('=').trim().replace(/^"(.*)"$/, '$1').toLowerCase() === 'utf-8';
  });
}

function readBody(contentType: string | null, body: Buffer): Expectation | { value: unknown } {
  if (!declaredJson(contentType)) return { kind: 'unsupported-media' };
  if (body.length > BODY_LIMIT_BYTES) return { kind: 'too-large' };
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
  } catch {
    return { kind: 'refused', why: 'octets hors UTF-8' };
  }
  if (!text.trim()) return { kind: 'invalid-json' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'invalid-json' };
  }
}

/** Iterative: the arguments may be nested deeper than the stack. */
export function hasNonFiniteNumber(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number' && !Number.isFinite(v)) return true;
    if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (v !== null && typeof v === 'object') for (const key of Object.keys(v)) stack.push((v as Record<string, unknown>)[key]);
  }
  return false;
}
