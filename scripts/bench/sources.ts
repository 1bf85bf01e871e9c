// The sources of issue 13 on the large demo set: their import rates (DVF's against its
// target), then the latency of a two-word search in each through the HTTP API of the service
// (DVF has no words: a search by department and kind of premises stands for it), each p99
// next to the target. Called by large.ts with the service it started on the imported set.
import { join } from 'node:path';
import type autocannon from 'autocannon';
import type { Database } from '../../src/platform/db/database.js';
import { importFile, type ImportReport } from '../../src/import/run.js';
import { IMPORTERS } from '../../src/domains/importers.js';
import { DEMO_FILES } from '../demo/index.js';
import { formatInt, measure, type Figures } from './measure.js';

export const SOURCE_TARGETS = { dvfRowsPerSecond: 50_000, searchP99Ms: 50 } as const;

/** The files of each new source, in import order (the rate of DVF is the target). */
export const SOURCE_IMPORTS: readonly (readonly [string, string])[] = [
  ['bodacc', DEMO_FILES.bodaccJson],
  ['deliberations', DEMO_FILES.deliberations],
  ['publications', DEMO_FILES.publications],
  ['contacts', DEMO_FILES.contacts],
  ['dvf', DEMO_FILES.dvf],
  ['permis', DEMO_FILES.permisLogements],
  ['permis', DEMO_FILES.permisLocaux],
  ['permis', DEMO_FILES.permisDemolir],
  ['permis', DEMO_FILES.permisAmenager],
];

/** Realistic two-word queries of each source, taken in turn (words of the demo texts, broad and precise). */
export const SOURCE_SEARCHES: readonly { operation: string; bodies: readonly Record<string, unknown>[] }[] = [
  { operation: 'bodacc.search', bodies: [{ query: 'liquidation judiciaire' }, { query: 'travaux couverture' }, { query: 'redressement judiciaire' }, { query: 'peinture vitrerie' }] },
  { operation: 'deliberations.search', bodies: [{ query: 'toiture ecole' }, { query: 'voirie chaussee' }, { query: 'marche travaux' }, { query: 'salle polyvalente' }] },
  { operation: 'publications.search', bodies: [{ query: 'travaux ecole' }, { query: 'chantier toiture' }, { query: 'renovation energetique' }, { query: 'voirie travaux' }] },
  { operation: 'contacts.search', bodies: [{ query: 'services techniques' }, { query: 'directeur travaux' }, { query: 'charge operations' }, { query: 'responsable marches' }] },
  { operation: 'permis.search', bodies: [{ query: 'demolition brest' }, { query: 'construction quimper' }, { query: 'amenagement rennes' }, { query: 'travaux lorient' }] },
  { operation: 'ventes.search', bodies: [{ departements: ['29'], type_local: 'Maison' }, { departements: ['35'], type_local: 'Appartement' }, { region: '53', type_local: 'Maison', prix_min: 100000, prix_max: 300000 }, { departements: ['56'] }] },
];

export function importLine(source: string, r: ImportReport): string {
  const rate = r.read / Math.max(r.seconds, 0.001);
  return `  ${source.padEnd(22)} ${formatInt(r.read).padStart(10)} enregistrements en ${r.seconds.toFixed(1).padStart(5)} s : ${formatInt(rate).padStart(7)} /s (${formatInt(r.inserted)} ajoutés, ${formatInt(r.skipped)} écartés)`;
}

const quiet = () => ({ update: () => undefined, stop: () => undefined });

/**
 * Imports the new sources into `db`; DVF's rate counted in file lines (the target's unit:
 * the importer reads mutations, several lines each), from the file's line count.
 */
export async function importSources(db: Database, dataDir: string, lineCount: (path: string) => Promise<number>): Promise<{ dvfLinesPerSecond: number }> {
  let dvfLinesPerSecond = 0;
  for (const [source, file] of SOURCE_IMPORTS) {
    const path = join(dataDir, file);
    const report = await importFile(db, IMPORTERS[source] as never, path, { progress: quiet });
    console.log(importLine(source, report));
    if (source === 'dvf') {
      const lines = (await lineCount(path)) - 1;
      dvfLinesPerSecond = lines / Math.max(report.seconds, 0.001);
      console.log(`  dvf : ${formatInt(lines)} lignes du fichier (${formatInt(report.read)} mutations) : ${formatInt(dvfLinesPerSecond)} lignes/s`);
    }
  }
  return { dvfLinesPerSecond };
}

/** Each source's search, one call after the other with the next body of its list, at `connections`. */
export async function measureSourceSearches(url: string, headers: Record<string, string>, connections: number): Promise<{ operation: string; figures: Figures }[]> {
  const out: { operation: string; figures: Figures }[] = [];
  for (const { operation, bodies } of SOURCE_SEARCHES) {
    let next = 0;
    const texts = bodies.map((b) => JSON.stringify(b));
    const options: autocannon.Options = {
      url,
      requests: [{ method: 'POST', path: `/api/mcp/v1/${operation}`, headers, setupRequest: (request) => ({ ...request, body: texts[next++ % texts.length] as string }) }],
    };
    out.push({ operation, figures: await measure(`${operation} (${bodies.length} requêtes tour à tour), ${connections} cx`, options, connections) });
  }
  return out;
}

export function sourceTargetLines(dvfLinesPerSecond: number, searches: { operation: string; figures: Figures }[], line: (label: string, value: string, target: string, reached: boolean) => void): void {
  line('Import DVF (lignes du fichier geo-dvf)', `${formatInt(dvfLinesPerSecond)} lignes/s`, `≥ ${formatInt(SOURCE_TARGETS.dvfRowsPerSecond)}`, dvfLinesPerSecond >= SOURCE_TARGETS.dvfRowsPerSecond);
  for (const { operation, figures } of searches) line(`${operation} p99 (1 cx)`, `${figures.p99} ms`, `< ${SOURCE_TARGETS.searchP99Ms} ms`, figures.p99 < SOURCE_TARGETS.searchP99Ms);
}
