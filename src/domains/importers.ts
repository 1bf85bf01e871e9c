// The importers by the source name given to `npm run import`, each with its domain; this
// module names itself to the import engine so that its reading thread can load them.
import { importerCatalogue, type Importer } from '../import/importer.js';
import { bodacc } from './announcements/import-bodacc.js';
import { decp } from './awards/import-decp.js';
import { rge } from './companies/import-rge.js';
import { ratios } from './companies/import-ratios.js';
import { rne } from './companies/import-rne.js';
import { sireneEtablissements, sireneUnites } from './companies/import-sirene.js';
import { boamp } from './notices/import-boamp.js';
import { contacts } from './contacts/import-contacts.js';
import { deliberations } from './minutes/import-deliberations.js';
import { publications } from './posts/import-publications.js';
import { dvf } from './sales/import-dvf.js';
import { sitadel } from './permits/import-sitadel.js';

export const IMPORTERS: Record<string, Importer<never, never>> = importerCatalogue(import.meta.url, {
  'sirene-unites': sireneUnites as unknown as Importer<never, never>,
  'sirene-etablissements': sireneEtablissements as unknown as Importer<never, never>,
  rge: rge as unknown as Importer<never, never>,
  rne: rne as unknown as Importer<never, never>,
  ratios: ratios as unknown as Importer<never, never>,
  boamp: boamp as unknown as Importer<never, never>,
  decp: decp as unknown as Importer<never, never>,
  bodacc: bodacc as unknown as Importer<never, never>,
  deliberations: deliberations as unknown as Importer<never, never>,
  publications: publications as unknown as Importer<never, never>,
  contacts: contacts as unknown as Importer<never, never>,
  dvf: dvf as unknown as Importer<never, never>,
  permis: sitadel as unknown as Importer<never, never>,
});
