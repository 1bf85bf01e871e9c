// Transform: the contract's files into one document. A `$ref` that names a file
// (`./paths/alerts.yaml`, optionally `#/a/pointer` into it) is replaced by what it names,
// the file read relative to the one holding the reference; a `#/…` reference is left as it
// is, since every contract file is written in the terms of the joined document.
import { posix } from 'node:path';
import { parse } from 'yaml';
import { resolvePointer } from './deref-schema.js';

export interface ContractFile {
  /** Relative to the contract folder, with `/`. */
  path: string;
  text: string;
}

export interface JoinedContract {
  document: unknown;
  /** Every file read, once each, in the order first reached (the entry first). */
  files: ContractFile[];
}

export async function joinFiles(entry: string, read: (path: string) => Promise<string>): Promise<JoinedContract> {
  const files: ContractFile[] = [];
  const parsed = new Map<string, unknown>();

  async function load(path: string, from: string | null): Promise<unknown> {
    if (parsed.has(path)) return parsed.get(path);
    let text: string;
    try {
      text = await read(path);
    } catch (err) {
      throw new Error(from ? `${from} : fichier ${path} introuvable` : `fichier ${path} introuvable`, { cause: err });
    }
    let value: unknown;
    try {
      value = parse(text);
    } catch (err) {
      throw new Error(`${path} : YAML illisible : ${(err as Error).message}`, { cause: err });
    }
    files.push({ path, text });
    parsed.set(path, value);
    return value;
  }

  // `chain` is the files being joined, to refuse a file that (indirectly) includes itself.
  async function join(node: unknown, file: string, chain: string[]): Promise<unknown> {
    if (Array.isArray(node)) {
      const out: unknown[] = [];
      for (const item of node) out.push(await join(item, file, chain));
      return out;
    }
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Record<string, unknown>;
    const ref = obj.$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      const [target = '', fragment = ''] = ref.split('#', 2);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('/'))
        throw new Error(`${file} : référence ${ref} hors du contrat (seul un chemin relatif est admis)`);
      if (Object.keys(obj).length > 1) throw new Error(`${file} : la référence ${ref} ne porte pas d'autres clés`);
      const path = posix.normalize(posix.join(posix.dirname(file), target));
      if (path.startsWith('../')) throw new Error(`${file} : référence ${ref} hors du dossier du contrat`);
      if (chain.includes(path)) throw new Error(`référence circulaire : ${[...chain, path].join(' → ')}`);
      let value = await load(path, file);
      if (fragment) {
        try {
          value = resolvePointer(value, `#${fragment}`);
        } catch (err) {
          throw new Error(`${file} : référence ${ref} introuvable`, { cause: err });
        }
      }
      return join(value, path, [...chain, path]);
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(obj)) out[key] = await join(value, file, chain);
    return out;
  }

  const document = await join(await load(entry, null), entry, [entry]);
  return { document, files };
}
