// The machine-readable contract documents, served as generated (read once at start). The
// texts for agents (llms.txt, llms-full.txt) are written for any deployment: at serve time
// their `{base_url}` is filled with the public address and their site links made absolute
// (llmstxt.org readers fetch them from anywhere).
import { readFileSync } from 'node:fs';
import type { Middleware } from 'koa';

const GENERATED = new URL('../../generated/', import.meta.url);

/** A text for agents with this deployment's address: `{base_url}` filled, `](/…)` links absolute. */
export function withPublicUrl(text: string, publicUrl: string): string {
  return text.replaceAll('{base_url}', publicUrl).replace(/\]\(\//g, `](${publicUrl}/`);
}

/** One file of generated/: `.json` as JSON as generated, a text for agents with the public address. */
export function contractDocument(file: string, publicUrl: string): Middleware {
  const raw = readFileSync(new URL(file, GENERATED));
  const json = file.endsWith('.json');
  const body = json ? raw : Buffer.from(withPublicUrl(raw.toString('utf8'), publicUrl));
  const type = json ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
  return async (ctx) => {
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = body;
  };
}
