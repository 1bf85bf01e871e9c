// Social-network posts of the demo communes, departments and companies in our JSON-lines
// format (contract: PublicationLine): works announced, sites finished, contracts won. The
// post's link on the network (dropped at import), and now and then a telephone number, an
// e-mail or a web address in the text (masked).
import type { Buyer, BuyerPicker } from './buyers.js';
import type { CompanyIndex, DemoContext } from './companies.js';
import { communalBuilding, schoolName, slug, streetName } from './names.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, isoDateTime, isoDay } from './util.js';
import { workFor } from './works.js';

const NETWORKS = new Weighted<string>([
  ['facebook', 35],
  ['linkedin', 22],
  ['x', 12],
  ['instagram', 12],
  ['mastodon', 7],
  ['bluesky', 6],
  ['youtube', 3],
  ['autre', 3],
]);

function buyerPost(rng: Rng, b: Buyer, picker: BuyerPicker, year: number): string {
  const street = streetName(rng, b.region);
  const school = `école ${schoolName(rng)}`;
  const templates = [
    () => `🚧 Travaux de voirie ${street} : réfection de la chaussée et des trottoirs, circulation alternée pendant ${rng.int(2, 6)} semaines. Merci de votre compréhension.`,
    () => `Les travaux de rénovation de la toiture de l'${school} avancent : la couverture sera achevée avant la rentrée. #travaux #école`,
    () => `Le conseil municipal a voté le programme de travaux ${year} : voirie, éclairage public, accessibilité des bâtiments communaux. Le détail sur le site de la commune.`,
    () => `Chantier de la ${communalBuilding(rng, b.region).toLowerCase()} : le marché de travaux a été attribué, démarrage du chantier le mois prochain.`,
    () => {
      // The object's first letter only: the place it names keeps its capital.
      const objet = workFor(rng, b, picker.neighbour(rng, b), year).objet;
      return `Avis aux entreprises : une consultation est ouverte pour ${objet.charAt(0).toLowerCase()}${objet.slice(1)}. Dossier sur notre profil acheteur.`;
    },
    () => `Fin des travaux d'isolation et de remplacement des menuiseries à l'${school} : des économies d'énergie attendues dès cet hiver.`,
  ];
  return rng.pick(templates)();
}

/**
 * What real posts add around their message, so that texts differ in length and wording as
 * real ones do (a demo of a few templates made thousands of posts rank exactly alike for a
 * common query, which no real network does): a greeting, a date, a thank-you, hashtags.
 */
function aroundPost(rng: Rng, place: string, text: string): string {
  const openings = ['', '', 'Info travaux.', 'À noter :', 'Bonne nouvelle !', 'Point d’étape :', 'Rappel :', 'En images :', '📣', '👷'];
  const closings = [
    '',
    '',
    `Merci aux riverains de ${place} pour leur patience.`,
    `Prochaine réunion publique le ${rng.int(1, 28)}/${String(rng.int(1, 12)).padStart(2, '0')} en mairie.`,
    'Les horaires de collecte des déchets ne changent pas.',
    `Stationnement interdit du ${rng.int(1, 14)} au ${rng.int(15, 28)} sur le secteur.`,
    'Le chantier respecte la charte chantier propre.',
    `Coût de l’opération : ${rng.int(40, 900)} 000 € HT, dont subventions de l’État et de la région.`,
    'Pour toute question, passez nous voir à l’accueil.',
  ];
  const tags = ['#chantier', '#travaux', '#collectivités', `#${place.replace(/[^\p{L}]/gu, '')}`, '#BTP', '#rénovation', '#cadredevie', '#mobilité', '#transitionénergétique'];
  const chosen = tags.filter(() => rng.chance(0.25)).join(' ');
  return [rng.pick(openings), text, rng.pick(closings), chosen].filter(Boolean).join(' ');
}

/**
 * What communes and departments post about besides works (most of what an account publishes):
 * events, services, council dates. Without them every demo post spoke of works, and a query
 * on « travaux » matched a quarter of them, which no real account does.
 */
function everydayPost(rng: Rng, b: Buyer): string {
  const place = b.communeNom;
  const posts = [
    `Marché de Noël place de la mairie à ${place} les ${rng.int(1, 20)} et ${rng.int(21, 24)} décembre : artisans, chorale et vin chaud.`,
    `Fête de la musique à ${place} : scène ouverte dès 18 h, inscriptions des groupes à l'accueil de la mairie.`,
    `La médiathèque de ${place} propose un atelier numérique gratuit chaque mercredi après-midi.`,
    `Prochain conseil municipal le ${rng.int(1, 28)}/${String(rng.int(1, 12)).padStart(2, '0')} à 19 h, salle du conseil. Séance publique.`,
    `Collecte des encombrants le ${rng.int(1, 28)} du mois : pensez à vous inscrire.`,
    `Bravo aux jeunes du club de football de ${place} pour leur qualification en coupe régionale !`,
    `Inscriptions scolaires ouvertes pour la rentrée : dossier à retirer en mairie de ${place}.`,
    `Exposition de peinture des artistes de ${place} à la salle des fêtes tout le week-end.`,
    `Don du sang à ${place} le ${rng.int(1, 28)} : chaque don compte.`,
    `La piscine municipale adapte ses horaires pendant les vacances scolaires.`,
    `Cérémonie du 11 Novembre au monument aux morts de ${place} à 11 h.`,
    `Nouveau : le marché du dimanche matin accueille des producteurs locaux à ${place}.`,
  ];
  return rng.pick(posts);
}

export interface PublicationLineOut {
  id: string;
  reseau: string;
  auteur: string;
  date: string;
  texte: string;
  commune?: string;
  commune_nom?: string;
  departement?: string;
  lien?: string;
}

export function publicationAt(ctx: DemoContext, k: number, picker: BuyerPicker, companies: CompanyIndex): PublicationLineOut {
  const rng = rngFor(ctx.seed, 'publication', k);
  const day = ctx.today - 1 - Math.floor(Math.pow(rng.next(), 1.8) * 365);
  const year = new Date(day * 86_400_000).getUTCFullYear();
  const reseau = NETWORKS.pick(rng);
  const b = picker.pick(rng);
  const id = `PUB-${String(k + 1).padStart(6, '0')}`;
  const date = `${isoDateTime(day, rng.int(7 * 3600, 20 * 3600))}Z`;
  let line: PublicationLineOut;
  if (rng.chance(0.65)) {
    // Half of what an account posts is not about works.
    const texte = rng.chance(0.5) ? everydayPost(rng, b) : aroundPost(rng, b.communeNom, buyerPost(rng, b, picker, year));
    line = { id, reseau, auteur: b.nom, date, texte };
    if (b.kind === 'commune') Object.assign(line, { commune: b.code, commune_nom: b.communeNom });
    else line.departement = b.departement;
    if (rng.chance(0.1)) line.texte += ` Renseignements : ${b.telephone}.`;
    if (rng.chance(0.05)) line.texte += ` Plus d'informations sur ${b.url}`;
  } else {
    const company = companies.company(companies.pick(rng, b.region, ['43.91A', '42.11Z', '43.21A', '43.32A', '41.20A']));
    const work = workFor(rng, b, picker.neighbour(rng, b), year);
    const texts = [
      `Fiers d'avoir remporté le marché de travaux « ${work.objet} » auprès de ${b.nom}. Merci pour votre confiance ! #marchéspublics #BTP`,
      `Chantier terminé : ${work.objet.toLowerCase()} pour ${b.nom}. Bravo à nos équipes !`,
      `Nous recrutons un conducteur de travaux et deux compagnons pour nos chantiers ${b.kind === 'commune' ? `autour de ${b.communeNom}` : 'du département'}. Candidature : recrutement@${slug(company.displayName)}.fr`,
      `Retour en images sur le chantier de ${work.objet.toLowerCase()} : toiture, charpente et finitions livrées dans les délais.`,
    ];
    line = { id, reseau, auteur: company.displayName, date, texte: aroundPost(rng, company.head.commune.nom, rng.pick(texts)), commune: company.head.commune.code, commune_nom: company.head.commune.nom };
  }
  line.lien = `https://www.${reseau === 'x' ? 'x.com' : reseau === 'autre' ? 'threads.net' : `${reseau}.com`}/${slug(line.auteur)}/posts/${isoDay(day).replace(/-/g, '')}${k}`;
  return line;
}

export async function writePublications(ctx: DemoContext, count: number, picker: BuyerPicker, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  const out = await FileWriter.open(path);
  try {
    for (let k = 0; k < count; k++) {
      out.push(JSON.stringify(publicationAt(ctx, k, picker, companies)) + '\n');
      if (out.full) await out.flush();
    }
    return { rows: count, bytes: await out.close() };
  } catch (err) {
    await out.abort();
    throw err;
  }
}
