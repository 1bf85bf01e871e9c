// A migrated test database holding the small demo set's files of some sources, imported by the real importers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { writeDemoData, type DemoDataFile } from '../../scripts/demo/index.js';
import { openMigratedDatabase, type MigratedDatabase } from './service.js';

const silent = () => ({ update: () => undefined, stop: () => undefined });

/**
 * The small demo set (seed 1, `today`) written for `sources` and imported in that order (a
 * source written twice, as JSON and JSON lines, is imported from its JSON file); `close`
 * removes the database and the files.
 */
export async function demoDatabase(sources: readonly DemoDataFile['source'][], today: string): Promise<MigratedDatabase> {
  const database = await openMigratedDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'demo-database-'));
  try {
    const demo = await writeDemoData({ scale: 'small', sources: [...sources], outDir: dir, seed: 1, today });
    for (const source of sources)
      for (const file of demo.files.filter((f) => f.source === source && !f.name.endsWith('.jsonl'))) await importFile(database.db, IMPORTERS[source] as never, file.path, { progress: silent });
  } catch (err) {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    ...database,
    close: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
