// The DECP (awarded contracts) from data.economie.gouv.fr's Opendatasoft portal, in its two
// datasets read one after the other, each with its own cursor: `decp-2022-marches-valides`
// (2022 schema, contracts notified from 2024, updated daily) and `decp-v3-marches-valides`
// (2019 schema, 2018 to early 2024, no longer fed). Each is read one day of
// `datepublicationdonnees` at a time; the rows of one contract (one per holder, amendment
// and subcontracting act) are gathered into the published JSON shape and go through the
// DECP importer, as an imported file's contracts. The last 14 days are read again at each
// run (the consolidation adds records published days before), upserted by buyer and id.
import type { Connector, SyncContext, SyncPage } from '../../sync/connector.js';
import { odsDayPages, odsManyDatasets, odsWholeGroups } from '../../sync/opendatasoft.js';
import type { Importer } from '../../import/importer.js';
import { decp } from './import-decp.js';
import { DECP_DATASETS, decpContractsOfRows, type DecpSchema } from './decp-ods.js';

/** Days read again before the last one done. */
export const DECP_WINDOW_DAYS = 14;
/** Days read by a first run without `--since`. */
export const DECP_FIRST_DAYS = 30;

/** The rows are ordered by contract id (the only order the portal's users are seen to rely on), so that a contract's rows follow each other. */
const ORDER_BY = 'id';

async function* contracts(ctx: SyncContext, schema: DecpSchema): AsyncGenerator<SyncPage> {
  const rows = odsDayPages(ctx, { dataset: DECP_DATASETS[schema], dateField: 'datepublicationdonnees', orderBy: ORDER_BY, windowDays: DECP_WINDOW_DAYS, firstDays: DECP_FIRST_DAYS });
  // A contract's rows never split between two pages: the importer replaces its holders with each write.
  const whole = odsWholeGroups(rows, (row) => String((row as { id?: unknown } | null)?.id ?? ''));
  for await (const page of whole) yield { ...page, records: decpContractsOfRows(page.records, schema) };
}

export const decpConnector: Connector = {
  name: 'decp',
  label: 'marchés attribués (DECP)',
  alertSource: 'attribution',
  importers: { decp: decp as unknown as Importer<never, never> },
  baseUrl: { setting: 'DECP_API_URL', default: 'https://data.economie.gouv.fr/api/explore/v2.1' },
  // Daily, after the portal's daily processing (early afternoon, Paris time).
  schedule: ['30 15 * * *'],
  staleAfterHours: 30,
  pages: (ctx) =>
    odsManyDatasets(ctx, [
      { key: DECP_DATASETS['2022'], pages: (c) => contracts(c, '2022') },
      { key: DECP_DATASETS['2019'], pages: (c) => contracts(c, '2019') },
    ]),
};
