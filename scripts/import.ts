// npm run import -- <source> <file…>   (and: npm run import -- dce <notice | -> <files…>)
// Imports published open-data files into the database of DATABASE_URL (the running
// server's): one of the sources of src/domains/importers.ts. Plain, .gz or .zip.
// Exit code 1 when a file could not be imported, could not be read to its end, or gave no
// record at all (a file in another layout must not look like a success).
import { IMPORTERS } from '../src/domains/importers.js';
import { ImportInputError } from '../src/import/input.js';
import { importFailure, importFile, type ImportReport } from '../src/import/run.js';
import { fail, parseCommandLine, withDatabase } from './lib/cli.js';

const { positionals } = parseCommandLine({
  command: 'npm run import',
  options: {},
  positionals: true,
  help: `Importe des fichiers publiés (données ouvertes) dans la base de DATABASE_URL, celle du service
(sqlite:./data/service.sqlite par défaut) ; le service peut tourner pendant l'import.

  npm run import -- SOURCE FICHIER…
  npm run import -- dce AVIS|- ARCHIVE.zip|FICHIERS|DOSSIERS…   dossier de consultation d'un avis (- : sans avis)
  npm run import -- dce DOSSIER                                 dossiers listés par le manifeste DOSSIER/dce.json

Sources : ${Object.keys(IMPORTERS).join(', ')}.
Fichiers bruts, .gz ou .zip. Code de sortie 1 quand un fichier n'a pas pu être importé ou lu jusqu'au bout,
ou n'a donné aucun enregistrement ; 2 pour des arguments invalides.
Entre deux lots, l'import laisse passer les commandes qui attendent d'écrire (account:create…).`,
});
const [source, ...files] = positionals;
// Consultation files have a command of their own: a notice, then its archives or files.
if (source === 'dce') process.exit(await (await import('./lib/dce-import.js')).runDceImport(files));
const importer = source ? IMPORTERS[source] : undefined;
if (!importer) fail(`source inconnue : ${source ?? '(aucune)'}. Sources : ${Object.keys(IMPORTERS).join(', ')}, dce.`);
if (!files.length) fail('aucun fichier à importer.');
const { unit, layouts } = importer.input;

function summary(r: ImportReport): string {
  const lines = [
    `${r.file} : ${r.read} lus, ${r.inserted} ajoutés, ${r.updated} mis à jour, ${r.skipped} écartés en ${r.seconds.toFixed(1)} s (${Math.round(r.read / Math.max(r.seconds, 0.001))} lignes/s).`,
  ];
  if (r.nulls) lines.push(`  ${r.nulls} valeur${r.nulls > 1 ? 's' : ''} NaN ou Infinity (hors JSON) lue${r.nulls > 1 ? 's' : ''} comme null.`);
  // Each note of the importer on records kept, with how many times it was made.
  for (const [note, n] of Object.entries(r.notes)) lines.push(`  ${note} : ${n}.`);
  for (const p of r.problems.slice(0, 20)) lines.push(`  écarté, ${unit} ${p.position} : ${p.reason}`);
  if (r.skipped > 20) lines.push(`  … et ${r.skipped - 20} autres écartés.`);
  return lines.join('\n');
}

let failed = false;
// The long writer others wait for: not in the writers' line itself.
await withDatabase(async (db) => {
  for (const file of files) {
    try {
      const report = await importFile(db, importer, file);
      console.log(summary(report));
      const failure = importFailure(report, layouts);
      if (failure) {
        failed = true;
        console.error(`Erreur : ${failure}`);
      }
    } catch (err) {
      failed = true;
      // A file problem is said as it is; a database failure by its code, never with SQL.
      if (err instanceof ImportInputError) console.error(`Erreur : ${err.message}`);
      else console.error(`Erreur de la base de données pendant l'import de ${file} (${(err as { code?: string }).code ?? 'inconnue'}) : les lots déjà écrits sont gardés, relancer l'import reprend sans doublon.`);
    }
  }
}, { queue: false });
if (failed) process.exit(1);
