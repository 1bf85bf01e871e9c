// The importers by the source name given to `npm run import`, each with its domain; this
// module names itself to the import engine so that its reading thread can load them.
import { importerCatalogue, type Importer } from '../import/importer.js';
import type { DeferrableTable } from '../platform/db/deferred-indexes.js';
import { COMPANIES_SEARCH } from './companies/search-index.js';
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

/**
 * PostgreSQL: the tables whose secondary indexes a first load builds once at its end
 * (`deferIndexes`: a large file, the table empty at the start), and the indexes kept because
 * the load itself reads through them (checked with EXPLAIN on the loaded tables). The
 * SIRENE and BODACC imports were bound by their upserts into tables of 3 to 6 indexes;
 * the indexes the reads of the API need (a department's companies, an activity, the
 * announcements by date) are useless to the load itself. Kept besides: primary keys and
 * unique indexes, which the upserts' ON CONFLICT needs. The search tables' GIN indexes are
 * deferred for every source (`deferrableSearchTables`).
 */
const FIRST_LOAD = {
  // The units' import looks its provisional rows up by this partial index (`provisionalAmong`).
  companies: { table: 'companies', keep: ['companies_provisional'] },
  // Both SIRENE imports read a batch's companies' establishments by SIREN for their documents.
  establishments: { table: 'establishments', keep: ['establishments_siren_departement_etat'] },
  // A first load of the establishments rewrites nearly every company's document (its towns
  // and signs): kept up to date, the GIN index doubled the documents' statements (national set
  // at factor 0.02: 12 s against 6 s without it, the index rebuilt in 1.2 to 1.6 s).
  companiesDocuments: { table: COMPANIES_SEARCH.name, rewrittenByFirstLoadOf: 'establishments' },
  // Their links are replaced by announcement (the primary key's first column).
  announcements: { table: 'announcements' },
  announcementSirens: { table: 'announcement_sirens' },
  // The sales' import reads its own earlier lines back by key only (`writtenByThisImport`).
  sales: { table: 'sales' },
  // BOAMP reads notices by `annonce_id` (a unique index, always kept), corrections by the
  // notice they name (their primary key's first column), buyers by id; both BOAMP and DECP
  // replace an award's winners by award (the primary key's first column).
  notices: { table: 'notices' },
  noticeDepartements: { table: 'notice_departements' },
  noticeCorrections: { table: 'notice_corrections' },
  buyers: { table: 'buyers' },
  awards: { table: 'awards' },
  awardWinners: { table: 'award_winners' },
} satisfies Record<string, DeferrableTable>;

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
}, {
  'sirene-unites': [FIRST_LOAD.companies],
  'sirene-etablissements': [FIRST_LOAD.establishments, FIRST_LOAD.companies, FIRST_LOAD.companiesDocuments],
  bodacc: [FIRST_LOAD.announcements, FIRST_LOAD.announcementSirens],
  dvf: [FIRST_LOAD.sales],
  boamp: [FIRST_LOAD.notices, FIRST_LOAD.noticeDepartements, FIRST_LOAD.noticeCorrections, FIRST_LOAD.buyers, FIRST_LOAD.awards, FIRST_LOAD.awardWinners],
  decp: [FIRST_LOAD.buyers, FIRST_LOAD.awards, FIRST_LOAD.awardWinners],
});
