// The account e-mails, in French, plain text and HTML: recorded in the outbox and delivered
// by the e-mail worker (retries, nothing sent twice); without SMTP they wait in the outbox.
import { createHash, randomUUID } from 'node:crypto';
import type { Database } from '../platform/db/database.js';
import { recordAccountEmail } from '../domains/emails/store.js';
import { escapeHtml } from './pages.js';

export interface AccountMailSettings {
  mailFrom: string;
  publicUrl: string;
  serviceName: string;
}

export interface AccountMail {
  to: string;
  subject: string;
  /** Paragraphs of text; a link is given apart, shown as a button in HTML. */
  paragraphs: string[];
  link?: { label: string; url: string };
  /** Said after the link (its validity, what to do if the mail was not expected). */
  after?: string[];
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

export function renderText(mail: AccountMail, serviceName: string): string {
  const lines = ['Bonjour,', '', ...mail.paragraphs.flatMap((p) => [p, ''])];
  if (mail.link) lines.push(`${mail.link.label} :`, mail.link.url, '');
  for (const p of mail.after ?? []) lines.push(p, '');
  lines.push('—', serviceName, '(message automatique : ne pas répondre)');
  return lines.join('\n');
}

export function renderHtml(mail: AccountMail, serviceName: string): string {
  const p = (text: string) => `<p style="margin:0 0 14px">${escapeHtml(text)}</p>`;
  const button = mail.link
    ? `<p style="margin:20px 0"><a href="${escapeHtml(mail.link.url)}" style="background:#1f5fbf;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">${escapeHtml(mail.link.label)}</a></p>
<p style="margin:0 0 14px;font-size:13px;color:#5b6678">Ou copier cette adresse dans le navigateur : ${escapeHtml(mail.link.url)}</p>`
    : '';
  return `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>${escapeHtml(mail.subject)}</title></head>
<body style="font-family:system-ui,sans-serif;color:#1d2533;line-height:1.5">
${p('Bonjour,')}
${mail.paragraphs.map(p).join('\n')}
${button}
${(mail.after ?? []).map(p).join('\n')}
<p style="margin:24px 0 0;font-size:13px;color:#5b6678">${escapeHtml(serviceName)} — message automatique : ne pas répondre.</p>
</body></html>`;
}

/** Records an account e-mail; the delivery worker sends it. */
export async function sendAccountMail(db: Database, settings: AccountMailSettings, mail: AccountMail, now: Date): Promise<void> {
  const id = randomUUID();
  const at = now.toISOString();
  const text = renderText(mail, settings.serviceName);
  await recordAccountEmail(db, {
    id,
    organisationId: null,
    createdBy: 'service',
    key: `compte-${id}`,
    contentHash: createHash('sha256').update(text).digest('hex'),
    senderKind: 'service',
    fromName: settings.serviceName,
    fromAddress: settings.mailFrom,
    replyTo: null,
    envelopeFrom: settings.mailFrom,
    to: [mail.to],
    cc: [],
    subject: mail.subject,
    body: text,
    htmlBody: renderHtml(mail, settings.serviceName),
    draftId: null,
    dkimDomain: null,
    dkimSelector: null,
    messageId: `<${id}@${domainOf(settings.mailFrom)}>`,
    state: 'en_attente',
    attempts: 0,
    nextAttemptAt: at,
    leaseUntil: null,
    lastResponse: null,
    createdAt: at,
    sentAt: null,
    updatedAt: at,
    attachments: [],
  });
}
