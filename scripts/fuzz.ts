// npm run fuzz [-- --positive] [--seed N] [--requests N] [--case I]: the schema-derived fuzzer against a
// service of its own (SQLite; TEST_DB=postgres with TEST_DATABASE_URL: a PostgreSQL schema
// of its own), with the tests' default account (subscribed, mcp:read mcp:write, limits out
// of reach). Prints the seed first, then counts by operation and outcome and every
// failure with its replay command; exit code 1 on any failure, 2 on bad options. With
// --positive, only requests the contract says are valid, each of which must be accepted or
// refused for a reason no schema states (scripts/fuzz/positive.ts).
import { randomInt } from 'node:crypto';
import { importFuzzData } from './fuzz/data.js';
import { formatReport } from './fuzz/report.js';
import { runPositive } from './fuzz/positive.js';
import { runFuzz } from './fuzz/run.js';
import { startTestService, usingPostgres } from '../test/helpers/service.js';
import { fail, parseCommandLine } from './lib/cli.js';

function options(): { seed: number; requests: number; only?: number; positive: boolean } {
  const { values } = parseCommandLine({
    command: 'npm run fuzz',
    options: { positive: { type: 'boolean' }, seed: { type: 'string' }, requests: { type: 'string' }, case: { type: 'string' } },
    help: `Envoie des requêtes tirées des schémas du contrat à un service lancé pour l'occasion (SQLite ;
PostgreSQL avec TEST_DB=postgres et TEST_DATABASE_URL) et rend compte de chaque échec avec sa commande
pour le rejouer. Code de sortie 1 au moindre échec, 2 pour des options invalides.

  npm run fuzz -- [--positive] [--seed N] [--requests N] [--case I]

  --positive     requêtes valides selon le contrat seulement : échec pour tout refus que le
                 contrat n'annonce pas

  --seed N       graine, entier de 0 à 4294967295 (au hasard par défaut)
  --requests N   nombre de requêtes (2000 par défaut)
  --case I       rejoue la suite jusqu'au cas I et ne rend compte que de lui`,
  });
  const integer = (name: string): number | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const value = Number(raw);
    if (!/^\d{1,10}$/.test(String(raw)) || value > 2 ** 32 - 1) fail(`--${name} attend un entier de 0 à 4294967295 (reçu : ${String(raw).slice(0, 50)}).`);
    return value;
  };
  const requested = integer('requests');
  return { seed: integer('seed') ?? randomInt(0, 2 ** 32 - 1), requests: requested === undefined ? 2000 : Math.max(2, requested), only: integer('case'), positive: values.positive === true };
}

const { seed, requests, only, positive } = options();
const prefix = usingPostgres ? 'TEST_DB=postgres ' : '';
const replay = (s: number, index?: number) => `${prefix}npm run fuzz -- ${positive ? '--positive ' : ''}--seed ${s} ${index === undefined ? `--requests ${requests}` : `--case ${index}`}`;
console.log(`Graine : ${seed} (${usingPostgres ? 'PostgreSQL' : 'SQLite'}) — rejouer : ${replay(seed, only)}`);

const svc = await startTestService();
let failed: boolean;
try {
  await importFuzzData(svc.db);
  const step = Math.max(1000, Math.round(requests / 20 / 1000) * 1000);
  let next = step;
  const report = await (positive ? runPositive : runFuzz)(
    { url: svc.url, token: svc.token, db: svc.db },
    {
      seed,
      requests,
      only,
      progress: (done) => {
        if (done < next) return;
        next += step;
        console.log(`  … ${done} requêtes`);
      },
    },
  );
  console.log(formatReport(report, replay));
  failed = report.failures.length > 0;
} finally {
  await svc.close();
}
process.exit(failed ? 1 : 0);
