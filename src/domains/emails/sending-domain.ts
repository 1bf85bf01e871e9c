// The organisation's sending domain: the three DNS records it publishes (SPF include, the
// DKIM public key of a key pair the service generates, the return path), their check, and
// the DKIM private key, kept with the service's secrets (table service_secrets), never
// answered. RSA 2048 is generated off the event loop (libuv's thread pool).
import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Database } from '../../platform/db/database.js';
import { checkCname, checkTxt, type DnsResolver, type RecordState } from './dns-check.js';

const generate = promisify(generateKeyPair);

export type RecordRole = 'spf' | 'dkim' | 'retour';
export const RECORD_ROLES: readonly RecordRole[] = ['spf', 'dkim', 'retour'];

export interface DomainRecord {
  organisationId: string;
  domain: string;
  senderLocal: string;
  selector: string;
  publicKey: string;
  checks: Record<RecordRole, RecordState>;
  verified: boolean;
  checkedAt: string | null;
  verifiedAt: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export interface DnsEntry {
  role: RecordRole;
  type: 'TXT' | 'CNAME';
  name: string;
  value: string;
}

/** The service's own mail domain (the domain of MAIL_FROM): the SPF include and the return path point there. */
export const serviceMailDomain = (mailFrom: string) => mailFrom.slice(mailFrom.lastIndexOf('@') + 1).toLowerCase();

/** The host that receives bounces for the organisation's domain (a CNAME to the service's). */
export const returnPathHost = (domain: string) => `retour.${domain}`;

/** What to publish, record by record. */
export function dnsEntries(d: Pick<DomainRecord, 'domain' | 'selector' | 'publicKey'>, mailFrom: string): DnsEntry[] {
  const service = serviceMailDomain(mailFrom);
  return [
    { role: 'spf', type: 'TXT', name: d.domain, value: `v=spf1 include:_spf.${service} ~all` },
    { role: 'dkim', type: 'TXT', name: `${d.selector}._domainkey.${d.domain}`, value: `v=DKIM1; k=rsa; p=${d.publicKey}` },
    { role: 'retour', type: 'CNAME', name: returnPathHost(d.domain), value: `retour.${service}` },
  ];
}

/** Looks each record up (bounded lookups, in parallel). */
export async function checkRecords(resolver: DnsResolver, d: DomainRecord, mailFrom: string): Promise<Record<RecordRole, RecordState>> {
  const [spf, dkim, retour] = dnsEntries(d, mailFrom) as [DnsEntry, DnsEntry, DnsEntry];
  const [spfState, dkimState, retourState] = await Promise.all([
    // Only the include is required: the organisation's SPF may name other senders too.
    checkTxt(resolver, spf.name, 'v=spf1', `include:_spf.${serviceMailDomain(mailFrom)}`),
    checkTxt(resolver, dkim.name, 'v=DKIM1', `p=${d.publicKey}`),
    checkCname(resolver, retour.name, retour.value),
  ]);
  return { spf: spfState, dkim: dkimState, retour: retourState };
}

export const dkimSecretName = (organisationId: string, selector: string) => `dkim:${organisationId}:${selector}`;

/** A new key pair: the public key (base64 DER, as DKIM publishes it), the private key (PEM), and a selector of its own. */
export async function newDkimKey(now: Date): Promise<{ selector: string; publicKey: string; privateKeyPem: string }> {
  const { publicKey, privateKey } = await generate('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // A selector per key: publishing a new key never breaks the messages signed with the old one in transit.
  const selector = `bd${now.toISOString().slice(0, 10).replace(/-/g, '')}${randomBytes(3).toString('hex')}`;
  return { selector, publicKey: publicKey.toString('base64'), privateKeyPem: privateKey };
}

function fromRow(row: Record<string, unknown>): DomainRecord {
  return {
    organisationId: row.organisation_id as string,
    domain: row.domain as string,
    senderLocal: row.sender_local as string,
    selector: row.dkim_selector as string,
    publicKey: row.dkim_public_key as string,
    checks: JSON.parse(row.checks as string) as Record<RecordRole, RecordState>,
    verified: Boolean(row.verified),
    checkedAt: (row.checked_at as string | null) ?? null,
    verifiedAt: (row.verified_at as string | null) ?? null,
    createdBy: row.created_by as string,
    createdAt: row.created_at as string,
    updatedAt: row.updated_at as string,
  };
}

export async function findDomain(db: Database, organisationId: string): Promise<DomainRecord | null> {
  const row = await db('email_domains').where('organisation_id', organisationId).first();
  return row ? fromRow(row as Record<string, unknown>) : null;
}

const NOT_CHECKED: Record<RecordRole, RecordState> = { spf: 'non_verifie', dkim: 'non_verifie', retour: 'non_verifie' };

/**
 * Sets the organisation's domain: a new key pair and unverified records, replacing a
 * previous domain (its private key removed in the same transaction). The key is generated
 * before the transaction, so no lock is held meanwhile.
 */
export async function replaceDomain(db: Database, input: { organisationId: string; domain: string; senderLocal: string; createdBy: string }, now: Date): Promise<DomainRecord> {
  const key = await newDkimKey(now);
  const at = now.toISOString();
  const record: DomainRecord = { ...input, selector: key.selector, publicKey: key.publicKey, checks: { ...NOT_CHECKED }, verified: false, checkedAt: null, verifiedAt: null, createdAt: at, updatedAt: at };
  await db.transaction(async (trx) => {
    const previous = await trx('email_domains').where('organisation_id', input.organisationId).first('dkim_selector');
    if (previous) await trx('service_secrets').where('name', dkimSecretName(input.organisationId, previous.dkim_selector as string)).delete();
    await trx('email_domains').where('organisation_id', input.organisationId).delete();
    await trx('service_secrets').insert({ name: dkimSecretName(input.organisationId, key.selector), value: key.privateKeyPem });
    await trx('email_domains').insert({
      organisation_id: record.organisationId,
      domain: record.domain,
      sender_local: record.senderLocal,
      dkim_selector: record.selector,
      dkim_public_key: record.publicKey,
      checks: JSON.stringify(record.checks),
      verified: false,
      checked_at: null,
      verified_at: null,
      created_by: record.createdBy,
      created_at: at,
      updated_at: at,
    });
  });
  return record;
}

/** Changes the sender's local part only (same domain, same key, same verification). */
export async function updateSenderLocal(db: Database, organisationId: string, senderLocal: string, now: Date): Promise<void> {
  await db('email_domains').where('organisation_id', organisationId).update({ sender_local: senderLocal, updated_at: now.toISOString() });
}

/** Stores a check's outcome, unless the domain was replaced meanwhile (its selector changed). */
export async function saveChecks(db: Database, d: DomainRecord, checks: Record<RecordRole, RecordState>, now: Date): Promise<DomainRecord> {
  const verified = RECORD_ROLES.every((r) => checks[r] === 'conforme');
  const at = now.toISOString();
  const verifiedAt = verified ? (d.verified ? d.verifiedAt : at) : null;
  await db('email_domains')
    .where({ organisation_id: d.organisationId, dkim_selector: d.selector })
    .update({ checks: JSON.stringify(checks), verified, checked_at: at, verified_at: verifiedAt, updated_at: at });
  return { ...d, checks, verified, checkedAt: at, verifiedAt, updatedAt: at };
}

export async function dkimPrivateKey(db: Database, organisationId: string, selector: string): Promise<string | null> {
  const row = await db('service_secrets').where('name', dkimSecretName(organisationId, selector)).first('value');
  return row ? (row.value as string) : null;
}
