// Structured logs (pino). Call lines carry operation, address, status, duration and
// account id; never a token, a password or a body.
import { pino, type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'batidata-api' },
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', 'authorization'], remove: true },
  });
}
