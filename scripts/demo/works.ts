// What public buyers put out to tender: notice objects that read like real ones, their
// lots, CPV codes (division 45 for works) and the NAF trades able to carry them out.
import { CPV_DIVISION_45, cpvCheckDigit } from '../../src/domains/reference/lists.js';
import type { Buyer } from './buyers.js';
import { aCommune, deCommune } from './communes.js';
import { communalBuilding, deBuilding, saintName, schoolName, streetName } from './names.js';
import type { Rng } from './prng.js';

export type TypeMarche = 'TRAVAUX' | 'SERVICES' | 'FOURNITURES';

interface Trade {
  label: string;
  cpv: string;
  nafs: readonly string[];
  descripteur: string;
}

const t = (label: string, cpv: string, nafs: readonly string[], descripteur: string): Trade => ({ label, cpv, nafs, descripteur });

/** The trades of building works, as lots are named in French notices. */
const TRADES = {
  demolition: t('démolition, désamiantage', '45111000', ['43.11Z', '43.12A'], 'Démolition'),
  terrassement: t('terrassement, VRD', '45112000', ['43.12A', '43.12B', '42.11Z'], 'Terrassement'),
  grosOeuvre: t('gros œuvre, maçonnerie', '45210000', ['43.99C', '41.20B', '41.20A'], 'Maçonnerie'),
  charpente: t('charpente bois', '45422000', ['43.91A'], 'Charpente'),
  couverture: t('charpente, couverture, zinguerie', '45261000', ['43.91B', '43.91A'], 'Couverture'),
  etancheite: t('étanchéité', '45260000', ['43.99A', '43.91B'], 'Étanchéité'),
  menExt: t('menuiseries extérieures', '45421000', ['43.32A', '43.32B'], 'Menuiserie'),
  menInt: t('menuiseries intérieures', '45421000', ['43.32A', '43.32C'], 'Menuiserie'),
  platrerie: t('cloisons, doublages, faux plafonds', '45324000', ['43.31Z', '43.29A'], 'Plâtrerie'),
  electricite: t('électricité courants forts et courants faibles', '45311000', ['43.21A'], 'Électricité'),
  plomberie: t('plomberie, sanitaires', '45330000', ['43.22A'], 'Plomberie'),
  cvc: t('chauffage, ventilation, climatisation', '45331000', ['43.22B', '43.22A'], 'Chauffage'),
  sols: t('revêtements de sols souples', '45432000', ['43.33Z'], 'Revêtement de sols'),
  carrelage: t('carrelage, faïence', '45431000', ['43.33Z'], 'Carrelage'),
  peinture: t('peinture, revêtements muraux', '45440000', ['43.34Z'], 'Peinture'),
  ite: t("isolation thermique par l'extérieur", '45321000', ['43.29A', '43.99D', '43.34Z'], 'Isolation'),
  ravalement: t('ravalement de façades', '45443000', ['43.99D', '43.34Z'], 'Ravalement'),
  serrurerie: t('serrurerie, métallerie', '45340000', ['43.32B', '43.99B'], 'Serrurerie'),
  ascenseur: t('ascenseur', '45313000', ['43.29B'], 'Ascenseur'),
  photovoltaique: t('centrale photovoltaïque en toiture', '45310000', ['43.21A'], 'Photovoltaïque'),
  voirie: t('voirie, enrobés', '45233000', ['42.11Z', '43.12A'], 'Voirie'),
  reseaux: t('réseaux secs et humides', '45232000', ['42.21Z', '42.22Z'], 'Réseaux'),
  espacesVerts: t('espaces verts, mobilier urbain', '45112000', ['43.12A', '43.99D'], 'Aménagement paysager'),
  restauration: t('maçonnerie, pierre de taille', '45453000', ['43.99C', '43.99D'], 'Restauration du patrimoine'),
} as const;

type TradeKey = keyof typeof TRADES;

export interface Lot {
  numero: number;
  intitule: string;
  cpv: string;
  nafs: readonly string[];
}

export interface Work {
  objet: string;
  typeMarche: TypeMarche;
  /** Main CPV code, 8 digits. */
  cpv: string;
  lots: Lot[];
  descripteurs: string[];
  /** Trades able to win it (NAF codes), for works. */
  nafs: readonly string[];
  description: string;
  /** Rough estimate of the whole contract, euros excluding tax. */
  montantEstime: number;
  dureeMois: number;
}

function lotsOf(keys: readonly TradeKey[]): Lot[] {
  return keys.map((k, i) => ({ numero: i + 1, intitule: TRADES[k].label, cpv: TRADES[k].cpv, nafs: TRADES[k].nafs }));
}

function single(rng: Rng, objet: string, key: TradeKey, low: number, high: number, description: string): Work {
  const trade = TRADES[key];
  return {
    objet,
    typeMarche: 'TRAVAUX',
    cpv: trade.cpv,
    lots: [],
    descripteurs: [trade.descripteur],
    nafs: trade.nafs,
    description,
    montantEstime: amount(rng, low, high),
    dureeMois: rng.int(1, 6),
  };
}

function multi(rng: Rng, objet: string, mainCpv: string, keys: readonly TradeKey[], low: number, high: number, description: string): Work {
  const lots = lotsOf(keys);
  return {
    objet,
    typeMarche: 'TRAVAUX',
    cpv: mainCpv,
    lots,
    descripteurs: [...new Set(keys.map((k) => TRADES[k].descripteur))].slice(0, 4),
    nafs: [...new Set(lots.flatMap((l) => l.nafs))],
    description,
    montantEstime: amount(rng, low, high),
    dureeMois: rng.int(6, 24),
  };
}

/** A log-uniform amount between low and high, rounded like estimates are. */
export function amount(rng: Rng, low: number, high: number): number {
  const v = Math.exp(Math.log(low) + rng.next() * (Math.log(high) - Math.log(low)));
  return v > 100_000 ? Math.round(v / 1000) * 1000 : Math.round(v / 100) * 100;
}

function subset(rng: Rng, keys: readonly TradeKey[], min: number): TradeKey[] {
  const kept = keys.filter(() => rng.chance(0.75));
  return kept.length >= min ? kept : keys.slice(0, min);
}

const REHAB: readonly TradeKey[] = ['demolition', 'grosOeuvre', 'couverture', 'menExt', 'menInt', 'platrerie', 'electricite', 'plomberie', 'cvc', 'sols', 'peinture'];
const NEUF: readonly TradeKey[] = ['terrassement', 'grosOeuvre', 'charpente', 'couverture', 'etancheite', 'menExt', 'menInt', 'platrerie', 'electricite', 'plomberie', 'cvc', 'carrelage', 'sols', 'peinture', 'espacesVerts'];
const THERMIQUE: readonly TradeKey[] = ['ite', 'menExt', 'couverture', 'cvc', 'electricite', 'platrerie'];

const NEW_BUILDINGS = [
  ["d'un pôle enfance", '45214000'],
  ["d'une salle multisports", '45212000'],
  ["d'un centre technique municipal", '45213000'],
  ["d'une maison de santé pluridisciplinaire", '45215000'],
  ["d'un restaurant scolaire", '45214000'],
  ["d'une médiathèque", '45212000'],
  ["d'un accueil de loisirs sans hébergement", '45214000'],
  ['de vestiaires sportifs', '45212000'],
  ['de logements locatifs sociaux', '45211000'],
  ["d'une caserne de pompiers", '45216000'],
] as const;

function communeWork(rng: Rng, buyer: Buyer, year: number): Work {
  const b = communalBuilding(rng, buyer.region);
  const deB = deBuilding(b);
  const roll = rng.next();
  if (roll < 0.1) return single(rng, `Réfection de la toiture ${deB}`, 'couverture', 25_000, 400_000, `Dépose de la couverture existante, traitement de la charpente et réfection complète de la couverture ${deB}.`);
  if (roll < 0.17) return single(rng, `Remplacement des menuiseries extérieures ${deB}`, 'menExt', 20_000, 350_000, `Fourniture et pose de menuiseries aluminium à rupture de pont thermique ${deB}.`);
  if (roll < 0.22) return single(rng, `Ravalement des façades ${deB}`, 'ravalement', 15_000, 250_000, `Nettoyage, traitement des fissures et mise en peinture des façades ${deB}.`);
  if (roll < 0.27) return single(rng, `Remplacement de la chaudière ${deB} par une pompe à chaleur`, 'cvc', 30_000, 300_000, `Dépose de la chaufferie fioul et installation d'une pompe à chaleur air-eau ${deB}.`);
  if (roll < 0.31) return single(rng, `Installation de panneaux photovoltaïques sur la toiture ${deB}`, 'photovoltaique', 30_000, 400_000, `Centrale photovoltaïque en autoconsommation sur la toiture ${deB}.`);
  if (roll < 0.34) return single(rng, `Mise en conformité électrique ${deB}`, 'electricite', 10_000, 150_000, `Reprise des tableaux et des circuits électriques ${deB}.`);
  if (roll < 0.37) return single(rng, `Désamiantage et démolition ${deB}`, 'demolition', 30_000, 500_000, `Retrait des matériaux amiantés puis démolition ${deB}.`);
  if (roll < 0.4) return single(rng, `Isolation des combles ${deB}`, 'platrerie', 8_000, 90_000, `Isolation des combles perdus par soufflage de laine minérale ${deB}.`);
  if (roll < 0.43) return single(rng, `Étanchéité de la toiture-terrasse ${deB}`, 'etancheite', 15_000, 200_000, `Réfection de l'étanchéité et de l'isolation de la toiture-terrasse ${deB}.`);
  if (roll < 0.46) return single(rng, `Travaux de peinture intérieure ${deB}`, 'peinture', 8_000, 120_000, `Préparation des supports et mise en peinture des locaux ${deB}.`);
  if (roll < 0.55) {
    const keys = subset(rng, REHAB, 5);
    return multi(rng, `${rng.pick(['Réhabilitation', 'Rénovation', 'Restructuration', 'Extension et réhabilitation'])} ${deB}`, '45454000', keys, 300_000, 4_000_000, `Travaux de réhabilitation ${deB} en ${keys.length} lots séparés.`);
  }
  if (roll < 0.62) {
    const keys = subset(rng, THERMIQUE, 3);
    const base = `Rénovation énergétique ${deB}`;
    if (rng.chance(0.4)) {
      const k = rng.pick(keys);
      const n = keys.indexOf(k) + 1;
      return single(rng, `Travaux d'isolation thermique ${deB} — lot ${n} : ${TRADES[k].label}`, k, 20_000, 300_000, `${base}, lot ${n} : ${TRADES[k].label}.`);
    }
    return multi(rng, base, '45321000', keys, 150_000, 1_500_000, `${base} : isolation, menuiseries, chauffage.`);
  }
  if (roll < 0.7) {
    const [what, cpv] = rng.pick(NEW_BUILDINGS);
    const keys = subset(rng, NEUF, 7);
    return multi(rng, `Construction ${what}`, cpv, keys, 500_000, 6_000_000, `Construction ${what} (${keys.length} lots).`);
  }
  if (roll < 0.76) {
    const street = streetName(rng, buyer.region);
    const de = street.startsWith('boulevard') ? `du ${street}` : `de la ${street}`;
    return multi(rng, `Aménagement ${de} et de ses abords`, '45233000', ['voirie', 'reseaux', 'espacesVerts'], 100_000, 1_500_000, `Requalification ${de} : voirie, réseaux, espaces verts.`);
  }
  if (roll < 0.81) return single(rng, `Travaux de voirie — programme ${rng.pick(['annuel', 'de renouvellement'])} ${year + rng.int(0, 1)}`, 'voirie', 50_000, 800_000, 'Réfection de chaussées et de trottoirs sur le territoire communal.');
  if (roll < 0.85) return single(rng, `Effacement des réseaux aériens ${streetName(rng, buyer.region)}`, 'reseaux', 40_000, 400_000, "Enfouissement des réseaux électriques, d'éclairage public et de télécommunications.");
  if (roll < 0.88) return single(rng, `Réhabilitation du réseau d'eaux usées ${streetName(rng, buyer.region)}`, 'reseaux', 50_000, 600_000, 'Remplacement des canalisations et reprise des branchements.');
  if (roll < 0.91) {
    const saint = saintName(rng, buyer.region);
    return multi(rng, `Restauration de la couverture et des maçonneries de l'église Saint-${saint}`, '45453000', ['restauration', 'couverture', 'menExt'], 150_000, 2_000_000, `Restauration de l'église Saint-${saint} (édifice protégé).`);
  }
  if (roll < 0.94) {
    return multi(rng, `Mise en accessibilité ${deB}`, '45454000', ['grosOeuvre', 'menInt', 'serrurerie', 'electricite'], 40_000, 400_000, `Mise en accessibilité aux personnes à mobilité réduite ${deB}.`);
  }
  return single(rng, "Accord-cadre à bons de commande pour l'entretien et les grosses réparations des bâtiments communaux", 'grosOeuvre', 50_000, 600_000, "Travaux d'entretien courant des bâtiments communaux, par bons de commande.");
}

function departementWork(rng: Rng, communeNom: string, otherNom: string): Work {
  const college = `le collège ${schoolName(rng)} ${aCommune(communeNom)}`;
  const rd = `RD ${rng.int(1, 999)}`;
  const roll = rng.next();
  if (roll < 0.25) {
    const keys = subset(rng, REHAB, 6);
    return multi(rng, `Travaux de réhabilitation du ${college.slice(3)}`, '45214000', keys, 500_000, 8_000_000, `Réhabilitation du ${college.slice(3)} (${keys.length} lots).`);
  }
  if (roll < 0.45) return single(rng, `Réfection de la couche de roulement de la ${rd} entre ${communeNom} et ${otherNom}`, 'voirie', 80_000, 1_500_000, `Rabotage et mise en œuvre d'enrobés sur la ${rd}.`);
  if (roll < 0.55) {
    return {
      ...single(rng, `Confortement du pont ${deCommune(communeNom)} sur la ${rd}`, 'grosOeuvre', 100_000, 2_000_000, `Réparation des maçonneries et de l'étanchéité de l'ouvrage d'art de la ${rd}.`),
      cpv: '45221000',
      nafs: ['42.13A', '42.99Z'],
      descripteurs: ["Ouvrage d'art"],
    };
  }
  if (roll < 0.65) {
    return multi(rng, `Construction du centre d'exploitation routier ${deCommune(communeNom)}`, '45213000', subset(rng, NEUF, 7), 800_000, 4_000_000, `Construction d'un centre d'exploitation routier ${aCommune(communeNom)}.`);
  }
  if (roll < 0.75) return single(rng, `Remplacement des menuiseries extérieures du ${college.slice(3)}`, 'menExt', 60_000, 700_000, `Menuiseries aluminium à rupture de pont thermique du ${college.slice(3)}.`);
  if (roll < 0.85) {
    return multi(rng, `Rénovation énergétique du ${college.slice(3)}`, '45321000', subset(rng, THERMIQUE, 3), 400_000, 3_000_000, `Isolation, menuiseries et chauffage du ${college.slice(3)}.`);
  }
  if (roll < 0.93) return single(rng, `Aménagement d'une voie verte entre ${communeNom} et ${otherNom}`, 'voirie', 200_000, 2_500_000, `Voie verte en enrobé le long de la ${rd}.`);
  return multi(rng, `Mise en accessibilité de la maison départementale des solidarités ${deCommune(communeNom)}`, '45454000', ['grosOeuvre', 'menInt', 'serrurerie', 'electricite'], 50_000, 500_000, "Mise en accessibilité et réaménagement des locaux d'accueil.");
}

const SERVICES = [
  ["Mission de maîtrise d'œuvre pour la réhabilitation", '71221000', "Maîtrise d'œuvre"],
  ['Mission de contrôle technique et de coordination SPS pour la rénovation', '71317210', 'Coordination SPS'],
  ['Diagnostics amiante et plomb avant travaux', '71630000', 'Diagnostics'],
  ["Mission d'assistance à maîtrise d'ouvrage pour la construction", '71240000', "Assistance à maîtrise d'ouvrage"],
] as const;

const FOURNITURES = [
  ['Fourniture de matériaux de voirie (enrobés, granulats)', '44113000', 'Matériaux de voirie'],
  ['Fourniture et pose de bâtiments modulaires', '44211000', 'Bâtiments modulaires'],
  ['Fourniture de matériaux de construction pour les services techniques', '44111000', 'Matériaux de construction'],
] as const;

/**
 * The object with its place, as buyers write it (« Réfection de la toiture de la mairie à
 * Briec »): without it, the same object read the same in every department. Before a « — lot »
 * suffix; unchanged when the commune is named already.
 */
export function withPlace(objet: string, communeNom: string): string {
  if (objet.includes(communeNom)) return objet;
  const place = aCommune(communeNom);
  const dash = objet.indexOf(' — ');
  return dash < 0 ? `${objet} ${place}` : `${objet.slice(0, dash)} ${place}${objet.slice(dash)}`;
}

/** One thing to put out to tender for this buyer in that year; works most of the time; its object names its place. */
export function workFor(rng: Rng, buyer: Buyer, otherCommuneNom: string, year: number): Work {
  const work = drawWork(rng, buyer, otherCommuneNom, year);
  return { ...work, objet: withPlace(work.objet, buyer.communeNom) };
}

function drawWork(rng: Rng, buyer: Buyer, otherCommuneNom: string, year: number): Work {
  const kind = rng.next();
  if (kind < 0.08) {
    const [label, cpv, desc] = rng.pick(SERVICES);
    const b = buyer.kind === 'commune' ? deBuilding(communalBuilding(rng, buyer.region)) : `du collège ${schoolName(rng)}`;
    const objet = `${label} ${b}`;
    return { objet, typeMarche: 'SERVICES', cpv, lots: [], descripteurs: [desc], nafs: [], description: objet + '.', montantEstime: amount(rng, 5_000, 250_000), dureeMois: rng.int(6, 36) };
  }
  if (kind < 0.12) {
    const [label, cpv, desc] = rng.pick(FOURNITURES);
    return { objet: label, typeMarche: 'FOURNITURES', cpv, lots: [], descripteurs: [desc], nafs: [], description: `${label}.`, montantEstime: amount(rng, 10_000, 300_000), dureeMois: rng.int(12, 48) };
  }
  return buyer.kind === 'commune' ? communeWork(rng, buyer, year) : departementWork(rng, buyer.communeNom, otherCommuneNom);
}

/** "45261000-4": the 8 digits and the check digit, as DECP writes CPV codes. */
export function cpvWithCheck(eightDigits: string): string {
  return `${eightDigits}-${cpvCheckDigit(eightDigits)}`;
}

// Every works code used must be in the reference list: checked once at load.
const KNOWN_45 = new Set(CPV_DIVISION_45.map((c) => c.code.slice(0, 8)));
for (const trade of Object.values(TRADES)) {
  if (!KNOWN_45.has(trade.cpv)) throw new Error(`CPV absent de la liste de référence : ${trade.cpv}`);
}
for (const [, cpv] of NEW_BUILDINGS) {
  if (!KNOWN_45.has(cpv)) throw new Error(`CPV absent de la liste de référence : ${cpv}`);
}
for (const cpv of ['45454000', '45321000', '45233000', '45453000', '45214000', '45221000', '45213000']) {
  if (!KNOWN_45.has(cpv)) throw new Error(`CPV absent de la liste de référence : ${cpv}`);
}
