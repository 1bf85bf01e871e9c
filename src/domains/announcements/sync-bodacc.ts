// The BODACC's announcements from the DILA's Opendatasoft portal (dataset
// `annonces-commerciales`), one day of `dateparution` at a time: editions A and B five days
// a week, C one to five times a week, a few thousand announcements a day and sometimes more
// than the `/records` cap (then read through `/exports/json`, its count checked: a large
// export can end early without an error). A correction is a new announcement (`typeavis`
// rectificatif); the last 7 days are read again at each run and upserted by `id`. Each
// record goes through the BODACC importer, as an imported file's.
import type { Connector } from '../../sync/connector.js';
import { odsDayPages } from '../../sync/opendatasoft.js';
import type { Importer } from '../../import/importer.js';
import { bodacc } from './import-bodacc.js';

export const bodaccConnector: Connector = {
  name: 'bodacc',
  label: 'annonces du BODACC',
  alertSource: 'bodacc',
  importers: { bodacc: bodacc as unknown as Importer<never, never> },
  baseUrl: { setting: 'BODACC_API_URL', default: 'https://bodacc-datadila.opendatasoft.com/api/explore/v2.1' },
  // Twice a day, after the portal's publications (Paris time).
  schedule: ['45 1,14 * * *'],
  staleAfterHours: 14,
  pages: (ctx) => odsDayPages(ctx, { dataset: 'annonces-commerciales', dateField: 'dateparution', orderBy: 'id', windowDays: 7, firstDays: 7 }),
};
