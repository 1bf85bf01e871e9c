// npm run account:delete -- --email E --yes
// The same erasure as the « Supprimer le compte » page: personal data erased, sessions,
// tokens and grants revoked, authorship of shared objects kept as « compte supprimé ».
import { recordActivity } from '../src/auth/store/activity-log.js';
import { findUserByEmail } from '../src/auth/store/accounts.js';
import { ORGANISATION_GRACE_DAYS } from '../src/auth/store/team.js';
import { eraseAccount } from '../src/domains/account/erasure.js';
import { fail, parseCommandLine, withDatabase } from './lib/cli.js';

const { values } = parseCommandLine({
  command: 'npm run account:delete',
  options: { email: { type: 'string' }, yes: { type: 'boolean' } },
  help: `Supprime un compte de la base de DATABASE_URL, comme la page « Supprimer le compte » : données
personnelles effacées, sessions, jetons et autorisations révoqués ; les objets partagés restent,
signés « compte supprimé ».

  npm run account:delete -- --email ADRESSE --yes

  --email   adresse du compte (obligatoire)
  --yes     confirme la suppression, définitive (obligatoire)`,
});
const email = typeof values.email === 'string' ? values.email.trim().toLowerCase() : '';
if (!email) fail('--email est obligatoire.');
if (!values.yes) fail('la suppression est définitive : ajouter --yes pour confirmer.');

const outcome = await withDatabase(async (db) => {
  const user = await findUserByEmail(db, email);
  if (!user) return { kind: 'not_found' } as const;
  const result = await eraseAccount(db, user.id, new Date(), ORGANISATION_GRACE_DAYS);
  if (result.kind === 'erased') await recordActivity(db, { organisationId: result.organisationId, actorId: null, kind: 'compte_supprime', detail: 'par l’exploitant' }, new Date());
  return result;
});
if (outcome.kind === 'not_found') fail(`aucun compte pour ${email}.`);
if (outcome.kind === 'last_admin') fail(`${email} est le dernier administrateur d'une organisation qui a d'autres membres : nommer d'abord un autre administrateur.`);
console.log(
  `Compte supprimé : ${email}` +
    (outcome.organisationDue ? ` ; c'était le dernier membre de son organisation, supprimée avec son espace de travail dans ${ORGANISATION_GRACE_DAYS} jours.` : '.'),
);
