// Runs the migrations at start. They are listed here (not discovered on disk) so the
// same list runs under tsx, in tests and from any working directory.
import type { Knex } from 'knex';
import type { Database } from '../platform/db/database.js';
import * as referenceLists from './0001-reference-lists.js';
import * as identity from './0002-identity.js';
import * as quotas from './0003-quotas.js';
import * as alerts from './0004-alerts.js';
import * as publicData from './0005-public-data.js';
import * as publicSearch from './0006-public-search.js';
import * as oauthHardening from './0007-oauth-hardening.js';
import * as activityNomenclatures from './0008-activity-nomenclatures.js';
import * as permits from './0009-permits.js';
import * as sales from './0010-sales.js';
import * as announcements from './0011-announcements.js';
import * as localSources from './0012-local-sources.js';
import * as companiesKnownByEstablishments from './0013-companies-known-by-establishments.js';
import * as dce from './0014-dce.js';
import * as alertEvents from './0015-alert-events.js';
import * as eventSubscriptions from './0016-event-subscriptions.js';
import * as robot from './0017-robot.js';
import * as workspace from './0018-workspace.js';
import * as subscriptionRequests from './0019-subscription-requests.js';
import * as responseFiles from './0020-response-files.js';
import * as emails from './0021-emails.js';
import * as companyRecords from './0022-company-records.js';
import * as emailAttachments from './0023-email-attachments.js';
import * as expiryIndexes from './0024-expiry-indexes.js';
import * as sync from './0025-sync.js';
import * as accounts from './0026-accounts.js';
import * as dceKindsAndContactDetails from './0027-dce-kinds-and-contact-details.js';
import * as publishedFormats from './0028-published-formats.js';
import * as postgresCallPath from './0029-postgres-call-path.js';
import * as searchUnderLoad from './0030-search-under-load.js';
import * as admissionChecksIdentity from './0031-admission-checks-identity.js';
import * as sqliteSearchVersions from './0032-sqlite-search-versions.js';
import * as departmentListing from './0033-department-listing.js';
import * as deferredIndexes from './0034-deferred-indexes.js';
import * as quotaCountersPerGroup from './0035-quota-counters-per-group.js';
import * as quotaLogBounds from './0036-quota-log-bounds.js';
import * as searchDocumentsInRecords from './0037-search-documents-in-records.js';
import * as companyDepartmentsList from './0038-company-departments-list.js';
import * as sharedSearchCache from './0039-shared-search-cache.js';

const MIGRATIONS: Record<string, Knex.Migration> = {
  '0001-reference-lists': referenceLists,
  '0002-identity': identity,
  '0003-quotas': quotas,
  '0004-alerts': alerts,
  '0005-public-data': publicData,
  '0006-public-search': publicSearch,
  '0007-oauth-hardening': oauthHardening,
  '0008-activity-nomenclatures': activityNomenclatures,
  '0009-permits': permits,
  '0010-sales': sales,
  '0011-announcements': announcements,
  '0012-local-sources': localSources,
  '0013-companies-known-by-establishments': companiesKnownByEstablishments,
  '0014-dce': dce,
  '0015-alert-events': alertEvents,
  '0016-event-subscriptions': eventSubscriptions,
  '0017-robot': robot,
  '0018-workspace': workspace,
  '0019-subscription-requests': subscriptionRequests,
  '0020-response-files': responseFiles,
  '0021-emails': emails,
  '0022-company-records': companyRecords,
  '0023-email-attachments': emailAttachments,
  '0024-expiry-indexes': expiryIndexes,
  '0025-sync': sync,
  '0026-accounts': accounts,
  '0027-dce-kinds-and-contact-details': dceKindsAndContactDetails,
  '0028-published-formats': publishedFormats,
  '0029-postgres-call-path': postgresCallPath,
  '0030-search-under-load': searchUnderLoad,
  '0031-admission-checks-identity': admissionChecksIdentity,
  '0032-sqlite-search-versions': sqliteSearchVersions,
  '0033-department-listing': departmentListing,
  '0034-deferred-indexes': deferredIndexes,
  '0035-quota-counters-per-group': quotaCountersPerGroup,
  '0036-quota-log-bounds': quotaLogBounds,
  '0037-search-documents-in-records': searchDocumentsInRecords,
  '0038-company-departments-list': companyDepartmentsList,
  '0039-shared-search-cache': sharedSearchCache,
};

const source: Knex.MigrationSource<string> = {
  getMigrations: async () => Object.keys(MIGRATIONS).sort(),
  getMigrationName: (name) => name,
  getMigration: async (name) => MIGRATIONS[name] as Knex.Migration,
};

/** How many migrations are still to run (reads only, once the migrations' tables exist). */
export async function pendingMigrations(db: Database): Promise<number> {
  const [, pending] = (await db.migrate.list({ migrationSource: source, tableName: 'knex_migrations' })) as [unknown[], unknown[]];
  return pending.length;
}

export async function migrateLatest(db: Database): Promise<void> {
  await db.migrate.latest({ migrationSource: source, tableName: 'knex_migrations' });
}
