// The options of `npm run bench`: which parts run, on which engines, at which scale; and the
// help that lists them (French, as every message of the command line).
import type { Engine } from './engines.js';

export const PARTS = ['appel', 'dce', 'evenements', 'robot', 'espace', 'sync', 'moteurs', 'large', 'recherches', 'national'] as const;
export type Part = (typeof PARTS)[number];

export interface BenchOptions {
  parts: Set<Part>;
  engines: Engine[];
  /** The national set's size, as a share of the publishers' volumes (1: full size). */
  scaleFactor: number;
}

export const HELP = `npm run bench [-- options] : mesures de débit et de latence, imprimées à côté de leurs objectifs
(jamais vérifiées par les tests). Machine de référence : 2 cœurs.

Parties (toutes par défaut, sauf « national ») :
  appel       appel admis (authentification + quota) à côté d'un serveur node:http nu, sur les
              moteurs de --engine, le service en un processus puis avec WORKERS par défaut
  dce         dossiers de consultation : extraction, dce.read, mémoire d'une archive de 200 Mo
  evenements  events.poll d'une page pleine (100 événements)
  robot       robot des alertes : 10 000 alertes × 10 000 documents nouveaux
  espace      suivis.create à 20 connexions
  sync        synchronisation contre des rejeux des API des producteurs
  moteurs     SQLite et PostgreSQL côte à côte sur le jeu de démonstration : appel admis
              (1 compte et plusieurs), entreprises.get, recherches, events.poll, suivis.create,
              robot et imports ; objectif : PostgreSQL à moins de 2× de SQLite partout
  large       jeu large (1 million d'entreprises, 300 000 avis, SQLite) : imports, entreprises.get,
              recherches (~7 à 15 min, plus ~5,5 min de génération)
  recherches  les quatre recherches par mots sous charge (20 connexions) sur le jeu large, flux
              de milliers de requêtes distinctes tirées selon une loi de Zipf, sur les moteurs
              de --engine, avec un processus puis un par cœur (BENCH_SEARCH_WORKERS pour
              d'autres nombres), taux de réponses servies par le cache et CPU par appel ; avec la partie « large »
              par défaut (BENCH_DATA_DIR garde aussi les bases construites)
  national    volumes nationaux sur PostgreSQL (seulement avec --scale national)

Options :
  --help                      cette aide
  --engine sqlite|postgres|both
                              moteurs des parties « appel », « moteurs » et « recherches » (défaut : both) ; PostgreSQL :
                              BENCH_DATABASE_URL (défaut postgres://postgres@127.0.0.1:5432/test),
                              un schéma par exécution, supprimé à la fin
  --only=PARTIE[,PARTIE…]     seulement ces parties (ex. --only=moteurs)
  --no-large                  sans les parties « large » et « recherches » (aussi BENCH_LARGE=0)
  --large                     avec les parties « large » et « recherches » (défaut)
  --scale national            volumes des producteurs (10 M d'entreprises, 15 M d'établissements,
                              2 M d'avis, 2 M d'attributions, 10 M d'annonces BODACC, 5 M de ventes)
                              générés en flux et importés dans PostgreSQL, puis recherches et
                              entreprises.get à 1 et 20 connexions, et place disque par table et index ;
                              hors intégration continue (plusieurs heures à l'échelle 1) ; seule cette
                              partie est alors mesurée
  --scale-factor F            fraction des volumes nationaux (0 < F ≤ 1, défaut 1 ; ex. 0.05)

Variables : BENCH_SECONDS (durée d'une mesure, défaut 10), BENCH_CONNECTIONS (défaut 20),
BENCH_ACCOUNTS (comptes de l'appel réparti, défaut 16), BENCH_DATA_DIR (jeu large gardé),
BENCH_NATIONAL_DIR (jeu national gardé).`;

/** The options, or a French error naming what is wrong, or a request for the help. */
export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions | { error: string } | { help: true } {
  const args = argv.filter((a) => a !== '--');
  let only: Part[] | null = null;
  let large: boolean | null = null;
  let engines: Engine[] = ['sqlite', 'postgres'];
  let scale: 'demo' | 'national' = 'demo';
  let scaleFactor: number | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | null => {
      if (inline !== undefined) return inline;
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) return null;
      i++;
      return next;
    };
    switch (name) {
      case '--help':
      case '-h':
        return { help: true };
      case '--large':
        large = true;
        break;
      case '--no-large':
        large = false;
        break;
      case '--only': {
        const v = value();
        if (!v) return { error: `--only attend une ou plusieurs parties séparées par des virgules (${PARTS.join(', ')}).` };
        const parts = v.split(',').map((p) => p.trim());
        const unknown = parts.filter((p) => !(PARTS as readonly string[]).includes(p));
        if (unknown.length) return { error: `partie inconnue : ${unknown.join(', ')} (parties : ${PARTS.join(', ')}).` };
        only = parts as Part[];
        break;
      }
      case '--engine': {
        const v = value();
        if (v === 'both') engines = ['sqlite', 'postgres'];
        else if (v === 'sqlite' || v === 'postgres') engines = [v];
        else return { error: `--engine attend sqlite, postgres ou both${v ? ` (reçu « ${v} »)` : ''}.` };
        break;
      }
      case '--scale': {
        const v = value();
        if (v !== 'national') return { error: `--scale n'accepte que « national »${v ? ` (reçu « ${v} »)` : ''}.` };
        scale = 'national';
        break;
      }
      case '--scale-factor': {
        const v = value();
        const n = Number(v);
        if (!v || !Number.isFinite(n) || n <= 0 || n > 1) return { error: `--scale-factor attend un nombre de 0 (exclu) à 1${v ? ` (reçu « ${v} »)` : ''}.` };
        scaleFactor = n;
        break;
      }
      default:
        return { error: `option inconnue : ${arg}` };
    }
  }
  if ((only?.includes('large') || only?.includes('recherches')) && large === false) return { error: `--only=${only.join(',')} et --no-large sont incompatibles.` };
  if (scaleFactor !== null && scale !== 'national' && !only?.includes('national')) return { error: '--scale-factor ne vaut qu’avec --scale national.' };
  if (only?.includes('national') && scale !== 'national') scale = 'national';
  if (scale === 'national') {
    if (only && only.some((p) => p !== 'national')) return { error: '--scale national mesure la partie « national » seule.' };
    return { parts: new Set<Part>(['national']), engines, scaleFactor: scaleFactor ?? 1 };
  }
  const withLarge = large ?? env.BENCH_LARGE !== '0';
  const parts = new Set<Part>(only ?? PARTS.filter((p) => p !== 'national' && ((p !== 'large' && p !== 'recherches') || withLarge)));
  return { parts, engines, scaleFactor: 1 };
}
