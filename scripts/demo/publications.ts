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
    () => `Avis aux entreprises : une consultation est ouverte pour ${workFor(rng, b, picker.neighbour(rng, b), year).objet.toLowerCase()}. Dossier sur notre profil acheteur.`,
    () => `Fin des travaux d'isolation et de remplacement des menuiseries à l'${school} : des économies d'énergie attendues dès cet hiver.`,
  ];
  return rng.pick(templates)();
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
    line = { id, reseau, auteur: b.nom, date, texte: buyerPost(rng, b, picker, year) };
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
    line = { id, reseau, auteur: company.displayName, date, texte: rng.pick(texts), commune: company.head.commune.code, commune_nom: company.head.commune.nom };
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
