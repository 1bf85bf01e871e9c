// The four machine-readable contract documents, served as generated.
import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';

const DOCUMENTS: Record<string, { file: string; type: string }> = {
  '/openapi.json': { file: 'openapi.json', type: 'application/json; charset=utf-8' },
  '/docs/llms.txt': { file: 'llms.txt', type: 'text/plain; charset=utf-8' },
  '/llms-full.txt': { file: 'llms-full.txt', type: 'text/plain; charset=utf-8' },
  '/agents/manifest.json': { file: 'manifest.json', type: 'application/json; charset=utf-8' },
};

export function createDocumentRoutes(): Middleware {
  const dir = new URL('../../generated/', import.meta.url);
  const loaded = new Map(Object.entries(DOCUMENTS).map(([path, d]) => [path, { body: readFileSync(new URL(d.file, dir)), type: d.type }]));
  return async (ctx, next) => {
    const doc = loaded.get(ctx.path);
    if (!doc || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    ctx.type = doc.type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = doc.body;
  };
}
