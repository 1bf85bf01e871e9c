// npm run account:plan -- --organisation NAME [--plan free|subscribed] [--calls-per-minute N] [--calls-per-day N]
//   [--files-per-day N] [--reset-limits] [--email-option yes|no] [--eligible-access yes|no]
// Changes take effect on the next call.
import { setOrganisationPlan, type PlanChanges } from '../src/auth/store/accounts.js';
import type { Plan } from '../src/access/caller.js';
import { fail, parseCommandLine, withDatabase } from './lib/cli.js';

const { values } = parseCommandLine({
  command: 'npm run account:plan',
  help: `Change la formule, les limites ou les options d'une organisation, dans la base de DATABASE_URL ;
effet au prochain appel.

  npm run account:plan -- --organisation NOM [--plan free|subscribed] [--calls-per-minute N] [--calls-per-day N]
                          [--files-per-day N] [--reset-limits] [--email-option yes|no] [--eligible-access yes|no]

  --organisation       nom de l'organisation (obligatoire)
  --plan               free (gratuite) ou subscribed (abonnée)
  --calls-per-minute   appels par minute (contrat négocié)
  --calls-per-day      appels par jour
  --files-per-day      fichiers distincts ouverts par jour
  --reset-limits       revient aux limites de la formule
  --email-option       option d'envoi de courriels : yes ou no
  --eligible-access    accès éligible (ouvre certaines actions de la formule abonnée) : yes ou no`,
  options: {
    organisation: { type: 'string' },
    plan: { type: 'string' },
    'calls-per-minute': { type: 'string' },
    'calls-per-day': { type: 'string' },
    'files-per-day': { type: 'string' },
    'reset-limits': { type: 'boolean' },
    'email-option': { type: 'string' },
    'eligible-access': { type: 'string' },
  },
});
const organisation = values.organisation;
if (typeof organisation !== 'string' || !organisation) fail('--organisation est obligatoire.');
if (values.plan !== undefined && values.plan !== 'free' && values.plan !== 'subscribed') fail('--plan doit valoir free ou subscribed.');
const yesNo = (name: string): boolean | undefined => {
  const v = values[name];
  if (v === undefined) return undefined;
  if (v !== 'yes' && v !== 'no') fail(`--${name} doit valoir yes ou no.`);
  return v === 'yes';
};
const limit = (name: string): number | null | undefined => {
  const v = values[name];
  if (v === undefined) return values['reset-limits'] ? null : undefined;
  if (values['reset-limits']) fail(`--${name} et --reset-limits s’excluent.`);
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000_000) fail(`--${name} doit être un entier positif ou nul.`);
  return n;
};
const changes: PlanChanges = {
  plan: values.plan as Plan | undefined,
  emailOption: yesNo('email-option'),
  eligibleAccess: yesNo('eligible-access'),
  callsPerMinute: limit('calls-per-minute'),
  callsPerDay: limit('calls-per-day'),
  filesPerDay: limit('files-per-day'),
};
const found = await withDatabase((db) => setOrganisationPlan(db, organisation, changes));
if (!found) fail(`organisation inconnue : ${organisation}`);
console.log(`Organisation « ${organisation} » mise à jour ; effet au prochain appel.`);
