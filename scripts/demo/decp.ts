// DECP award data (données essentielles de la commande publique), in the 2019 shape
// ({"marches": [...]}) and the 2024 shape ({"marches": {"marche": [...]}}): winners are
// establishments of the demo companies, buyers the demo communes and departments.
import type { Buyer, BuyerPicker } from './buyers.js';
import type { Company, CompanyIndex, DemoContext, Establishment } from './companies.js';
import { departement } from './communes.js';
import { rngFor, Weighted, type Rng } from './prng.js';
import { FileWriter, isoDay } from './util.js';
import { amount, cpvWithCheck, workFor } from './works.js';

const PROCEDURES = new Weighted<string>([
  ['Procédure adaptée', 68],
  ["Appel d'offres ouvert", 20],
  ['Marché négocié sans publicité ni mise en concurrence préalable', 6],
  ['Procédure concurrentielle avec négociation', 4],
  ['Procédure négociée avec mise en concurrence préalable', 2],
]);
// The 2019 schema's formePrix says how the price moves; the 2024 one says how it is made up.
const FORMES_PRIX_2019 = new Weighted<string>([['Ferme', 45], ['Ferme et actualisable', 20], ['Révisable', 35]]);
const FORMES_PRIX_2024 = new Weighted<string>([['Forfaitaire', 60], ['Unitaire', 25], ['Mixte', 15]]);
const TYPES_PRIX_2024: Readonly<Record<string, string>> = {
  Ferme: 'Définitif ferme',
  'Ferme et actualisable': 'Définitif actualisable',
  Révisable: 'Définitif révisable',
};
const PROCEDURE_2024: Readonly<Record<string, string>> = {
  'Procédure concurrentielle avec négociation': 'Procédure avec négociation',
  'Procédure négociée avec mise en concurrence préalable': 'Procédure avec négociation',
  'Marché négocié sans publicité ni mise en concurrence préalable': 'Marché passé sans publicité ni mise en concurrence préalable',
};

interface Award {
  id: string;
  buyer: Buyer;
  nature: string;
  objet: string;
  cpv: string;
  procedure: string;
  lieu: { code: string; typeCode: string; nom: string };
  dureeMois: number;
  notification: number;
  publication: number;
  montant: number;
  formePrix2019: string;
  formePrix2024: string;
  winners: { company: Company; establishment: Establishment }[];
  offresRecues: number;
}

function winner(rng: Rng, companies: CompanyIndex, buyer: Buyer, nafs: readonly string[], notification: number): { company: Company; establishment: Establishment } {
  let company: Company | undefined;
  for (let attempt = 0; attempt < 6; attempt++) {
    company = companies.company(companies.pick(rng, buyer.region, nafs));
    if (company.creation < notification) break;
  }
  const c = company!;
  // The establishment in the buyer's region when the company has an open one there, else the head office.
  const local = c.establishments.find((e) => e.open && !e.siege && departement(e.commune.departement).region === buyer.region);
  return { company: c, establishment: local && rng.chance(0.5) ? local : c.head };
}

function awardAt(ctx: DemoContext, stream: string, k: number, picker: BuyerPicker, companies: CompanyIndex, idOf: (rng: Rng, year: number, k: number) => string): Award {
  const rng = rngFor(ctx.seed, stream, k);
  // Recent awards are more numerous: ages up to three years, crowding towards today.
  const notification = ctx.today - 3 - Math.floor(Math.pow(rng.next(), 1.6) * 3 * 365);
  const year = new Date(notification * 86_400_000).getUTCFullYear();
  let buyer = picker.pick(rng);
  let work = workFor(rng, buyer, picker.neighbour(rng, buyer), year);
  for (let i = 0; i < 5 && work.typeMarche !== 'TRAVAUX'; i++) {
    buyer = picker.pick(rng);
    work = workFor(rng, buyer, picker.neighbour(rng, buyer), year);
  }
  const publication = Math.min(ctx.today, notification + rng.int(1, 60));
  let objet = work.objet;
  let cpv = work.cpv;
  let nafs = work.nafs;
  let estimate = work.montantEstime;
  if (work.lots.length > 0) {
    const lot = rng.pick(work.lots);
    objet = `${work.objet} — lot ${lot.numero} : ${lot.intitule}`;
    cpv = lot.cpv;
    nafs = lot.nafs;
    estimate = work.montantEstime / work.lots.length;
  }
  const montant = Math.round(amount(rng, Math.max(1000, estimate * 0.6), Math.max(2000, estimate * 1.2)) * 100) / 100;
  const procedure = montant >= 5_538_000 ? "Appel d'offres ouvert" : PROCEDURES.pick(rng);
  const accordCadre = rng.chance(0.08);
  const lieuRoll = rng.next();
  const seat = buyer.seat;
  const lieu =
    buyer.kind === 'departement' || lieuRoll < 0.15
      ? { code: buyer.departement, typeCode: 'Code département', nom: departement(buyer.departement).nom }
      : lieuRoll < 0.6
        ? { code: seat.codePostal, typeCode: 'Code postal', nom: buyer.communeNom }
        : { code: buyer.code, typeCode: 'Code commune', nom: buyer.communeNom };
  const cotraitance = rng.chance(0.08) ? rng.int(2, 3) : 1;
  const winners: { company: Company; establishment: Establishment }[] = [];
  for (let i = 0; i < cotraitance; i++) {
    const w = winner(rng, companies, buyer, nafs, notification);
    if (!winners.some((x) => x.company.siren === w.company.siren)) winners.push(w);
  }
  return {
    id: idOf(rng, year, k),
    buyer,
    nature: accordCadre ? 'Accord-cadre' : 'Marché',
    objet,
    cpv: cpvWithCheck(cpv),
    procedure,
    lieu,
    dureeMois: Math.max(1, work.dureeMois + rng.int(-1, 3)),
    notification,
    publication,
    montant,
    formePrix2019: FORMES_PRIX_2019.pick(rng),
    formePrix2024: FORMES_PRIX_2024.pick(rng),
    winners,
    offresRecues: rng.int(1, 9),
  };
}

function record2019(a: Award): Record<string, unknown> {
  return {
    id: a.id,
    uid: a.buyer.siret + a.id,
    acheteur: { id: a.buyer.siret, nom: a.buyer.nom },
    nature: a.nature,
    objet: a.objet,
    codeCPV: a.cpv,
    procedure: a.procedure,
    lieuExecution: a.lieu,
    dureeMois: a.dureeMois,
    dateNotification: isoDay(a.notification),
    datePublicationDonnees: isoDay(a.publication),
    montant: a.montant,
    formePrix: a.formePrix2019,
    titulaires: a.winners.map((w) => ({
      typeIdentifiant: 'SIRET',
      id: w.establishment.siret,
      denominationSociale: w.company.officialName,
    })),
    modifications: [],
    _type: 'Marché',
  };
}

function record2024(a: Award): Record<string, unknown> {
  return {
    id: a.id,
    acheteur: { id: a.buyer.siret },
    nature: 'Marché',
    objet: a.objet,
    codeCPV: a.cpv,
    techniques: { technique: [a.nature === 'Accord-cadre' ? 'Accord-cadre' : 'Sans objet'] },
    modalitesExecution: { modaliteExecution: [a.nature === 'Accord-cadre' ? 'Bons de commande' : 'Tranches'] },
    considerationsSociales: { considerationSociale: ['Pas de considération sociale'] },
    considerationsEnvironnementales: { considerationEnvironnementale: ['Pas de considération environnementale'] },
    marcheInnovant: false,
    ccag: 'Travaux',
    offresRecues: a.offresRecues,
    attributionAvance: false,
    tauxAvance: 0,
    typeGroupementOperateurs: a.winners.length > 1 ? 'Conjoint' : 'Pas de groupement',
    sousTraitanceDeclaree: false,
    procedure: PROCEDURE_2024[a.procedure] ?? a.procedure,
    lieuExecution: { code: a.lieu.code, typeCode: a.lieu.typeCode },
    dureeMois: a.dureeMois,
    dateNotification: isoDay(a.notification),
    datePublicationDonnees: isoDay(a.publication),
    montant: a.montant,
    typesPrix: { typePrix: [TYPES_PRIX_2024[a.formePrix2019] ?? 'Définitif ferme'] },
    formePrix: a.formePrix2024,
    origineUE: 0,
    origineFrance: 0,
    titulaires: a.winners.map((w) => ({ titulaire: { typeIdentifiant: 'SIRET', id: w.establishment.siret } })),
    modifications: [],
  };
}

export type DecpShape = '2019' | '2024';

/** Writes `count` awards in one of the two DECP shapes. */
export async function writeDecp(
  ctx: DemoContext,
  shape: DecpShape,
  count: number,
  picker: BuyerPicker,
  companies: CompanyIndex,
  path: string,
): Promise<{ rows: number; bytes: number }> {
  const out = await FileWriter.open(path);
  try {
    out.push(shape === '2019' ? '{"marches": [\n' : '{"marches": {"marche": [\n');
    // Buyers number their contracts their own way; ids are unique per buyer.
    const idOf =
      shape === '2019'
        ? (rng: Rng, year: number, k: number): string => (rng.chance(0.5) ? `${year}${String(k + 1).padStart(6, '0')}` : `${year}-${String(k + 1).padStart(6, '0')}`)
        : (rng: Rng, year: number, k: number): string => `${String(year % 100).padStart(2, '0')}${rng.pick(['MT', 'TX', 'AC'])}${String(k + 1).padStart(7, '0')}`;
    for (let k = 0; k < count; k++) {
      const award = awardAt(ctx, `decp-${shape}`, k, picker, companies, idOf);
      const line = JSON.stringify(shape === '2019' ? record2019(award) : record2024(award));
      out.push(k === 0 ? line : `,\n${line}`);
      if (out.full) await out.flush();
    }
    out.push(shape === '2019' ? '\n]}\n' : '\n]}}\n');
    return { rows: count, bytes: await out.close() };
  } catch (err) {
    await out.abort();
    throw err;
  }
}
