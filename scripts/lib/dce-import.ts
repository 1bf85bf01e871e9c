// npm run import -- dce <annonce_id | marche_id | -> <zip, files or folders…>: attaches a
// consultation file to a notice (or to none, with `-`); npm run import -- dce <folder>: the
// consultation files its manifest (dce.json) lists. The text of the pieces is extracted in a
// worker thread, the pieces kept in the store of DCE_STORE_URL (or the data folder). Exit
// codes: 0 done (added, replaced or unchanged), 1 refused or failed (a manifest's other
// files are still imported, each whole or not at all), 2 bad arguments.
import { stat } from 'node:fs/promises';
import { loadConfig } from '../../src/config.js';
import { DceImportError, importDce, parseTarget, type DceImportReport, type DceInput, type DceTarget } from '../../src/domains/dce/ingest.js';
import { hasManifest, inputsOf, MANIFEST_NAME, readManifest } from '../../src/domains/dce/manifest.js';
import { Extractor } from '../../src/platform/extract/extractor.js';
import { openObjectStore, type ObjectStore } from '../../src/platform/files/object-store.js';
import type { Database } from '../../src/platform/db/database.js';
import { fail, withDatabase } from './cli.js';

const OUTCOMES = { added: 'ajouté', replaced: 'remplacé (nouvelle version)', unchanged: 'inchangé (même contenu)' } as const;
const USAGE = `usage : npm run import -- dce <annonce_id | marche_id | -> <archive.zip, fichiers ou dossiers…>, ou npm run import -- dce <dossier contenant ${MANIFEST_NAME}>`;

function printReport(report: DceImportReport, seconds: number, store: ObjectStore): void {
  console.log(
    `Dossier de consultation ${report.id} ${OUTCOMES[report.outcome]}, version ${report.version}${report.marcheId ? `, avis ${report.marcheId}` : ', sans avis rattaché'} : ${report.pieces.length} pièces, ${report.bytes} octets, en ${seconds.toFixed(1)} s (pièces gardées dans ${store.description}).`,
  );
  if (report.contactDetailsMasked)
    console.log(`  ${report.contactDetailsMasked} coordonnée${report.contactDetailsMasked > 1 ? 's' : ''} (téléphone, courriel ou adresse web) masquée${report.contactDetailsMasked > 1 ? 's' : ''} dans le texte (les pièces restent telles que publiées).`);
  for (const p of report.pieces)
    console.log(
      `  ${p.filename} : ${p.docType}${p.lot !== null ? `, lot ${p.lot}` : ''}, ${p.readingPages} page${p.readingPages > 1 ? 's' : ''} de lecture${p.scannedPages ? `, ${p.scannedPages} page${p.scannedPages > 1 ? 's' : ''} numérisée${p.scannedPages > 1 ? 's' : ''} sans texte` : ''}`,
    );
}

export async function runDceImport(args: string[]): Promise<number> {
  const [first, ...rest] = args;
  if (!first) fail(USAGE);
  // One folder with a manifest: its consultation files; else a target and its inputs.
  const manifestForm = rest.length === 0 && (await stat(first).catch(() => null))?.isDirectory() === true && (await hasManifest(first));
  if (!manifestForm && !rest.length) fail(USAGE);
  let jobs: { given: string; target: DceTarget; inputs: DceInput[] }[];
  try {
    jobs = manifestForm ? await readManifest(first) : [{ given: first, target: parseTarget(first), inputs: await inputsOf(rest) }];
  } catch (err) {
    if (err instanceof DceImportError) {
      if (manifestForm) {
        console.error(`Erreur : ${err.message} ; rien n'a été importé.`);
        return 1;
      }
      fail(err.message);
    }
    throw err;
  }
  const config = loadConfig();
  const store = openObjectStore(config.dceStoreUrl, config.dceStoreDir);
  const extractor = new Extractor();
  try {
    return await withDatabase(async (db: Database) => {
      const started = performance.now();
      const counts = { added: 0, replaced: 0, unchanged: 0, refused: 0 };
      for (const job of jobs) {
        const at = performance.now();
        try {
          const report = await importDce({ db, store, extractor, now: () => new Date() }, job.target, job.inputs);
          counts[report.outcome] += 1;
          printReport(report, (performance.now() - at) / 1000, store);
        } catch (err) {
          if (!(err instanceof DceImportError)) throw err;
          counts.refused += 1;
          console.error(`Erreur${jobs.length > 1 ? ` (cible ${job.given.slice(0, 100)})` : ''} : ${err.message} ; rien n'a été importé${jobs.length > 1 ? ' pour ce dossier' : ''}.`);
        }
      }
      if (jobs.length > 1)
        console.log(
          `${jobs.length} dossiers en ${((performance.now() - started) / 1000).toFixed(1)} s : ${counts.added} ajoutés, ${counts.replaced} remplacés, ${counts.unchanged} inchangés, ${counts.refused} refusés.`,
        );
      return counts.refused ? 1 : 0;
    }, { queue: false });
  } finally {
    await extractor.close();
  }
}
