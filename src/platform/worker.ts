// A worker thread running one of the service's modules, under the TypeScript loader this
// process runs under when it is tsx (a worker does not inherit the loader: it is registered
// in the thread first), or as plain JavaScript once built.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

const BOOT = `(async () => {
  const { workerData } = await import('node:worker_threads');
  if (workerData.tsx) (await import(workerData.tsx)).register();
  await import(workerData.entry);
})();`;

/** The ESM entry of tsx's API (its `register`), by its package's exports map. */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(manifest), (exports['./esm/api'] as { import: { default: string } }).import.default)).href;
}

/** Starts the module at `entry` (a file URL, `.ts` under tsx) in a worker thread, with `data` as its workerData. */
export function startModuleWorker(entry: string, data: Record<string, unknown>, options: { maxOldGenerationSizeMb?: number } = {}): Worker {
  const tsx = entry.endsWith('.ts') ? tsxEsmApi() : null;
  return new Worker(BOOT, {
    eval: true,
    workerData: { ...data, entry, tsx },
    ...(options.maxOldGenerationSizeMb ? { resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb } } : {}),
  });
}
