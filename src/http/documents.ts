// The machine-readable contract documents, served as generated (read once at start).
import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';

const GENERATED = new URL('../../generated/', import.meta.url);

/** One file of generated/: `.json` as JSON, anything else as plain text. */
export function contractDocument(file: string): Middleware {
  const body = readFileSync(new URL(file, GENERATED));
  const type = file.endsWith('.json') ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
  return async (ctx) => {
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  };
}
