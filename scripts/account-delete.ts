// npm run account:delete -- --email E --yes
// The same erasure as the « Supprimer le compte » page: personal data erased, sessions,
// tokens and grants revoked, authorship of shared objects kept as « compte supprimé ».
import { parseArgs } from 'node:util';
import { recordActivity } from '../src/auth/store/activity-log.js';
import { findUserByEmail } from '../src/auth/store/accounts.js';
import { ORGANISATION_GRACE_DAYS } from '../src/auth/store/team.js';
import { eraseAccount } from '../src/domains/account/erasure.js';
import { fail, withDatabase } from './lib/cli.js';

let values: Record<string, string | boolean | undefined>;
try {
  ({ values } = parseArgs({ options: { email: { type: 'string' }, yes: { type: 'boolean' } }, strict: true }));
} catch (err) {
  fail((err as Error).message);
}
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
