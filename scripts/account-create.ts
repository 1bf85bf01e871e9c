// npm run account:create -- --email E --password P [--organisation NAME] [--role ROLE] [--plan free|subscribed]
import { hashPassword } from '../src/platform/passwords.js';
import { AccountInputError, createAccount } from '../src/auth/store/accounts.js';
import { ROLES, type Plan, type Role } from '../src/access/caller.js';
import { passwordProblem } from '../src/auth/password-policy.js';
import { fail, parseCommandLine, withDatabase } from './lib/cli.js';

const values = parseCommandLine({
  command: 'npm run account:create',
  options: { email: { type: 'string' }, password: { type: 'string' }, organisation: { type: 'string' }, role: { type: 'string' }, plan: { type: 'string' } },
  help: `Crée un compte dans la base de DATABASE_URL (celle du service ; sqlite:./data/service.sqlite par défaut).

  npm run account:create -- --email ADRESSE --password MOT_DE_PASSE [--organisation NOM] [--role RÔLE] [--plan free|subscribed]

  --email          adresse du compte (obligatoire)
  --password       mot de passe, 12 caractères au moins, absent des listes de mots de passe divulgués (obligatoire)
  --organisation   organisation à créer (le compte en est administrateur) ou à rejoindre
  --role           rôle dans l'organisation : ${ROLES.join(', ')}
  --plan           formule de l'organisation : free (gratuite) ou subscribed (abonnée)

Pendant un import, la commande attend son tour d'écriture (l'import lui laisse la place entre deux lots).`,
}).values as Record<string, string | undefined>;
if (!values.email || !values.password) fail('--email et --password sont obligatoires.');
// The sign-up's rule for every account, operators' included.
const weak = passwordProblem(values.password, values.email);
if (weak) fail(weak);
if (values.role && !ROLES.includes(values.role as Role)) fail(`--role doit valoir ${ROLES.join(', ')}.`);
if (values.plan && values.plan !== 'free' && values.plan !== 'subscribed') fail('--plan doit valoir free ou subscribed.');
if ((values.role || values.plan) && !values.organisation) fail('--role et --plan vont avec --organisation.');

try {
  const account = await withDatabase(async (db) =>
    createAccount(
      db,
      {
        email: values.email as string,
        passwordHash: await hashPassword(values.password as string),
        organisation: values.organisation,
        role: values.role as Role | undefined,
        plan: values.plan as Plan | undefined,
      },
      new Date(),
    ),
  );
  console.log(
    `Compte créé : ${account.email}` +
      (account.organisationName ? ` (organisation « ${account.organisationName} », rôle ${account.role}, formule ${account.plan})` : ' (sans organisation)'),
  );
} catch (err) {
  if (err instanceof AccountInputError) fail(err.message);
  throw err;
}
