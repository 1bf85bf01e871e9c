// npm run account:create -- --email E --password P [--organisation NAME] [--role ROLE] [--plan free|subscribed]
import { parseArgs } from 'node:util';
import { hashPassword } from '../src/platform/passwords.js';
import { AccountInputError, createAccount } from '../src/auth/store/accounts.js';
import { ROLES, type Plan, type Role } from '../src/access/caller.js';
import { passwordProblem } from '../src/auth/password-policy.js';
import { fail, withDatabase } from './lib/cli.js';

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: { email: { type: 'string' }, password: { type: 'string' }, organisation: { type: 'string' }, role: { type: 'string' }, plan: { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
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
