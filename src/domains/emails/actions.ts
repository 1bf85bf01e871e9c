// E-mail sends requested by the caller (issue 16): a message the caller wrote, to addresses
// the caller gives, recorded first (with its idempotency key and the hourly cap in one
// transaction) and delivered by the worker (delivery.ts); the organisation's sending domain
// (sending-domain.ts). Plan and eligible access are checked by the call path (the
// contract's x-paid-only, x-eligible-access); the e-mail option here, where it matters.
import { createHash, randomUUID } from 'node:crypto';
import type { Caller } from '../../access/caller.js';
import { AccessDeniedError, ConflictError, InvalidArgumentsError, NotFoundError, QuotaExceededError } from '../../errors.js';
import type { Database } from '../../platform/db/database.js';
import { parisDay, parisIso } from '../../platform/paris-time.js';
import { pagedSearch } from '../../platform/search/cursor.js';
import type { EmailServices, Services } from '../context.js';
import type { HandlerMap, OperationResults } from '../../../generated/handler-map.js';
import { resolveAttachments } from './attachments.js';
import { systemResolver } from './dns-check.js';
import { checkAddresses, checkSubject, checkText, isHostname, normaliseAddress, safeDisplayName } from './rules.js';
import { checkRecords, dnsEntries, findDomain, replaceDomain, returnPathHost, saveChecks, updateSenderLocal, type DomainRecord } from './sending-domain.js';
import { listEmails, recordEmail, type EmailRecord, type EmailState } from './store.js';

type EmailActions = Pick<HandlerMap<Caller>, 'emails.send' | 'emails.list' | 'emails.domain'>;
type EmailOut = OperationResults['emails.send']['courriel'];
type DomainOut = OperationResults['emails.domain']['domaine'];

export const NO_SMTP_REMARK = 'non envoyé : aucun serveur SMTP configuré';
const STATE_LABELS: Record<EmailState, string> = { en_attente: 'en attente', envoye: 'envoyé', echec: 'échec' };
const DEFAULT_SENDER_LOCAL = 'ne-pas-repondre';

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1);

/** An envoi as answered (the message's text is not: the caller wrote it). */
export function presentEmail(m: EmailRecord, smtpConfigured: boolean): EmailOut {
  const waiting = m.state === 'en_attente';
  return {
    id: m.id,
    cle: m.key,
    etat: m.state,
    etat_libelle: STATE_LABELS[m.state],
    remarque: waiting && !smtpConfigured ? NO_SMTP_REMARK : null,
    destinataires: m.to,
    copie: m.cc,
    sujet: m.subject,
    brouillon_id: m.draftId,
    pieces_jointes: m.attachments.map((a) => ({ dossier_id: a.responseFileId, document_id: a.documentId, nom: a.filename, content_type: a.contentType, taille: a.size })),
    expedition: m.senderKind,
    domaine_expediteur: domainOf(m.fromAddress),
    signe_dkim: m.dkimDomain !== null,
    tentatives: m.attempts,
    derniere_reponse_smtp: m.lastResponse,
    prochain_essai: waiting && smtpConfigured ? parisIso(new Date(m.nextAttemptAt)) : null,
    cree_par: m.createdBy,
    cree_le: parisIso(new Date(m.createdAt)),
    envoye_le: m.sentAt ? parisIso(new Date(m.sentAt)) : null,
  };
}

function presentDomain(d: DomainRecord | null, emailOption: boolean, mailFrom: string): DomainOut {
  if (!d) return null;
  return {
    domaine: d.domain,
    expediteur: d.senderLocal,
    etat: d.verified ? 'verifie' : d.checkedAt ? 'incomplet' : 'a_verifier',
    verifie_le: d.verifiedAt ? parisIso(new Date(d.verifiedAt)) : null,
    verifie_a: d.checkedAt ? parisIso(new Date(d.checkedAt)) : null,
    utilise_pour_envoi: d.verified && emailOption,
    enregistrements: dnsEntries(d, mailFrom).map((e) => ({ role: e.role, type: e.type, nom: e.name, valeur: e.value, etat: d.checks[e.role] })),
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function draftOf(db: Database, organisationId: string, id: string): Promise<{ title: string; body: string }> {
  const row = await db('drafts').where({ id: id.toLowerCase(), organisation_id: organisationId }).first(['title', 'body']);
  if (!row) throw new NotFoundError(`Brouillon introuvable dans l'organisation.`);
  return { title: row.title as string, body: row.body as string };
}

function needsOption(caller: Caller): void {
  if (!caller.emailOption)
    throw new AccessDeniedError(
      "Un domaine d'envoi personnalisé exige l'option courriel de l'organisation ; sans elle, les messages partent de l'adresse du service (avec l'adresse du compte en réponse).",
    );
}

export function emailActions(services: Services): EmailActions {
  const { db, now, cursorKey } = services;
  const email: EmailServices = services.email ?? { smtpConfigured: false, mailFrom: 'ne-pas-repondre@localhost', resolver: systemResolver() };

  return {
    'emails.send': async (args, caller) => {
      // Writes have been checked to have an organisation (call path).
      const organisationId = caller.organisationId as string;
      const draft = args.brouillon_id ? await draftOf(db, organisationId, args.brouillon_id) : null;
      const subjectGiven = args.sujet ?? draft?.title;
      const textGiven = args.texte ?? draft?.body;
      if (subjectGiven === undefined) throw new InvalidArgumentsError(`L'argument « sujet » est obligatoire sans « brouillon_id ».`);
      if (textGiven === undefined) throw new InvalidArgumentsError(`L'argument « texte » est obligatoire sans « brouillon_id ».`);
      const subject = checkSubject(subjectGiven, args.sujet !== undefined ? 'sujet' : 'brouillon_id (titre du brouillon)');
      const body = checkText(textGiven, args.texte !== undefined ? 'texte' : 'brouillon_id (corps du brouillon)');
      const { to, cc } = checkAddresses(args.destinataires, args.copie ?? []);
      const at = now();
      const draftId = args.brouillon_id?.toLowerCase() ?? null;
      const attachments = await resolveAttachments(db, organisationId, args.pieces_jointes ?? []);
      // The attachments by reference, and only when there are some: keys derived before they existed stay the same.
      const refs = attachments.map((a) => [a.responseFileId, a.documentId]);
      const contentHash = sha256(JSON.stringify(refs.length ? { to, cc, subject, body, draftId, attachments: refs } : { to, cc, subject, body, draftId }));
      // Without a key, the content and the day (Paris) make it: the same message retried the same day is sent once.
      const key = args.cle ?? `auto-${sha256(`${contentHash}:${parisDay(at)}`).slice(0, 40)}`;

      const [org, user, domain] = await Promise.all([
        db('organisations').where('id', organisationId).first(['name']),
        db('users').where('id', caller.accountId).first(['email']),
        findDomain(db, organisationId),
      ]);
      const replyTo = user ? normaliseAddress(user.email as string) : null;
      const ownDomain = caller.emailOption && domain?.verified ? domain : null;
      const id = randomUUID();
      const fromAddress = ownDomain ? `${ownDomain.senderLocal}@${ownDomain.domain}` : email.mailFrom;
      const record: EmailRecord & { organisationId: string } = {
        id,
        organisationId,
        createdBy: caller.accountId,
        key,
        contentHash,
        senderKind: ownDomain ? 'domaine_organisation' : 'service',
        fromName: safeDisplayName(String(org?.name ?? '')) || 'Service',
        fromAddress,
        replyTo,
        // Bounces of the organisation's domain come back through its return path (a CNAME to the service's).
        envelopeFrom: ownDomain ? `rebonds@${returnPathHost(ownDomain.domain)}` : email.mailFrom,
        to,
        cc,
        subject,
        body,
        draftId,
        dkimDomain: ownDomain?.domain ?? null,
        dkimSelector: ownDomain?.selector ?? null,
        messageId: `<${id}@${domainOf(fromAddress)}>`,
        state: 'en_attente',
        attempts: 0,
        nextAttemptAt: at.toISOString(),
        leaseUntil: null,
        lastResponse: null,
        createdAt: at.toISOString(),
        sentAt: null,
        updatedAt: at.toISOString(),
        attachments,
      };
      const outcome = await recordEmail(db, record, at);
      if (outcome.kind === 'cap_reached') {
        const nextHour = Math.ceil((at.getTime() + 1) / 3_600_000) * 3_600_000;
        throw new QuotaExceededError(
          "Limite d'envoi atteinte : 100 messages par heure pour l'organisation ; réessayer à l'heure suivante.",
          Math.max(1, Math.ceil((nextHour - at.getTime()) / 1000)),
          { kind: 'tool' },
        );
      }
      if (outcome.kind === 'replay') {
        if (outcome.existing.contentHash !== contentHash)
          throw new ConflictError(`La clé « ${key} » désigne déjà un autre envoi de l'organisation (autres destinataires ou autre contenu) : choisir une autre clé.`);
        return { action: 'envoi', cree: false, courriel: presentEmail(outcome.existing, email.smtpConfigured) };
      }
      return { action: 'envoi', cree: true, courriel: presentEmail(record, email.smtpConfigured) };
    },

    'emails.list': async (args, caller) => {
      if (!caller.organisationId) return { action: 'list', total: 0, items: [], next_cursor: null };
      const organisationId = caller.organisationId;
      const page = await pagedSearch('emails.list', args, cursorKey, (window) => listEmails(db, organisationId, args.etat, window), 20);
      return { action: 'list', total: page.total_estimated, items: page.results.map((m) => presentEmail(m, email.smtpConfigured)), next_cursor: page.next_cursor };
    },

    'emails.domain': async (args, caller) => {
      const organisationId = caller.organisationId as string;
      const answer = (d: DomainRecord | null) => ({ action: args.action, option_courriel: caller.emailOption, domaine: presentDomain(d, caller.emailOption, email.mailFrom) });
      if (args.action === 'consulter') return answer(await findDomain(db, organisationId));
      needsOption(caller);
      if (args.action === 'definir') {
        if (args.domaine === undefined) throw new InvalidArgumentsError(`L'argument « domaine » est obligatoire pour l'action definir.`);
        const domain = args.domaine.trim().toLowerCase().replace(/\.$/, '');
        if (!isHostname(domain)) throw new InvalidArgumentsError(`L'argument « domaine » n'est pas un nom de domaine valide (exemple : entreprise.fr ; un nom accentué sous sa forme xn--).`);
        const senderLocal = args.expediteur ?? DEFAULT_SENDER_LOCAL;
        if (!normaliseAddress(`${senderLocal}@${domain}`)) throw new InvalidArgumentsError(`L'argument « expediteur » ne forme pas une adresse valide avec ce domaine.`);
        const current = await findDomain(db, organisationId);
        if (current?.domain === domain) {
          if (current.senderLocal !== senderLocal) await updateSenderLocal(db, organisationId, senderLocal, now());
          return answer({ ...current, senderLocal });
        }
        return answer(await replaceDomain(db, { organisationId, domain, senderLocal, createdBy: caller.accountId }, now()));
      }
      const current = await findDomain(db, organisationId);
      if (!current) throw new ConflictError(`Aucun domaine d'envoi défini pour l'organisation : appeler d'abord avec l'action definir.`);
      const checks = await checkRecords(email.resolver, current, email.mailFrom);
      return answer(await saveChecks(db, current, checks, now()));
    },
  };
}
