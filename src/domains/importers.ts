// The importers by the source name given to `npm run import`.
import type { Importer } from '../import/run.js';
import { boamp } from './notices/import-boamp.js';
import { decp } from './awards/import-decp.js';
import { rge } from './companies/import-rge.js';
import { sireneEtablissements, sireneUnites } from './companies/import-sirene.js';

export const IMPORTERS: Record<string, Importer<never, never>> = {
  'sirene-unites': sireneUnites as unknown as Importer<never, never>,
  'sirene-etablissements': sireneEtablissements as unknown as Importer<never, never>,
  rge: rge as unknown as Importer<never, never>,
  boamp: boamp as unknown as Importer<never, never>,
  decp: decp as unknown as Importer<never, never>,
};
