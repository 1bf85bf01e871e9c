// The 35 s limit of a call, over the whole request: authentication and quota admission
// included, not only the operation (a frozen database used to hold a call 45 s, then answer
// 200). Past it the caller gets `504 timeout` at once (MCP: JSON-RPC -32603), whatever the
// work still waiting does; what it would write later is dropped (the answer is gone). The
// time the client takes to send its body is not the service's: it has its own limit (408),
// and the clock stops while the body is read (`whileReadingBody`).
import type { Context, Middleware } from 'koa';
import { TimeoutError, errorBody } from '../errors.js';

/**
 * A call's clock: one timer for the whole call (a call is ~50 µs of CPU: re-arming a timer
 * around every body read cost a measurable part of it). Time spent reading the body is
 * credited when the timer fires, which then waits that much longer.
 */
class CallClock {
  private timer: NodeJS.Timeout;
  private pausedAt = 0;
  private credit = 0;
  readonly expired: Promise<'expired'>;
  private fire!: () => void;

  constructor(limitMs: number) {
    this.expired = new Promise((resolve) => (this.fire = () => resolve('expired')));
    this.timer = setTimeout(() => this.due(), limitMs).unref();
  }

  private due(): void {
    const owed = this.credit + (this.pausedAt ? Date.now() - this.pausedAt : 0);
    if (owed <= 0) return this.fire();
    this.credit = 0;
    if (this.pausedAt) this.pausedAt = Date.now();
    this.timer = setTimeout(() => this.due(), owed).unref();
  }

  pause(): void {
    this.pausedAt = Date.now();
  }

  resume(): void {
    if (!this.pausedAt) return;
    this.credit += Date.now() - this.pausedAt;
    this.pausedAt = 0;
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}

const clocks = new WeakMap<Context, CallClock>();

/** Reads the request's body with the call's clock stopped (the body limit applies instead). */
export async function whileReadingBody<T>(ctx: Context, read: () => Promise<T>): Promise<T> {
  const clock = clocks.get(ctx);
  clock?.pause();
  try {
    return await read();
  } finally {
    clock?.resume();
  }
}

/** Bounds the calls of the API (`/api/mcp…`); REST's under `restPrefix` get the REST error body. */
export function callDeadline(limitMs: number, restPrefix: string): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== '/api/mcp' && !ctx.path.startsWith('/api/mcp/')) return next();
    const clock = new CallClock(limitMs);
    clocks.set(ctx, clock);
    const work = next();
    // A failure after the deadline has nobody to answer: it is not an unhandled rejection.
    work.catch(() => undefined);
    try {
      if ((await Promise.race([work, clock.expired])) !== 'expired') return;
    } finally {
      clock.stop();
    }
    const err = new TimeoutError(Math.round(limitMs / 1000));
    ctx.set('Connection', 'close');
    if (ctx.path.startsWith(restPrefix) || `${ctx.path}/` === restPrefix) {
      ctx.status = err.status;
      ctx.body = errorBody(err);
      return;
    }
    // MCP: the message's id may not even have been read; JSON-RPC answers null then.
    ctx.status = err.mcp.kind === 'protocol' ? err.mcp.httpStatus : 200;
    ctx.body = { jsonrpc: '2.0', id: null, error: { code: err.mcp.kind === 'protocol' ? err.mcp.code : -32603, message: err.message } };
  };
}
