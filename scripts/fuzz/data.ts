// The public data a fuzz run searches: the small demo set (2,000 companies, 1,500 notices,
// 3,000 awards) written for a fixed day and seed and imported with the real importers, so
// searches return records and cursors, and the same seed draws the same inputs any day.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/platform/db/database.js';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { writeDemoData } from '../demo/index.js';

const DATA_DAY = '2026-06-15';
/** Establishments after their companies, RGE after establishments. */
const ORDER = ['sirene-unites', 'sirene-etablissements', 'rge', 'boamp', 'decp'] as const;

export async function importFuzzData(db: Database): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fuzz-data-'));
  try {
    const written = await writeDemoData({ scale: 'small', outDir: dir, today: DATA_DAY, seed: 1 });
    for (const source of ORDER) {
      // BOAMP is written twice (JSON and JSON lines, the same records): one is enough.
      for (const file of written.files.filter((f) => f.source === source && !f.name.endsWith('.jsonl'))) {
        await importFile(db, IMPORTERS[source] as never, file.path, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
