// The outbox. A send is recorded first, in one transaction with the hourly counter (exact
// when calls race: the counter's conditional update is the first write, so it holds the
// lock), and its idempotency key is unique in the organisation: a retried call finds the
// message and records nothing. The delivery worker then claims due messages with a lease
// (a conditional update), so two workers never deliver the same message at once.
import type { Database } from '../../platform/db/database.js';
import { MAX_MESSAGES_PER_HOUR } from './rules.js';

export type EmailState = 'en_attente' | 'envoye' | 'echec';
export type SenderKind = 'service' | 'domaine_organisation';

/** A response-file document a message carries, as it was when the send was recorded. */
export interface AttachmentRecord {
  responseFileId: string;
  documentId: string;
  filename: string;
  contentType: string;
  size: number;
  objectKey: string;
}

export interface EmailRecord {
  id: string;
  /** null for an account e-mail of the service (no organisation: a sign-up, a reset). */
  organisationId: string | null;
  createdBy: string;
  key: string;
  contentHash: string;
  senderKind: SenderKind;
  fromName: string;
  fromAddress: string;
  replyTo: string | null;
  envelopeFrom: string;
  to: string[];
  cc: string[];
  subject: string;
  body: string;
  /** The HTML part (account e-mails); null: plain text only. */
  htmlBody?: string | null;
  /** null: a send a caller asked for; `compte`: an account e-mail (never listed with the organisation's sends). */
  purpose?: 'compte' | null;
  draftId: string | null;
  dkimDomain: string | null;
  dkimSelector: string | null;
  messageId: string;
  state: EmailState;
  attempts: number;
  nextAttemptAt: string;
  leaseUntil: string | null;
  lastResponse: string | null;
  createdAt: string;
  sentAt: string | null;
  updatedAt: string;
  /** In the order given; loaded with the message. */
  attachments: AttachmentRecord[];
}

function toRow(m: EmailRecord): Record<string, unknown> {
  return {
    id: m.id,
    organisation_id: m.organisationId,
    created_by: m.createdBy,
    idempotency_key: m.key,
    content_hash: m.contentHash,
    sender_kind: m.senderKind,
    from_name: m.fromName,
    from_address: m.fromAddress,
    reply_to: m.replyTo,
    envelope_from: m.envelopeFrom,
    recipients_to: JSON.stringify(m.to),
    recipients_cc: JSON.stringify(m.cc),
    subject: m.subject,
    body: m.body,
    html_body: m.htmlBody ?? null,
    purpose: m.purpose ?? null,
    draft_id: m.draftId,
    dkim_domain: m.dkimDomain,
    dkim_selector: m.dkimSelector,
    message_id: m.messageId,
    state: m.state,
    attempts: m.attempts,
    next_attempt_at: m.nextAttemptAt,
    lease_until: m.leaseUntil,
    last_response: m.lastResponse,
    created_at: m.createdAt,
    sent_at: m.sentAt,
    updated_at: m.updatedAt,
  };
}

export function fromRow(r: Record<string, unknown>): EmailRecord {
  return {
    id: r.id as string,
    organisationId: (r.organisation_id as string | null) ?? null,
    createdBy: r.created_by as string,
    key: r.idempotency_key as string,
    contentHash: r.content_hash as string,
    senderKind: r.sender_kind as SenderKind,
    fromName: r.from_name as string,
    fromAddress: r.from_address as string,
    replyTo: (r.reply_to as string | null) ?? null,
    envelopeFrom: r.envelope_from as string,
    to: JSON.parse(r.recipients_to as string) as string[],
    cc: JSON.parse(r.recipients_cc as string) as string[],
    subject: r.subject as string,
    body: r.body as string,
    htmlBody: (r.html_body as string | null) ?? null,
    purpose: (r.purpose as 'compte' | null) ?? null,
    draftId: (r.draft_id as string | null) ?? null,
    dkimDomain: (r.dkim_domain as string | null) ?? null,
    dkimSelector: (r.dkim_selector as string | null) ?? null,
    messageId: r.message_id as string,
    state: r.state as EmailState,
    attempts: Number(r.attempts),
    nextAttemptAt: r.next_attempt_at as string,
    leaseUntil: (r.lease_until as string | null) ?? null,
    lastResponse: (r.last_response as string | null) ?? null,
    createdAt: r.created_at as string,
    sentAt: (r.sent_at as string | null) ?? null,
    updatedAt: r.updated_at as string,
    attachments: [],
  };
}

const attachmentRows = (m: EmailRecord) =>
  m.attachments.map((a, position) => ({
    email_id: m.id,
    position,
    response_file_id: a.responseFileId,
    document_id: a.documentId,
    filename: a.filename,
    content_type: a.contentType,
    size: a.size,
    object_key: a.objectKey,
  }));

/** The messages with their attachments (one query for all of them). */
async function withAttachments(db: Database, rows: Record<string, unknown>[]): Promise<EmailRecord[]> {
  const records = rows.map(fromRow);
  if (!records.length) return records;
  const found = await db('email_attachments')
    .whereIn(
      'email_id',
      records.map((m) => m.id),
    )
    .orderBy([{ column: 'email_id' }, { column: 'position' }]);
  const byEmail = new Map(records.map((m) => [m.id, m]));
  for (const r of found as Record<string, unknown>[]) {
    byEmail.get(r.email_id as string)?.attachments.push({
      responseFileId: r.response_file_id as string,
      documentId: r.document_id as string,
      filename: r.filename as string,
      contentType: r.content_type as string,
      size: Number(r.size),
      objectKey: r.object_key as string,
    });
  }
  return records;
}

async function oneWithAttachments(db: Database, row: Record<string, unknown> | undefined): Promise<EmailRecord | null> {
  return row ? ((await withAttachments(db, [row]))[0] ?? null) : null;
}

/**
 * An account e-mail of the service (sign-up, reset, invitation, change of address): no
 * organisation, no hourly cap of an organisation's sends, delivered by the same worker.
 */
export async function recordAccountEmail(db: Database, message: EmailRecord): Promise<void> {
  await db('email_messages').insert(toRow({ ...message, purpose: 'compte' }));
}

export async function findByKey(db: Database, organisationId: string, key: string): Promise<EmailRecord | null> {
  const row = await db('email_messages').where({ organisation_id: organisationId, idempotency_key: key }).first();
  return oneWithAttachments(db, row as Record<string, unknown> | undefined);
}

export const hourOf = (at: Date) => at.toISOString().slice(0, 13);

export type RecordOutcome = { kind: 'recorded' } | { kind: 'replay'; existing: EmailRecord } | { kind: 'cap_reached' };

class KeyTaken extends Error {}

/** Records the message unless its key is known (a replay) or the organisation's hour is full. */
export async function recordEmail(db: Database, message: EmailRecord & { organisationId: string }, now: Date): Promise<RecordOutcome> {
  const before = await findByKey(db, message.organisationId, message.key);
  if (before) return { kind: 'replay', existing: before };
  const hour = hourOf(now);
  try {
    return await db.transaction(async (trx) => {
      // The counter's row exists before the conditional update, which comes first among the
      // writes that decide: it takes the row's lock, so racing calls count one at a time.
      await trx('email_hourly_counts').insert({ organisation_id: message.organisationId, hour, count: 0 }).onConflict(['organisation_id', 'hour']).ignore();
      const counted = await trx('email_hourly_counts')
        .where({ organisation_id: message.organisationId, hour })
        .andWhere('count', '<', MAX_MESSAGES_PER_HOUR)
        .increment('count', 1);
      if (!counted) return { kind: 'cap_reached' } as const;
      const inserted = await trx('email_messages').insert(toRow(message)).onConflict(['organisation_id', 'idempotency_key']).ignore().returning('id');
      // The same key won by a racing call: undo this count, answer its message.
      if (!inserted.length) throw new KeyTaken();
      const attachments = attachmentRows(message);
      if (attachments.length) await trx('email_attachments').insert(attachments);
      return { kind: 'recorded' } as const;
    });
  } catch (err) {
    if (!(err instanceof KeyTaken)) throw err;
    const existing = await findByKey(db, message.organisationId, message.key);
    if (!existing) throw new Error('courriel disparu pendant son enregistrement', { cause: err });
    return { kind: 'replay', existing };
  }
}

export async function listEmails(
  db: Database,
  organisationId: string,
  states: readonly EmailState[] | undefined,
  page: { offset: number; limit: number },
): Promise<{ records: EmailRecord[]; hasMore: boolean; total: number }> {
  const base = db('email_messages').where('organisation_id', organisationId).whereNull('purpose');
  if (states?.length) base.whereIn('state', states);
  const counted = await base.clone().count({ n: '*' }).first();
  const rows = await base
    .clone()
    .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
    .offset(page.offset)
    .limit(page.limit + 1);
  return { records: await withAttachments(db, rows.slice(0, page.limit) as Record<string, unknown>[]), hasMore: rows.length > page.limit, total: Number(counted?.n ?? 0) };
}

/** Messages due now, oldest first, not under another worker's lease. */
export async function dueEmails(db: Database, now: Date, limit: number): Promise<string[]> {
  const at = now.toISOString();
  const rows = await db('email_messages')
    .where('state', 'en_attente')
    .andWhere('next_attempt_at', '<=', at)
    .andWhere((w) => w.whereNull('lease_until').orWhere('lease_until', '<', at))
    .orderBy('next_attempt_at')
    .limit(limit)
    .select('id');
  return rows.map((r) => r.id as string);
}

/**
 * Claims one message for delivery: counts the attempt and sets the lease, only if it is
 * still waiting and free. The attempt is counted before the SMTP call: an attempt cut by a
 * crash is one.
 */
export async function claimEmail(db: Database, id: string, now: Date, leaseMs: number): Promise<EmailRecord | null> {
  const at = now.toISOString();
  const lease = new Date(now.getTime() + leaseMs).toISOString();
  const claimed = await db('email_messages')
    .where({ id, state: 'en_attente' })
    .andWhere('next_attempt_at', '<=', at)
    .andWhere((w) => w.whereNull('lease_until').orWhere('lease_until', '<', at))
    .update({ lease_until: lease, attempts: db.raw('attempts + 1'), updated_at: at });
  if (!claimed) return null;
  const row = await db('email_messages').where({ id }).first();
  return oneWithAttachments(db, row as Record<string, unknown> | undefined);
}

/** The outcome of a claimed attempt, written only while the claim (its lease) is still this worker's. */
export async function settleEmail(
  db: Database,
  claimed: EmailRecord,
  outcome: { state: EmailState; response: string | null; nextAttemptAt?: string },
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const changed = await db('email_messages')
    .where({ id: claimed.id, lease_until: claimed.leaseUntil })
    .update({
      state: outcome.state,
      last_response: outcome.response?.slice(0, 500) ?? null,
      lease_until: null,
      next_attempt_at: outcome.nextAttemptAt ?? claimed.nextAttemptAt,
      sent_at: outcome.state === 'envoye' ? at : null,
      updated_at: at,
      // An account e-mail's text holds a single-use link: once delivered, the outbox keeps none.
      ...(claimed.purpose === 'compte' && outcome.state !== 'en_attente' ? { body: '', html_body: null } : {}),
    });
  return changed > 0;
}

/** The delivery queue as an operator watches it (the metrics): messages waiting, those due now, and the oldest due one's wait. */
export async function emailQueue(db: Database, now: Date): Promise<{ waiting: number; due: number; oldestDueSeconds: number }> {
  const at = now.toISOString();
  const row = (await db('email_messages')
    .where('state', 'en_attente')
    .select(db.raw('count(*) as waiting'), db.raw('sum(case when next_attempt_at <= ? then 1 else 0 end) as due', [at]), db.raw('min(next_attempt_at) as oldest'))
    .first()) as { waiting: number | string; due: number | string | null; oldest: string | null } | undefined;
  const oldest = row?.oldest && row.oldest <= at ? (now.getTime() - new Date(row.oldest).getTime()) / 1000 : 0;
  return { waiting: Number(row?.waiting ?? 0), due: Number(row?.due ?? 0), oldestDueSeconds: oldest };
}
