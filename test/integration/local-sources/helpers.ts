// Shared by the local sources' HTTP tests: JSON lines written to a temporary file and imported by the real importer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMPORTERS } from '../../../src/domains/importers.js';
import { importFile, type ImportReport } from '../../../src/import/run.js';
import type { Database } from '../../../src/platform/db/database.js';

const quiet = { progress: () => ({ update: () => undefined, stop: () => undefined }) };

export async function importLines(db: Database, source: string, lines: (object | string)[]): Promise<ImportReport> {
  const dir = mkdtempSync(join(tmpdir(), `${source}-`));
  try {
    const file = join(dir, `${source}.jsonl`);
    writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
    return await importFile(db, IMPORTERS[source] as never, file, quiet);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Telephone numbers, e-mail addresses and web addresses other than the service's own (as the catalogue test looks for them). */
export function contactDetails(text: string, ownUrl: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/[\w.+-]+@[\w-]+\.[\w.]+/g)) found.push(m[0]);
  for (const m of text.matchAll(/(?:\+33\s?|\b0)[1-9](?:[\s.-]?\d{2}){4}\b/g)) found.push(m[0]);
  for (const m of text.matchAll(/\bhttps?:\/\/[^\s"']+|\bwww\.[^\s"']+/g)) if (!m[0].startsWith(ownUrl)) found.push(m[0]);
  return found;
}
