// GET /metrics (Prometheus text format) and the counting of calls behind it. Served only
// with `Authorization: Bearer $METRICS_TOKEN`; without the variable the address does not
// exist (404). Each call is counted once its answer is written, under the address and
// operation the transports noted (access-log.ts), brought back to fixed sets: an unknown
// path or method name never becomes a label.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { UnauthenticatedError, UnavailableError, errorBody } from '../errors.js';
import { errorSummary, type Logger } from '../log.js';
import type { ProcessMetrics } from '../platform/metrics.js';
import { callNoteOf } from './access-log.js';

/** The addresses as labels: REST, each MCP address by its path, the download links, the record pages. */
const ADDRESS_LABELS: Record<string, string> = {
  rest: 'rest',
  full: '/api/mcp',
  connectors: '/api/mcp/connectors',
  assistant: '/api/mcp/assistant',
  'compte-export': 'compte-export',
  'dce-telechargement': 'dce-telechargement',
  'dossiers-export': 'dossiers-export',
};

/** A JSON-RPC method as a label: the methods the envelope lets through are a fixed list; notifications are one. */
function rpcLabel(method: string): string {
  if (method.startsWith('notifications/')) return 'notifications';
  return /^[a-z]+(\/[a-z]+)?$/i.test(method) && method.length <= 40 ? method : 'autre';
}

export function createCallMetrics(metrics: ProcessMetrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.res.once('finish', () => {
      const note = callNoteOf(ctx);
      if (!note?.address && !note?.operation) return;
      // A record page notes its operation only; a refusal before routing notes a path: « autre ».
      const address = note.address ? (ADDRESS_LABELS[note.address] ?? 'autre') : 'page';
      const operation = note.operation ?? (note.rpcMethod ? rpcLabel(note.rpcMethod) : 'aucune');
      metrics.observeCall({ address, operation, status: ctx.res.statusCode, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    });
    await next();
  };
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The route: the token compared in constant time; the text rendered by `render` (this process, or the machine's workers). */
export function metricsRoute(token: string, render: () => Promise<string>, logger: Logger): Middleware {
  const expected = digest(`Bearer ${token}`);
  return async (ctx) => {
    if (!timingSafeEqual(digest(ctx.get('authorization')), expected)) {
      ctx.status = 401;
      ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
      ctx.body = errorBody(new UnauthenticatedError('Jeton des métriques absent ou invalide : en-tête Authorization: Bearer <METRICS_TOKEN> attendu.'));
      return;
    }
    try {
      ctx.body = await render();
      ctx.type = 'text/plain; version=0.0.4; charset=utf-8';
    } catch (err) {
      logger.error({ err: errorSummary(err) }, 'métriques : rendu impossible');
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = errorBody(new UnavailableError('Métriques momentanément indisponibles : réessayer dans quelques secondes.'));
    }
  };
}
