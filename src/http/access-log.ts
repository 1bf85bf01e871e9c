// One log line per call: address, operation, status, duration, account. Never a token,
// a password or a body. What the line says about the call comes from the transports,
// which note it with `noteCall` where they learn it; nothing else feeds the line.
import type { Context, Middleware } from 'koa';
import type { Logger } from '../log.js';

/** What a transport knows of a call, for its log line; each field as soon as it is known. */
export interface CallNote {
  /** `rest`, an MCP profile, or the path when refused before routing. A request noted without it writes no line. */
  address?: string;
  /** The REST operation or the MCP tool. */
  operation?: string;
  /** The JSON-RPC method of an MCP call that reached the SDK. */
  rpcMethod?: string;
  /** The authenticated account. */
  accountId?: string;
}

const notes = new WeakMap<Context, CallNote>();

/** Adds to the log line of this request; a field noted again replaces the earlier value. */
export function noteCall(ctx: Context, note: CallNote): void {
  const known = notes.get(ctx) ?? {};
  for (const [field, value] of Object.entries(note) as [keyof CallNote, string | undefined][]) {
    if (value !== undefined) known[field] = value;
  }
  notes.set(ctx, known);
}

/** What the transports noted of this request (the metrics read it too). */
export function callNoteOf(ctx: Context): Readonly<CallNote> | undefined {
  return notes.get(ctx);
}

export function createAccessLog(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.res.once('finish', () => {
      const note = notes.get(ctx);
      if (!note?.address && ctx.path !== '/healthz') return;
      logger.info(
        {
          address: note?.address ?? ctx.path,
          method: ctx.method,
          operation: note?.operation ?? null,
          rpc_method: note?.rpcMethod ?? undefined,
          status: ctx.res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          account_id: note?.accountId ?? null,
        },
        'appel',
      );
    });
    await next();
  };
}
