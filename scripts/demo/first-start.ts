// On first start with an empty database, `npm start` writes the small demo data set in the
// real open-data formats and imports it with the real importers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '../../src/platform/db/database.js';
import { importFile } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { DEMO_FILES, writeDemoData } from './index.js';
import { importDce } from '../../src/domains/dce/ingest.js';
import { readManifest } from '../../src/domains/dce/manifest.js';
import { Extractor } from '../../src/platform/extract/extractor.js';
import type { ObjectStore } from '../../src/platform/files/object-store.js';
import { makeRoomForWriters } from '../../src/platform/db/writer-queue.js';

/** The order matters: establishments after their companies, RGE after establishments. */
const ORDER = ['sirene-unites', 'sirene-etablissements', 'rge', 'rne', 'ratios', 'boamp', 'decp', 'bodacc', 'deliberations', 'publications', 'contacts', 'dvf', 'permis'] as const;

/**
 * Imports the small demo set when the database holds no company; `onStart` is called first
 * (the start's output says it, /readyz answers 503 meanwhile). True when it imported.
 */
export async function importDemoDataIfEmpty(db: Database, log: (line: string) => void, store: ObjectStore, onStart?: () => void): Promise<boolean> {
  const [{ n }] = (await db('companies').count<{ n: number | string }[]>('* as n')) as [{ n: number | string }];
  if (Number(n) > 0) return false;
  onStart?.();
  const dir = mkdtempSync(join(tmpdir(), 'demo-'));
  try {
    const written = await writeDemoData({ scale: 'small', outDir: dir, today: new Date().toISOString().slice(0, 10), seed: 1 });
    for (const source of ORDER) {
      // BOAMP and BODACC are written twice (JSON and JSON lines, the same records): one is enough.
      const files = written.files.filter((f) => f.source === source && !((source === 'boamp' || source === 'bodacc') && f.name.endsWith('.jsonl')));
      for (const file of files) {
        const report = await importFile(db, IMPORTERS[source] as never, file.path, { progress: () => ({ update: () => undefined, stop: () => undefined }) });
        log(`Données de démonstration ${source} : ${report.inserted} enregistrements importés${report.skipped ? `, ${report.skipped} écartés` : ''}.`);
      }
    }
    // Consultation files: their pieces' text extracted in the extraction thread.
    const extractor = new Extractor();
    try {
      // The folder's manifest says which notice each file belongs to, as for `npm run import -- dce <folder>`.
      const dce = await readManifest(join(dir, DEMO_FILES.dce));
      for (const file of dce) {
        await importDce({ db, store, extractor, now: () => new Date() }, file.target, file.inputs);
        // Between two files, writers waiting for the lock (an account created meanwhile) take it.
        await makeRoomForWriters(db);
      }
      log(`Données de démonstration dce : ${dce.length} dossiers de consultation importés.`);
    } finally {
      await extractor.close();
    }
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
