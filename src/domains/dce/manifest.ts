// The folder forms of `npm run import -- dce`: a folder of pieces given as an input (each
// piece named by its path in the folder, so « Lot 2/CCTP.pdf » keeps its lot), and a folder
// holding a manifest, `dce.json`, that says which notice each consultation file belongs to:
//
//   { "cible": "26-12345", "fichiers": ["RC.pdf", "Lot 1/CCTP.docx"] }     one file
//   { "dossiers": [ { "cible": "26-12345", "fichiers": ["dce-0001.zip"] }, … ] }   several
//
// `cible` is a marche_id, an annonce_id or « - »; `fichiers` are paths inside the folder
// (archives, pieces or folders of pieces); without `fichiers`, one file is every piece of
// the folder. The whole manifest is checked before anything is imported.
import { readdir, readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { DceImportError, parseTarget, type DceInput, type DceTarget } from './ingest.js';

export const MANIFEST_NAME = 'dce.json';
/** A manifest is small: its entries name files, they do not hold them. */
const MAX_MANIFEST_BYTES = 1024 * 1024;
export const MAX_MANIFEST_FILES = 10_000;

export interface ManifestEntry {
  /** As written in the manifest, for the report. */
  given: string;
  target: DceTarget;
  inputs: DceInput[];
}

const isHidden = (name: string): boolean => name.startsWith('.') || name === '__MACOSX' || name === 'Thumbs.db';

/** Every piece under a folder, named by its path from `base` with « / », in name order; hidden files left out. */
export async function piecesOfFolder(folder: string, base: string = folder, skip: ReadonlySet<string> = new Set()): Promise<DceInput[]> {
  const out: DceInput[] = [];
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (isHidden(entry.name)) continue;
    const path = join(folder, entry.name);
    const name = relative(base, path).split(sep).join('/');
    if (skip.has(name)) continue;
    if (entry.isDirectory()) out.push(...(await piecesOfFolder(path, base, skip)));
    else if (entry.isFile()) out.push({ path, name });
  }
  return out;
}

/** The inputs of the command line: a folder stands for its pieces, named from the folder. */
export async function inputsOf(paths: readonly string[]): Promise<DceInput[]> {
  const out: DceInput[] = [];
  for (const path of paths) {
    const info = await stat(path).catch(() => null);
    if (info?.isDirectory()) out.push(...(await piecesOfFolder(path)));
    else out.push({ path, name: path.split(/[\\/]/).pop() ?? path });
  }
  return out;
}

function manifestError(message: string): DceImportError {
  return new DceImportError(`${MANIFEST_NAME} : ${message}`);
}

/** A path of the manifest, inside the folder: never absolute, never climbing out. */
function insideFolder(folder: string, given: unknown, where: string): string {
  if (typeof given !== 'string' || !given.trim() || given.length > 1000 || given.includes('\u0000')) throw manifestError(`${where} : un chemin (texte non vide) est attendu`);
  const clean = normalize(given.replace(/\\/g, '/'));
  if (isAbsolute(clean) || /^[a-z]:/i.test(clean) || clean === '..' || clean.startsWith(`..${sep}`) || clean.startsWith('../'))
    throw manifestError(`${where} : « ${given.slice(0, 200)} » sort du dossier (chemin absolu ou « .. »)`);
  return join(folder, clean);
}

/** Whether a folder holds a manifest. */
export async function hasManifest(folder: string): Promise<boolean> {
  return (await stat(join(folder, MANIFEST_NAME)).catch(() => null))?.isFile() === true;
}

/** Reads and checks a folder's manifest: every target valid, every file present, before anything is imported. */
export async function readManifest(folder: string): Promise<ManifestEntry[]> {
  const file = join(folder, MANIFEST_NAME);
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw manifestError('introuvable dans le dossier');
  if (info.size > MAX_MANIFEST_BYTES) throw manifestError(`plus de ${MAX_MANIFEST_BYTES} octets`);
  let doc: unknown;
  try {
    doc = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw manifestError("ce n'est pas du JSON valide");
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw manifestError('un objet est attendu, avec « cible » ou « dossiers »');
  const root = doc as Record<string, unknown>;
  const single = 'cible' in root;
  if (single === 'dossiers' in root) throw manifestError('il faut « cible » (un dossier) ou « dossiers » (plusieurs), pas les deux ni aucun');
  const raw = single ? [root] : root.dossiers;
  if (!Array.isArray(raw) || raw.length === 0) throw manifestError('« dossiers » doit être une liste non vide');
  if (raw.length > MAX_MANIFEST_FILES) throw manifestError(`plus de ${MAX_MANIFEST_FILES} dossiers`);
  const entries: ManifestEntry[] = [];
  for (const [i, item] of raw.entries()) {
    const where = single ? 'le dossier' : `dossiers[${i}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw manifestError(`${where} : un objet est attendu`);
    const e = item as Record<string, unknown>;
    for (const key of Object.keys(e)) if (key !== 'cible' && key !== 'fichiers' && !(single && key === 'dossiers')) throw manifestError(`${where} : clé inconnue « ${key.slice(0, 50)} » (admises : cible, fichiers)`);
    if (typeof e.cible !== 'string') throw manifestError(`${where} : « cible » (un marche_id, un annonce_id ou « - ») est attendue`);
    let target: DceTarget;
    try {
      target = parseTarget(e.cible);
    } catch (err) {
      throw manifestError(`${where} : ${(err as Error).message}`);
    }
    let inputs: DceInput[];
    if (e.fichiers === undefined) {
      if (!single) throw manifestError(`${where} : « fichiers » est attendu quand le manifeste liste plusieurs dossiers`);
      inputs = await piecesOfFolder(folder, folder, new Set([MANIFEST_NAME]));
    } else {
      if (!Array.isArray(e.fichiers) || e.fichiers.length === 0) throw manifestError(`${where} : « fichiers » doit être une liste non vide`);
      inputs = [];
      for (const [j, given] of e.fichiers.entries()) {
        const path = insideFolder(folder, given, `${where}.fichiers[${j}]`);
        const found = await stat(path).catch(() => null);
        if (!found) throw manifestError(`${where}.fichiers[${j}] : « ${String(given).slice(0, 200)} » introuvable dans le dossier`);
        // A folder of pieces keeps the pieces' paths from it; a file keeps its name.
        inputs.push(...(found.isDirectory() ? await piecesOfFolder(path) : [{ path, name: path.split(/[\\/]/).pop() ?? path }]));
      }
    }
    if (!inputs.length) throw manifestError(`${where} : aucune pièce`);
    entries.push({ given: e.cible, target, inputs });
  }
  return entries;
}
