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

const USAGE = 'options : --positive (requêtes valides selon le contrat seulement), --seed N (graine, entier 0 à 4294967295 ; au hasard par défaut), --requests N (2000 par défaut), --case I (rejoue la suite jusqu’au cas I et ne rend compte que de lui)';

function options(argv: string[]): { seed: number; requests: number; only?: number; positive: boolean } {
  const out: { seed: number; requests: number; only?: number; positive: boolean } = { seed: randomInt(0, 2 ** 32 - 1), requests: 2000, positive: argv.includes('--positive') };
  const args = argv.filter((a) => a !== '--' && a !== '--positive');
  for (let i = 0; i < args.length; i++) {
    const name = args[i] as string;
    const value = Number(args[i + 1]);
    const valid = args[i + 1] !== undefined && Number.isInteger(value) && value >= 0 && value <= 2 ** 32 - 1;
    if (!['--seed', '--requests', '--case'].includes(name) || !valid) {
      console.error(`Erreur : option invalide : ${[name, args[i + 1]].filter(Boolean).join(' ')} (${USAGE}).`);
      process.exit(2);
    }
    if (name === '--seed') out.seed = value;
    if (name === '--requests') out.requests = Math.max(2, value);
    if (name === '--case') out.only = value;
    i += 1;
  }
  return out;
}

const { seed, requests, only, positive } = options(process.argv.slice(2));
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
