// What actions may use: the database, the contract, the clock. Built once at start.
import type { Contract } from '../contract/runtime.js';
import type { Database } from '../platform/db/database.js';
import type { QuotaKeeper } from '../access/quota-keeper.js';
import type { DnsResolver } from './emails/dns-check.js';

/** What e-mail sends need of the configuration. */
export interface EmailServices {
  /** An SMTP server is configured (SMTP_URL): without one, sends stay in the outbox. */
  smtpConfigured: boolean;
  /** The service's own sender address (MAIL_FROM). */
  mailFrom: string;
  /** Looks up the sending domains' records (bounded lookups). */
  resolver: DnsResolver;
}
import type { ObjectStore } from '../platform/files/object-store.js';
import type { SyncPlan } from '../sync/status.js';

export interface Services {
  db: Database;
  contract: Contract;
  now: () => Date;
  quota: QuotaKeeper;
  /** The service's public address: the base of every permalink. */
  publicUrl: string;
  /** Signs search cursors (kept in the database: valid across processes and restarts). */
  cursorKey: string;
  /** Signs the temporary download links of consultation files (kept in the database too). */
  dceLinkKey: string;
  /** Where consultation files' pieces are kept; response files' documents are kept there too. */
  dceStore: ObjectStore;
  /** Signs the acknowledgement tokens of polled events (kept in the database too). */
  eventAckKey: string;
  /** E-mail sends; absent: the outbox only, the service's default sender, the system resolver. */
  email?: EmailServices;
  /** The synchronisation with the publishers as configured (freshness said to users); absent: off. */
  sync?: SyncPlan;
}
