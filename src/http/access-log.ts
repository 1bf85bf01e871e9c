// One log line per call: address, operation, status, duration, account. Never a token,
// a password or a body.
import type { Middleware } from 'koa';
import type { Logger } from '../log.js';

export function createAccessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.res.once('finish', () => {
      if (!ctx.state.address && ctx.path !== '/healthz') return;
      logger.info(
        {
          address: ctx.state.address ?? ctx.path,
          method: ctx.method,
          operation: ctx.state.operation ?? null,
          rpc_method: ctx.state.rpcMethod ?? undefined,
          status: ctx.res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          account_id: ctx.state.caller?.accountId ?? null,
        },
        'appel',
      );
    });
    await next();
  };
}
