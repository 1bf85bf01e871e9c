// npm run account:plan -- --organisation NAME [--plan free|subscribed] [--email-option yes|no] [--eligible-access yes|no]
import { parseArgs } from 'node:util';
import { setOrganisationPlan, type Plan } from '../src/data/accounts.js';
import { fail, withDatabase } from './lib/cli.js';

let values: Record<string, string | undefined>;
try {
  ({ values } = parseArgs({
    options: { organisation: { type: 'string' }, plan: { type: 'string' }, 'email-option': { type: 'string' }, 'eligible-access': { type: 'string' } },
    strict: true,
  }));
} catch (err) {
  fail((err as Error).message);
}
if (!values.organisation) fail('--organisation est obligatoire.');
if (values.plan && values.plan !== 'free' && values.plan !== 'subscribed') fail('--plan doit valoir free ou subscribed.');
const yesNo = (name: string): boolean | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v !== 'yes' && v !== 'no') fail(`--${name} doit valoir yes ou no.`);
  return v === 'yes';
};
const changes = { plan: values.plan as Plan | undefined, emailOption: yesNo('email-option'), eligibleAccess: yesNo('eligible-access') };
const found = await withDatabase((db) => setOrganisationPlan(db, values.organisation as string, changes));
if (!found) fail(`organisation inconnue : ${values.organisation}`);
console.log(`Organisation « ${values.organisation} » mise à jour.`);
