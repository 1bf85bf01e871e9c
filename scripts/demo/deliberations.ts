// Council minutes of the demo communes in our JSON-lines format (contract:
// DeliberationLine): public works voted by the councils (roofs, roads, schools, works
// contracts awarded to demo companies), the source document's address on the commune's site
// (dropped at import), and now and then a telephone number or an e-mail in the text (masked).
import type { Buyer, BuyerPicker } from './buyers.js';
import type { CompanyIndex, DemoContext } from './companies.js';
import { familyName, firstName } from './names.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, isoDay } from './util.js';
import { workFor } from './works.js';

const euros = (n: number) => `${new Intl.NumberFormat('fr-FR', { maximumFractionDigits: 0 }).format(n).replace(/\u202f/g, ' ')} €`;
const frenchDay = (day: number) => {
  const [y, m, d] = isoDay(day).split('-');
  return `${d}/${m}/${y}`;
};

const KINDS = new Weighted<'attribution' | 'programme' | 'subvention' | 'avenant'>([
  ['attribution', 45],
  ['programme', 30],
  ['subvention', 15],
  ['avenant', 10],
]);

/** The communes among the buyers (the departments hold no municipal council), by their weight. */
export class CommunePicker {
  private readonly weighted: Weighted<Buyer>;
  constructor(picker: BuyerPicker) {
    this.weighted = new Weighted(picker.buyers.filter((b) => b.kind === 'commune').map((b) => [b, b.poids] as const));
  }
  pick(rng: Rng): Buyer {
    return this.weighted.pick(rng);
  }
}

function mayor(rng: Rng, b: Buyer): string {
  const sexe = rng.chance(0.4) ? 'F' : 'M';
  return `${sexe === 'F' ? 'Madame' : 'Monsieur'} ${firstName(rng, sexe)} ${familyName(rng, b.region)}, maire`;
}

export interface DeliberationLineOut {
  id: string;
  commune: string;
  commune_nom: string;
  date_seance: string;
  numero: string;
  titre: string;
  texte: string;
  source: string;
  url?: string;
}

export function deliberationAt(ctx: DemoContext, k: number, communes: CommunePicker, picker: BuyerPicker, companies: CompanyIndex): DeliberationLineOut {
  const rng = rngFor(ctx.seed, 'deliberation', k);
  const b = communes.pick(rng);
  const day = ctx.today - 1 - Math.floor(Math.pow(rng.next(), 1.5) * 2 * 365);
  const year = new Date(day * 86_400_000).getUTCFullYear();
  const work = workFor(rng, b, picker.neighbour(rng, b), year);
  const kind = KINDS.pick(rng);
  const numero = `${year}-${String(rng.int(1, 180)).padStart(3, '0')}`;
  const montant = Math.round(work.montantEstime * (0.85 + rng.next() * 0.3));
  const objet = work.objet.charAt(0).toLowerCase() + work.objet.slice(1);
  const company = companies.company(companies.pick(rng, b.region, work.nafs.length ? work.nafs : ['43.91A']));
  const rapporteur = mayor(rng, b);
  const titles: Record<typeof kind, string> = {
    attribution: `Attribution du marché de travaux : ${objet}`,
    programme: `Approbation du programme et du plan de financement : ${objet}`,
    subvention: `Demande de subvention (DETR, DSIL) pour ${objet}`,
    avenant: `Avenant n° ${rng.int(1, 3)} au marché de travaux : ${objet}`,
  };
  const paragraphs = [
    `Séance du conseil municipal ${b.nom.replace(/^(Ville|Commune) /, '')} du ${frenchDay(day)}. Rapporteur : ${rapporteur}.`,
    'Vu le code général des collectivités territoriales, notamment son article L. 2121-29 ; vu le code de la commande publique ;',
    `${work.description} Le coût prévisionnel de l'opération est estimé à ${euros(work.montantEstime)} HT.`,
  ];
  if (work.lots.length) paragraphs.push(`L'opération est allotie : ${work.lots.map((l) => `lot ${l.numero} ${l.intitule.toLowerCase()}`).join(', ')}.`);
  if (kind === 'attribution')
    paragraphs.push(
      `Après analyse des offres par la commission d'appel d'offres, l'offre économiquement la plus avantageuse est celle de l'entreprise ${company.displayName}, pour un montant de ${euros(montant)} HT.`,
      `Après en avoir délibéré, le conseil municipal, ${rng.chance(0.8) ? "à l'unanimité" : 'à la majorité des suffrages exprimés'}, attribue le marché de travaux à l'entreprise ${company.displayName} et autorise le maire à le signer.`,
    );
  else if (kind === 'programme')
    paragraphs.push(
      `Les travaux débuteront au ${rng.pick(['premier', 'deuxième', 'troisième', 'quatrième'])} trimestre ${year + (rng.chance(0.5) ? 1 : 0)} pour une durée de ${work.dureeMois} mois ; une consultation des entreprises sera lancée en procédure adaptée.`,
      "Après en avoir délibéré, le conseil municipal approuve le programme de l'opération et son plan de financement, et autorise le maire à lancer la consultation.",
    );
  else if (kind === 'subvention')
    paragraphs.push(
      `Le plan de financement prévoit une subvention de l'État de ${rng.int(20, 40)} % et un autofinancement de la commune pour le solde.`,
      "Après en avoir délibéré, le conseil municipal sollicite les subventions au taux le plus élevé possible et autorise le maire à signer toute pièce s'y rapportant.",
    );
  else
    paragraphs.push(
      `Des travaux supplémentaires sont apparus nécessaires en cours de chantier ; l'avenant porte le montant du marché conclu avec l'entreprise ${company.displayName} à ${euros(montant)} HT.`,
      "Après en avoir délibéré, le conseil municipal approuve l'avenant et autorise le maire à le signer.",
    );
  // Now and then the minutes give a way to reach a service: masked at import.
  if (rng.chance(0.1)) paragraphs.push(`Renseignements auprès des services techniques : ${b.telephone} ou ${b.email}.`);
  const line: DeliberationLineOut = {
    id: `DELIB-${String(k + 1).padStart(6, '0')}`,
    commune: b.code,
    commune_nom: b.communeNom,
    date_seance: isoDay(day),
    numero: `DEL-${numero}`,
    titre: titles[kind],
    texte: paragraphs.join('\n\n'),
    source: 'Registre des délibérations publié par la commune',
  };
  if (rng.chance(0.6)) line.url = `${b.url}/deliberations/${numero}.pdf`;
  return line;
}

export async function writeDeliberations(ctx: DemoContext, count: number, picker: BuyerPicker, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  const out = await FileWriter.open(path);
  const communes = new CommunePicker(picker);
  try {
    for (let k = 0; k < count; k++) {
      out.push(JSON.stringify(deliberationAt(ctx, k, communes, picker, companies)) + '\n');
      if (out.full) await out.flush();
    }
    return { rows: count, bytes: await out.close() };
  } catch (err) {
    await out.abort();
    throw err;
  }
}
