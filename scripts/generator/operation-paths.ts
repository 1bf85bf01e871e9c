// Transform: the contract's `paths`, where each `x-<domain>` entry holds that domain's path
// items keyed by operation name, into OpenAPI paths: each under /api/mcp/v1/{name}.
import type { OpenApiOperation } from './contract-source.js';

export type PathItem = Record<string, OpenApiOperation>;

export const OPERATION_PATH_PREFIX = '/api/mcp/v1/';

/** Order is kept. An entry not under `x-` is already a path and is copied as it is. */
export function operationPaths(source: Record<string, unknown>): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  const origin = new Map<string, string>();
  const put = (path: string, item: unknown, from: string) => {
    const first = origin.get(path);
    if (first !== undefined) throw new Error(`le chemin ${path} est écrit deux fois (${first} et ${from})`);
    origin.set(path, from);
    paths[path] = item as PathItem;
  };
  for (const [key, value] of Object.entries(source)) {
    if (!key.startsWith('x-')) {
      put(key, value, 'paths');
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      throw new Error(`paths.${key} doit être une table d'opérations par nom (le contenu d'un fichier contract/paths/)`);
    for (const [name, item] of Object.entries(value)) put(`${OPERATION_PATH_PREFIX}${name}`, item, key);
  }
  return paths;
}
