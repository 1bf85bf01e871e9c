// The BOAMP's notices from the DILA's Opendatasoft portal (dataset `boamp`), one day of
// `dateparution` at a time: about 2,000 to 2,400 notices a day, published around 13:00 and
// midnight. The portal has no per-record update date: a correction comes as a new notice,
// a cancellation changes a notice's `etat`; the last 7 days are read again at each run and
// upserted by `idweb`. Each record goes through the BOAMP importer, as an imported file's.
import type { Connector } from '../../sync/connector.js';
import { odsDayPages } from '../../sync/opendatasoft.js';
import { boamp } from './import-boamp.js';
import type { Importer } from '../../import/importer.js';

export const boampConnector: Connector = {
  name: 'boamp',
  label: 'avis de marchés du BOAMP',
  alertSource: 'marche',
  importers: { boamp: boamp as unknown as Importer<never, never> },
  baseUrl: { setting: 'BOAMP_API_URL', default: 'https://boamp-datadila.opendatasoft.com/api/explore/v2.1' },
  // After each of the two daily publications (Paris time).
  schedule: ['30 1,14 * * *'],
  staleAfterHours: 14,
  pages: (ctx) => odsDayPages(ctx, { dataset: 'boamp', dateField: 'dateparution', orderBy: 'idweb', windowDays: 7, firstDays: 7 }),
};
