// GET /healthz: 200 when the database answers, 503 otherwise.
import type { Middleware } from 'koa';
import type { Database } from '../platform/db/database.js';

export function healthCheck(db: Database): Middleware {
  return async (ctx) => {
    try {
      await Promise.race([db.raw('select 1'), new Promise((_, reject) => setTimeout(() => reject(new Error('délai')), 2000).unref())]);
      ctx.body = { status: 'ok', database: 'ok' };
    } catch {
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'indisponible', database: 'injoignable' };
    }
  };
}
