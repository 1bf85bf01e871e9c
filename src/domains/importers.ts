// The importers by the source name given to `npm run import`, each with its domain; this
// module names itself to the import engine so that its reading thread can load them.
import { importerCatalogue, type Importer } from '../import/importer.js';
import { decp } from './awards/import-decp.js';
import { rge } from './companies/import-rge.js';
import { sireneEtablissements, sireneUnites } from './companies/import-sirene.js';
import { boamp } from './notices/import-boamp.js';
import { sitadel } from './permits/import-sitadel.js';

export const IMPORTERS: Record<string, Importer<never, never>> = importerCatalogue(import.meta.url, {
  'sirene-unites': sireneUnites as unknown as Importer<never, never>,
  'sirene-etablissements': sireneEtablissements as unknown as Importer<never, never>,
  rge: rge as unknown as Importer<never, never>,
  boamp: boamp as unknown as Importer<never, never>,
  decp: decp as unknown as Importer<never, never>,
  permis: sitadel as unknown as Importer<never, never>,
});
