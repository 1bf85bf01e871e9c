// npm run demo-data -- [--scale small|large] [--out DIR] [--today YYYY-MM-DD] [--seed N]
// Writes deterministic demo files in the real open-data formats (SIRENE, RGE, BOAMP, DECP).
import { parseArgs } from 'node:util';
import { writeDemoData, type DemoScale } from './demo/index.js';
import { parseIsoDay } from './demo/util.js';

const USAGE = 'Usage : npm run demo-data -- [--scale small|large] [--out DIR] [--today AAAA-MM-JJ] [--seed N]';

function fail(message: string): never {
  console.error(`Erreur : ${message}`);
  console.error(USAGE);
  process.exit(2);
}

function frenchParseError(err: unknown): string {
  const e = err as { code?: string; message?: string };
  const option = /'([^']+)'/.exec(e.message ?? '')?.[1];
  switch (e.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `option inconnue : ${option ?? '?'}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return `valeur manquante ou invalide pour l'option ${option ?? '?'}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `argument inattendu : ${option ?? '?'}`;
    default:
      return 'arguments invalides';
  }
}

let values: { scale?: string; out?: string; today?: string; seed?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      scale: { type: 'string' },
      out: { type: 'string' },
      today: { type: 'string' },
      seed: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  fail(frenchParseError(err));
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const scale = values.scale ?? 'small';
if (scale !== 'small' && scale !== 'large') fail(`--scale doit valoir small ou large (reçu « ${scale} »).`);
const outDir = values.out ?? 'data/demo';
if (!outDir.trim()) fail('--out ne peut pas être vide.');
if (values.today !== undefined && parseIsoDay(values.today) === null) fail(`--today doit être une date AAAA-MM-JJ valide (reçu « ${values.today} »).`);
let seed = 1;
if (values.seed !== undefined) {
  if (!/^\d{1,10}$/.test(values.seed) || Number(values.seed) > 0xffffffff) fail(`--seed doit être un entier de 0 à 4294967295 (reçu « ${values.seed} »).`);
  seed = Number(values.seed);
}

const fmtInt = new Intl.NumberFormat('fr-FR');
const fmtDec = new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 1 });
function size(bytes: number): string {
  if (bytes >= 1 << 30) return `${fmtDec.format(bytes / (1 << 30))} Gio`;
  if (bytes >= 1 << 20) return `${fmtDec.format(bytes / (1 << 20))} Mio`;
  return `${fmtDec.format(bytes / 1024)} Kio`;
}

const result = await writeDemoData({
  scale: scale as DemoScale,
  outDir,
  today: values.today,
  seed,
  onStep: (message) => console.log(`… ${message}`),
}).catch((err: unknown) => {
  console.error(`Erreur : écriture des données de démonstration impossible : ${(err as Error).message}`);
  process.exit(1);
});

console.log(`Données de démonstration écrites dans ${result.outDir} (échelle ${result.scale}, graine ${result.seed}, date du jour ${result.today}) :`);
const width = Math.max(...result.files.map((f) => f.name.length));
let total = 0;
for (const f of result.files) {
  total += f.bytes;
  console.log(`  ${f.name.padEnd(width)}  ${fmtInt.format(f.rows).padStart(11)} enregistrements  ${size(f.bytes).padStart(10)}`);
}
const c = result.counts;
console.log(
  `Entreprises : ${fmtInt.format(c.entreprises)} ; établissements : ${fmtInt.format(c.etablissements)} ; qualifications RGE : ${fmtInt.format(c.rge)} ; ` +
    `avis : ${fmtInt.format(c.avis)} ; attributions : ${fmtInt.format(c.attributions2019)} (format 2019) + ${fmtInt.format(c.attributions2024)} (format 2024) ; ` +
    `délibérations : ${fmtInt.format(c.deliberations)} ; publications : ${fmtInt.format(c.publications)} ; contacts : ${fmtInt.format(c.contacts)}.`,
);
console.log(`Total ${size(total)} en ${fmtDec.format(result.durationMs / 1000)} s.`);
