// npm run import -- dce <annonce_id | marche_id | -> <zip or files…>: attaches a consultation
// file to a notice (or to none, with `-`), the text of its pieces extracted in a worker
// thread, the pieces kept in the store of DCE_STORE_URL (or the data folder). Exit codes:
// 0 done (added, replaced or unchanged), 1 refused or failed, 2 bad arguments.
import { loadConfig } from '../../src/config.js';
import { DceImportError, importDce, parseTarget } from '../../src/domains/dce/ingest.js';
import { Extractor } from '../../src/platform/extract/extractor.js';
import { openObjectStore } from '../../src/platform/files/object-store.js';
import { fail, withDatabase } from './cli.js';

const OUTCOMES = { added: 'ajouté', replaced: 'remplacé (nouvelle version)', unchanged: 'inchangé (même contenu)' } as const;

export async function runDceImport(args: string[]): Promise<number> {
  const [given, ...files] = args;
  if (!given || !files.length) fail('usage : npm run import -- dce <annonce_id | marche_id | -> <archive.zip ou fichiers…>');
  let target;
  try {
    target = parseTarget(given);
  } catch (err) {
    fail((err as Error).message);
  }
  const config = loadConfig();
  const store = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  const extractor = new Extractor();
  try {
    return await withDatabase(async (db) => {
      try {
        const started = performance.now();
        const report = await importDce({ db, store, extractor, now: () => new Date() }, target, files);
        const seconds = (performance.now() - started) / 1000;
        console.log(
          `Dossier de consultation ${report.id} ${OUTCOMES[report.outcome]}, version ${report.version}${report.marcheId ? `, avis ${report.marcheId}` : ', sans avis rattaché'} : ${report.pieces.length} pièces, ${report.bytes} octets, en ${seconds.toFixed(1)} s (pièces gardées dans ${store.description}).`,
        );
        for (const p of report.pieces)
          console.log(`  ${p.filename} : ${p.docType}${p.lot !== null ? `, lot ${p.lot}` : ''}, ${p.readingPages} page${p.readingPages > 1 ? 's' : ''} de lecture${p.scannedPages ? `, ${p.scannedPages} page${p.scannedPages > 1 ? 's' : ''} numérisée${p.scannedPages > 1 ? 's' : ''} sans texte` : ''}`);
        return 0;
      } catch (err) {
        if (err instanceof DceImportError) {
          console.error(`Erreur : ${err.message} ; rien n'a été importé.`);
          return 1;
        }
        throw err;
      }
    });
  } finally {
    await extractor.close();
  }
}
