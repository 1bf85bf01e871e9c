// Structured logs (pino). Call lines carry operation, address, status, duration and
// account id; never a token, a password, a body or a value a caller sent. Error lines carry
// the error's kind and a bounded message without SQL or quoted values (errorSummary).
import { pino, type Logger } from 'pino';

export type { Logger };

/** Longest string a log field keeps: a failing query's text once made a 0.5 MB call write 2.1 MB of log. */
export const MAX_LOG_FIELD = 500;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length} caractères)` : text);

/** A log record with every string field (one level of nesting too) cut to MAX_LOG_FIELD. */
export function boundedRecord(record: Record<string, unknown>): Record<string, unknown> {
  const bound = (value: unknown, depth: number): unknown => {
    if (typeof value === 'string') return clip(value, MAX_LOG_FIELD);
    if (depth > 0 && value && typeof value === 'object' && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, bound(v, depth - 1)]));
    }
    return value;
  };
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, bound(v, 1)]));
}

/**
 * What an error line may say of an error: its kind, its code, and its message without the
 * statement Knex puts in front of a driver's message (`<sql> - <message>`), without quoted
 * literals (values a caller sent, e.g. PostgreSQL's `invalid input syntax for type uuid: "…"`),
 * cut to 200 characters.
 */
export function errorSummary(err: unknown): { type: string; code?: string; message: string } {
  if (!(err instanceof Error)) return { type: typeof err, message: '(valeur non-Error)' };
  const code = (err as { code?: unknown }).code;
  const driverMessage = err.message.includes(' - ') ? (err.message.split(' - ').pop() as string) : err.message;
  const message = clip(driverMessage.replace(/"[^"]*"|'[^']*'/g, '…'), 200);
  return { type: err.constructor.name, ...(typeof code === 'string' ? { code } : {}), message };
}

/** The service's logger; `destination` for tests (standard output otherwise). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = {
    level,
    // The process id tells the workers of a machine apart (WORKERS ≥ 2).
    base: { service: 'batidata-api', pid: process.pid },
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', 'authorization'], remove: true },
    formatters: { log: boundedRecord },
  };
  return destination ? pino(options, destination) : pino(options);
}
