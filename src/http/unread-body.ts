// An answer sent before the request's body was read whole (a 401, a 413, a 408, a refusal of
// the envelope) closes the connection: otherwise the client could go on dribbling the rest
// of a body nobody will read, and hold the connection long after its answer.
import type { Middleware } from 'koa';

export function closeAfterUnreadBody(): Middleware {
  return async (ctx, next) => {
    await next();
    if (!ctx.req.complete && ctx.respond !== false) ctx.set('Connection', 'close');
  };
}
