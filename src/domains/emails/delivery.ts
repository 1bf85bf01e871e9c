// The delivery worker, inside the service: every tick it claims the messages due (a lease
// per message) and hands them to the SMTP server with nodemailer, every SMTP step bounded by
// a timeout. A temporary refusal or a network failure is retried later with a doubling delay;
// a permanent refusal (5xx) or the last attempt ends in `echec` with the server's answer.
// A crash between recording and delivery loses nothing: the message waits in the table, and
// once its lease passes the next tick (of this process or another) delivers it, once.
import nodemailer from 'nodemailer';
import type { Logger } from '../../log.js';
import { errorSummary } from '../../log.js';
import type { Database } from '../../platform/db/database.js';
import type { ObjectStore } from '../../platform/files/object-store.js';
import { AttachmentMissingError, readAttachments } from './attachments.js';
import { DELIVERY_WINDOW_MS, MAX_ATTEMPTS } from './rules.js';
import { dkimPrivateKey } from './sending-domain.js';
import { claimEmail, dueEmails, settleEmail, type EmailRecord } from './store.js';

export interface DeliveryTiming {
  tickMs: number;
  retryBaseMs: number;
  leaseMs: number;
}

export interface DeliveryDeps {
  db: Database;
  smtpUrl: string;
  /** Where response files' documents are kept: the attachments are read there at delivery. */
  store: ObjectStore;
  timing: DeliveryTiming;
  now: () => Date;
  logger: Logger;
}

export interface DeliveryWorker {
  /** One pass over the messages due (tests call it; the interval calls it too). */
  tick: () => Promise<void>;
  stop: () => Promise<void>;
}

/** Messages handed to the SMTP server per tick: a burst never holds the worker long. */
const BATCH = 10;

/** Bounds of every SMTP exchange (connection, greeting, each command's answer). */
const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 };

/** The server's answer, one line, without the envelope's addresses echoed in some replies. */
function oneLine(text: string | undefined): string | null {
  if (!text) return null;
  return text.replace(/[\r\n]+/g, ' ').trim().slice(0, 500) || null;
}

interface SmtpFailure {
  responseCode?: number;
  response?: string;
  code?: string;
  message?: string;
}

export function startDeliveryWorker(deps: DeliveryDeps): DeliveryWorker {
  const transport = nodemailer.createTransport({ url: deps.smtpUrl, ...SMTP_TIMEOUTS, pool: false });
  let running: Promise<void> | null = null;
  let stopped = false;

  async function deliver(message: EmailRecord): Promise<void> {
    const now = deps.now();
    if (now.getTime() - new Date(message.createdAt).getTime() > DELIVERY_WINDOW_MS) {
      await settleEmail(deps.db, message, { state: 'echec', response: 'Non remis : délai de remise de 24 heures dépassé.' }, now);
      return;
    }
    let dkim: { domainName: string; keySelector: string; privateKey: string } | undefined;
    if (message.dkimDomain && message.dkimSelector && message.organisationId) {
      const privateKey = await dkimPrivateKey(deps.db, message.organisationId, message.dkimSelector);
      if (!privateKey) {
        await settleEmail(deps.db, message, { state: 'echec', response: "Non remis : le domaine d'envoi a été remplacé avant la remise (clé DKIM retirée)." }, now);
        return;
      }
      dkim = { domainName: message.dkimDomain, keySelector: message.dkimSelector, privateKey };
    }
    let attachments: Awaited<ReturnType<typeof readAttachments>>;
    try {
      attachments = await readAttachments(deps.store, message.attachments);
    } catch (err) {
      const at = deps.now();
      if (err instanceof AttachmentMissingError || message.attempts >= MAX_ATTEMPTS) {
        // Never sent without what the caller asked to join.
        const reason =
          err instanceof AttachmentMissingError
            ? `Non remis : la pièce jointe « ${err.filename} » n'est plus conservée par le service.`
            : 'Non remis : stockage des documents injoignable pour lire les pièces jointes.';
        await settleEmail(deps.db, message, { state: 'echec', response: reason }, at);
      } else {
        const delay = deps.timing.retryBaseMs * 2 ** (message.attempts - 1);
        const reason = 'Stockage des documents injoignable pour lire les pièces jointes ; nouvel essai prévu.';
        await settleEmail(deps.db, message, { state: 'en_attente', response: reason, nextAttemptAt: new Date(at.getTime() + delay).toISOString() }, at);
      }
      deps.logger.warn({ tentative: message.attempts, absente: err instanceof AttachmentMissingError }, 'courriels : pièces jointes illisibles');
      return;
    }
    try {
      const info = await transport.sendMail({
        from: { name: message.fromName, address: message.fromAddress },
        replyTo: message.replyTo ?? undefined,
        to: message.to,
        cc: message.cc.length ? message.cc : undefined,
        subject: message.subject,
        text: message.body,
        html: message.htmlBody ?? undefined,
        messageId: message.messageId,
        date: new Date(message.createdAt),
        envelope: { from: message.envelopeFrom, to: [...message.to, ...message.cc] },
        dkim,
        attachments: attachments.length ? attachments : undefined,
      });
      await settleEmail(deps.db, message, { state: 'envoye', response: oneLine(info.response) }, deps.now());
    } catch (err) {
      const failure = err as SmtpFailure;
      const permanent = typeof failure.responseCode === 'number' && failure.responseCode >= 500;
      const answer = oneLine(failure.response) ?? `Serveur SMTP injoignable (${failure.code ?? 'erreur réseau'}).`;
      const at = deps.now();
      if (permanent || message.attempts >= MAX_ATTEMPTS) {
        await settleEmail(deps.db, message, { state: 'echec', response: answer }, at);
      } else {
        const delay = deps.timing.retryBaseMs * 2 ** (message.attempts - 1);
        await settleEmail(deps.db, message, { state: 'en_attente', response: answer, nextAttemptAt: new Date(at.getTime() + delay).toISOString() }, at);
      }
      // Codes only: no address, no subject.
      deps.logger.warn({ smtp: failure.responseCode ?? failure.code ?? null, tentative: message.attempts, definitif: permanent }, 'courriels : remise refusée');
    }
  }

  async function pass(): Promise<void> {
    const ids = await dueEmails(deps.db, deps.now(), BATCH);
    for (const id of ids) {
      if (stopped) return;
      const claimed = await claimEmail(deps.db, id, deps.now(), deps.timing.leaseMs);
      if (claimed) await deliver(claimed);
    }
  }

  const tick = (): Promise<void> => {
    if (running) return running;
    if (stopped) return Promise.resolve();
    running = pass()
      .catch((err: unknown) => deps.logger.error({ err: errorSummary(err) }, 'courriels : passage de remise interrompu (repris au suivant)'))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void tick(), deps.timing.tickMs);
  timer.unref();
  void tick();
  return {
    tick,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
      transport.close();
    },
  };
}
