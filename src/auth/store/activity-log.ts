// The administrators' activity log: who did what in the organisation, when, from which
// network. The full client address is kept 30 days (then blanked by the hourly sweep); the
// network (/24 for IPv4, /48 for IPv6) stays. Never a password, a token or a link.
import { isIPv4, isIPv6 } from 'node:net';
import type { Database } from '../../platform/db/database.js';

export type ActivityKind =
  | 'inscription'
  | 'connexion'
  | 'connexion_echouee'
  | 'invitation'
  | 'invitation_revoquee'
  | 'invitation_acceptee'
  | 'role_modifie'
  | 'membre_retire'
  | 'depart'
  | 'acces_ia_accorde'
  | 'acces_ia_deconnecte'
  | 'mot_de_passe_modifie'
  | 'mot_de_passe_reinitialise'
  | 'adresse_modifiee'
  | 'compte_supprime'
  | 'export';

export const ACTIVITY_LABELS: Record<ActivityKind, string> = {
  inscription: 'Inscription',
  connexion: 'Connexion',
  connexion_echouee: 'Connexion échouée',
  invitation: 'Invitation envoyée',
  invitation_revoquee: 'Invitation révoquée',
  invitation_acceptee: 'Invitation acceptée',
  role_modifie: 'Rôle modifié',
  membre_retire: 'Membre retiré',
  depart: 'Départ de l’organisation',
  acces_ia_accorde: 'Accès IA accordé',
  acces_ia_deconnecte: 'Accès IA déconnecté',
  mot_de_passe_modifie: 'Mot de passe modifié',
  mot_de_passe_reinitialise: 'Mot de passe réinitialisé',
  adresse_modifiee: 'Adresse électronique modifiée',
  compte_supprime: 'Compte supprimé',
  export: 'Export des données',
};

/** The full address is kept this long. */
export const FULL_ADDRESS_DAYS = 30;

/** The network of an address: « IPv4 203.0.113.0/24 », « IPv6 2001:db8:1::/48 ». */
export function networkOf(ip: string): string | null {
  const address = ip.startsWith('::ffff:') && isIPv4(ip.slice(7)) ? ip.slice(7) : ip;
  if (isIPv4(address)) return `IPv4 ${address.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIPv6(address)) {
    const [head = ''] = address.split('::');
    const groups = head.split(':').filter(Boolean).slice(0, 3);
    return `IPv6 ${groups.join(':')}::/48`;
  }
  return null;
}

export interface ActivityEntry {
  organisationId: string | null;
  actorId: string | null;
  subjectId?: string | null;
  kind: ActivityKind;
  detail?: string | null;
  ip?: string | null;
}

export async function recordActivity(db: Database, entry: ActivityEntry, now: Date): Promise<void> {
  // Only what an organisation's administrators can read: an account without organisation has no log.
  if (!entry.organisationId) return;
  await db('activity_log').insert({
    organisation_id: entry.organisationId,
    actor_id: entry.actorId,
    subject_id: entry.subjectId ?? null,
    kind: entry.kind,
    detail: entry.detail?.slice(0, 300) ?? null,
    ip: entry.ip?.slice(0, 45) ?? null,
    network: entry.ip ? networkOf(entry.ip) : null,
    at: now.toISOString(),
  });
}

export interface ActivityRow {
  at: string;
  kind: ActivityKind;
  actorEmail: string | null;
  actorId: string | null;
  subjectEmail: string | null;
  subjectId: string | null;
  detail: string | null;
  ip: string | null;
  network: string | null;
}

/** The latest entries of the organisation, newest first. */
export async function listActivity(db: Database, organisationId: string, limit: number): Promise<ActivityRow[]> {
  const rows = await db('activity_log as a')
    .leftJoin('users as actor', 'actor.id', 'a.actor_id')
    .leftJoin('users as subject', 'subject.id', 'a.subject_id')
    .where('a.organisation_id', organisationId)
    .orderBy([{ column: 'a.at', order: 'desc' }, { column: 'a.id', order: 'desc' }])
    .limit(limit)
    .select('a.at', 'a.kind', 'a.actor_id', 'a.subject_id', 'a.detail', 'a.ip', 'a.network', 'actor.email as actor_email', 'subject.email as subject_email');
  return rows.map((r) => ({
    at: r.at as string,
    kind: r.kind as ActivityKind,
    actorId: (r.actor_id as string | null) ?? null,
    actorEmail: (r.actor_email as string | null) ?? null,
    subjectId: (r.subject_id as string | null) ?? null,
    subjectEmail: (r.subject_email as string | null) ?? null,
    detail: (r.detail as string | null) ?? null,
    ip: (r.ip as string | null) ?? null,
    network: (r.network as string | null) ?? null,
  }));
}

/** Blanks the full addresses older than 30 days; returns how many. */
export async function blankOldAddresses(db: Database, now: Date): Promise<number> {
  const before = new Date(now.getTime() - FULL_ADDRESS_DAYS * 86_400_000).toISOString();
  return db('activity_log').whereNotNull('ip').andWhere('at', '<', before).update({ ip: null });
}
