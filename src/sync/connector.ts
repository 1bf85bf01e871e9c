// What the synchronisation engine knows of a connector: a small declared object saying where
// its publisher is, what it needs, when it runs, and how to list what is new as pages of
// records with the cursor reached after each. The records are mapped and written by the
// source's importers (src/import/importer.ts), so a synchronised record is exactly an
// imported one. The connectors live with their domain (src/domains/*/sync-*.ts) and are
// listed in src/domains/connectors.ts.
import type { Knex } from 'knex';
import type { Importer } from '../import/importer.js';
import type { SyncHttp, RequestBudget } from './http.js';

/** One page of records, written in one transaction with the cursor it reaches. */
export interface SyncPage {
  /** The importer (by its key in the connector's `importers`) mapping these records; the first one when absent. */
  importer?: string;
  /** Records in the shape the importer's `map` reads. */
  records: unknown[];
  /** Records that could not be read (a line cut, a bad record), counted as skipped. */
  problems?: { position: number; reason: string }[];
  /** The cursor once this page is written; stored in the same transaction as its rows. */
  cursor: unknown;
  /**
   * The rows' stamp (`ingested_at`, `updated_at`); the page's write time when absent. The
   * pages of one file read in one run share one, as one import of that file would.
   */
  stamp?: string;
  /** Work in the same transaction before the rows are written (a year of sales replaced). */
  before?: (trx: Knex.Transaction, stamp: string) => Promise<void>;
  /** Work in the same transaction after the rows (certifications not seen in a full snapshot ended). */
  after?: (trx: Knex.Transaction, stamp: string) => Promise<void>;
}

export interface SyncContext {
  http: SyncHttp;
  /** The publisher's address (its `…_API_URL` setting, or the real one), without a trailing slash. */
  baseUrl: string;
  /** The source's settings (credentials), by environment name. */
  setting: (name: string) => string | undefined;
  /** The stored cursor; null on the first run. `--since` reads from that day whatever it says, and must not move it back. */
  cursor: unknown;
  /** `--since` / `--until` of an on-demand run (YYYY-MM-DD). */
  since: string | null;
  until: string | null;
  now: () => Date;
  /** Keeps the run's lease while the connector works between two pages (a long download). */
  heartbeat: () => Promise<void>;
}

export interface Connector {
  /** The name given to `npm run sync -- --source NAME` and to SYNC_SOURCES. */
  name: string;
  /** What it brings, in French, for the summaries and the pages. */
  label: string;
  /** The alert source it feeds (`marche`, `entreprise`…), for the freshness said to users. */
  alertSource: string;
  /** Its importers by key; the first is the default of a page. */
  importers: Record<string, Importer<never, never>>;
  /** The setting naming the publisher's address, and the real address. */
  baseUrl: { setting: string; default: string };
  /** Settings without which the source is disabled (not an error). */
  credentials?: string[];
  /** When it runs in the service (cron expressions, Europe/Paris). */
  schedule: string[];
  /** After how long without a success the source is late (« en retard »). */
  staleAfterHours: number;
  /** The publisher's request budget, if it sets one. */
  budget?: RequestBudget;
  /** The pages of what is new since the cursor, in order. */
  pages(ctx: SyncContext): AsyncIterable<SyncPage>;
}
