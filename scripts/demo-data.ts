// npm run demo-data -- [--scale small|large] [--out DIR] [--today YYYY-MM-DD] [--seed N]
// Writes deterministic demo files in the real open-data formats (SIRENE, RGE, BOAMP, DECP, BODACC, DVF, Sitadel, and ours).
import { writeDemoData, type DemoScale } from './demo/index.js';
import { parseIsoDay } from './demo/util.js';
import { fail, parseCommandLine } from './lib/cli.js';

const values = parseCommandLine({
  command: 'npm run demo-data',
  options: { scale: { type: 'string' }, out: { type: 'string' }, today: { type: 'string' }, seed: { type: 'string' } },
  help: `Écrit un jeu de données de démonstration déterministe dans les vrais formats des données ouvertes
(SIRENE, RGE, RNE, ratios, BOAMP, DECP, BODACC, DVF, Sitadel…), à importer avec npm run import.

  npm run demo-data -- [--scale small|large] [--out DOSSIER] [--today AAAA-MM-JJ] [--seed N]

  --scale   small (2 000 entreprises, par défaut) ou large (1 000 000 d'entreprises, plusieurs Gio)
  --out     dossier de sortie (data/demo par défaut)
  --today   date du jour des données (par défaut celle de la machine)
  --seed    graine, entier de 0 à 4294967295 (1 par défaut) : même graine et même date, mêmes fichiers`,
}).values as { scale?: string; out?: string; today?: string; seed?: string };
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
    `ventes DVF : ${fmtInt.format(c.ventes)} mutations (${fmtInt.format(c.ventesLignes)} lignes geo-dvf + ${fmtInt.format(c.ventesLignesVariante)} lignes de la variante Etalab).`,
    `permis : ${fmtInt.format(c.permis)} (dont ${fmtInt.format(c.permisAutorises45Jours)} autorisés ces 45 derniers jours).`,
);
console.log(`Total ${size(total)} en ${fmtDec.format(result.durationMs / 1000)} s.`);
