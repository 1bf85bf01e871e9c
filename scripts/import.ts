// npm run import -- <source> <file…>
// Imports published open-data files into the database of DATABASE_URL (the running
// server's): sirene-unites, sirene-etablissements, rge, boamp, decp. Plain, .gz or .zip.
import { IMPORTERS } from '../src/domains/importers.js';
import { ImportInputError } from '../src/import/input.js';
import { importFile, type ImportReport } from '../src/import/run.js';
import { fail, withDatabase } from './lib/cli.js';

const [source, ...files] = process.argv.slice(2).filter((a) => a !== '--');
const importer = source ? IMPORTERS[source] : undefined;
if (!importer) fail(`source inconnue : ${source ?? '(aucune)'}. Sources : ${Object.keys(IMPORTERS).join(', ')}.`);
if (!files.length) fail('aucun fichier à importer.');

function summary(r: ImportReport): string {
  const lines = [
    `${r.file} : ${r.read} lus, ${r.inserted} ajoutés, ${r.updated} mis à jour, ${r.skipped} écartés en ${r.seconds.toFixed(1)} s (${Math.round(r.read / Math.max(r.seconds, 0.001))} lignes/s).`,
  ];
  for (const p of r.problems.slice(0, 20)) lines.push(`  écarté, ${importer?.name === 'boamp' || importer?.name === 'decp' ? 'enregistrement' : 'ligne'} ${p.position} : ${p.reason}`);
  if (r.skipped > 20) lines.push(`  … et ${r.skipped - 20} autres écartés.`);
  return lines.join('\n');
}

let failed = false;
await withDatabase(async (db) => {
  for (const file of files) {
    try {
      console.log(summary(await importFile(db, importer, file)));
    } catch (err) {
      failed = true;
      // A file problem is said as it is; a database failure by its code, never with SQL.
      if (err instanceof ImportInputError) console.error(`Erreur : ${err.message}`);
      else console.error(`Erreur de la base de données pendant l'import de ${file} (${(err as { code?: string }).code ?? 'inconnue'}) : les lots déjà écrits sont gardés, relancer l'import reprend sans doublon.`);
    }
  }
});
if (failed) process.exit(1);
