// The demo companies: company i is rebuilt from (seed, i) alone, so the SIRENE files, the
// RGE list and the awards all agree without keeping a million companies in memory.
import { NAF_SECTION_F } from '../../src/domains/reference/lists.js';
import { COMMUNES, departement, registerText, type Commune } from './communes.js';
import { luhnKey, nicFor, sirenForIndex } from './luhn.js';
import { address, companyName, enseigne, familyName, firstName, type Address } from './names.js';
import { mix, rngFor, Weighted, type Rng } from './prng.js';
import { yearOfDay } from './util.js';

export interface DemoContext {
  seed: number;
  /** Day number of "today". */
  today: number;
}

/** NAF sub-classes of section F, weighted roughly like the real population of firms. */
const NAF_WEIGHT: Readonly<Record<string, number>> = {
  '41.10A': 1.2, '41.10B': 0.2, '41.10C': 0.3, '41.10D': 0.3, '41.20A': 3, '41.20B': 3, '42.11Z': 1, '42.12Z': 0.1,
  '42.13A': 0.2, '42.13B': 0.05, '42.21Z': 0.6, '42.22Z': 0.4, '42.91Z': 0.1, '42.99Z': 0.5, '43.11Z': 0.6,
  '43.12A': 3, '43.12B': 0.4, '43.13Z': 0.2, '43.21A': 12, '43.21B': 0.4, '43.22A': 8, '43.22B': 6, '43.29A': 2,
  '43.29B': 0.8, '43.31Z': 5, '43.32A': 8, '43.32B': 2, '43.32C': 0.8, '43.33Z': 5, '43.34Z': 9, '43.39Z': 3,
  '43.91A': 2, '43.91B': 4, '43.99A': 0.8, '43.99B': 0.6, '43.99C': 16, '43.99D': 2, '43.99E': 0.5,
};

export const NAF_CODES: readonly string[] = NAF_SECTION_F.map((n) => n.code);
const NAF_PICK = new Weighted(NAF_CODES.map((code) => [code, NAF_WEIGHT[code] ?? 0.1] as const));
const COMMUNE_PICK = new Weighted(COMMUNES.map((c, i) => [i, c.poids] as const));
const CATEGORIE_PICK = new Weighted<string>([
  ['1000', 27], ['5499', 25], ['5710', 17], ['5720', 14], ['5498', 10], ['5599', 1], ['5202', 0.5], ['5458', 1],
]);
const TRANCHE_INDIVIDU = new Weighted<string>([['NN', 55], ['00', 20], ['01', 15], ['02', 7], ['03', 3]]);
const TRANCHE_SOCIETE = new Weighted<string>([
  ['NN', 25], ['00', 12], ['01', 16], ['02', 14], ['03', 12], ['11', 10], ['12', 6], ['21', 3], ['22', 1.3], ['31', 0.5], ['32', 0.2],
]);
const TRANCHE_SECONDAIRE = new Weighted<string>([['NN', 30], ['00', 10], ['01', 20], ['02', 18], ['03', 12], ['11', 7], ['12', 3]]);
const EST_COUNT_SOCIETE = new Weighted<number>([[1, 62], [2, 22], [3, 9], [4, 4], [5, 1.6], [6, 0.7], [7, 0.4], [8, 0.3]]);
const EST_COUNT_INDIVIDU = new Weighted<number>([[1, 78], [2, 18], [3, 4]]);
const PERIODS = new Weighted<number>([[1, 45], [2, 25], [3, 15], [4, 9], [5, 4], [6, 2]]);

const COMMUNES_BY_DEPT = new Map<string, number[]>();
COMMUNES.forEach((c, i) => {
  const list = COMMUNES_BY_DEPT.get(c.departement) ?? [];
  list.push(i);
  COMMUNES_BY_DEPT.set(c.departement, list);
});

export const COMPANY_STREAM = 'entreprise';

export interface CompanyTraits {
  communeIndex: number;
  nafIndex: number;
  categorie: string;
  ceased: boolean;
}

/** The first draws of a company's stream: cheap, for indexes and sampling. */
function drawTraits(rng: Rng): CompanyTraits {
  const communeIndex = COMMUNE_PICK.pickIndex(rng);
  const nafIndex = NAF_PICK.pickIndex(rng);
  const categorie = CATEGORIE_PICK.pick(rng);
  const ceased = rng.chance(0.08);
  return { communeIndex, nafIndex, categorie, ceased };
}

export function companyTraits(ctx: DemoContext, index: number): CompanyTraits {
  return drawTraits(rngFor(ctx.seed, COMPANY_STREAM, index));
}

export interface Establishment {
  nic: string;
  siret: string;
  siege: boolean;
  commune: Commune;
  address: Address;
  creation: number;
  /** Start of the current period (closure day when closed). */
  dateDebut: number;
  periods: number;
  lastUpdate: number;
  lastUpdateSecond: number;
  open: boolean;
  naf: string;
  tranche: string;
  enseigne: string;
  denominationUsuelle: string;
  registreMetiers: string;
  addressId: string;
  jitterLat: number;
  jitterLon: number;
}

export interface Company {
  index: number;
  siren: string;
  individual: boolean;
  sexe: 'M' | 'F' | '';
  nom: string;
  prenoms: string[];
  /** Display name: the denomination, or "Prénom Nom" for an individual. */
  displayName: string;
  /** As registers write it: "SARL LE GOFF COUVERTURE", "LE GOFF YANN". */
  officialName: string;
  denomination: string;
  sigle: string;
  categorie: string;
  naf: string;
  commune: Commune;
  region: string;
  ceased: boolean;
  creation: number;
  cessation: number | null;
  dateDebut: number;
  periods: number;
  lastUpdate: number;
  lastUpdateSecond: number;
  tranche: string;
  anneeEffectifs: string;
  categorieEntreprise: string;
  anneeCategorie: string;
  ess: string;
  establishments: Establishment[];
  head: Establishment;
}

function between(rng: Rng, from: number, to: number): number {
  return to <= from ? from : rng.int(from, to);
}

function otherCommune(rng: Rng, home: Commune, homeIndex: number): number {
  const roll = rng.next();
  if (roll < 0.25) return homeIndex;
  if (roll < 0.85) return rng.pick(COMMUNES_BY_DEPT.get(home.departement) ?? [homeIndex]);
  return COMMUNE_PICK.pickIndex(rng);
}

function sirenOffset(seed: number): number {
  return mix(seed, 0x51e3) % 70_000_000;
}

/** Company `index`, entirely determined by the seed, the index and today. */
export function companyAt(ctx: DemoContext, index: number): Company {
  const rng = rngFor(ctx.seed, COMPANY_STREAM, index);
  const traits = drawTraits(rng);
  const { today } = ctx;
  const commune = COMMUNES[traits.communeIndex]!;
  const region = departement(commune.departement).region;
  const naf = NAF_CODES[traits.nafIndex]!;
  const individual = traits.categorie === '1000';
  const siren = sirenForIndex(index, sirenOffset(ctx.seed));

  // Creation: many young firms, some very old ones.
  const ageDays = Math.min(60 * 365, Math.floor(-Math.log(1 - rng.next()) * 9 * 365)) + 20;
  const creation = today - ageDays;
  const cessation = traits.ceased ? Math.min(today - 1, creation + Math.floor((today - creation) * (0.2 + 0.8 * rng.next()))) : null;

  let sexe: 'M' | 'F' | '' = '';
  let nom = '';
  const prenoms: string[] = [];
  let denomination = '';
  let sigle = '';
  let family = '';
  let displayName: string;
  if (individual) {
    sexe = rng.chance(0.88) ? 'M' : 'F';
    nom = familyName(rng, region);
    prenoms.push(firstName(rng, sexe));
    if (rng.chance(0.35)) {
      const second = firstName(rng, sexe);
      if (second !== prenoms[0]) prenoms.push(second);
    }
    displayName = `${prenoms[0]} ${nom}`;
  } else {
    const name = companyName(rng, naf, region, traits.categorie, commune.ville?.nom ?? commune.nom);
    denomination = name.denomination;
    sigle = name.sigle;
    family = name.family;
    displayName = denomination;
  }

  const year = yearOfDay(today);
  const drawn = (individual ? TRANCHE_INDIVIDU : TRANCHE_SOCIETE).pick(rng);
  // Head counts are those of year-2: none for a firm ceased or created since.
  const tranche = traits.ceased || yearOfDay(creation) > year - 2 ? 'NN' : drawn;
  const periods = traits.ceased ? Math.max(2, PERIODS.pick(rng)) : PERIODS.pick(rng);
  const dateDebut = cessation ?? (periods === 1 ? creation : between(rng, creation, today - 1));
  const lastUpdate = between(rng, Math.max(dateDebut, today - 5 * 365), today);
  const lastUpdateSecond = rng.int(6 * 3600, 20 * 3600);
  const recent = yearOfDay(creation) >= year - 2;
  const categorieEntreprise = traits.ceased || recent ? '' : tranche === '31' || tranche === '32' ? 'ETI' : 'PME';

  // Establishments: the head office and sometimes others; after a move the former seat is closed.
  const count = (individual ? EST_COUNT_INDIVIDU : EST_COUNT_SOCIETE).pick(rng);
  const moved = count >= 2 && rng.chance(0.3);
  const headSeq = moved ? count : 1;
  const establishments: Establishment[] = [];
  let head: Establishment | undefined;
  for (let seq = 1; seq <= count; seq++) {
    const siege = seq === headSeq;
    const ci = siege ? traits.communeIndex : otherCommune(rng, commune, traits.communeIndex);
    const estCommune = COMMUNES[ci]!;
    const estRegion = departement(estCommune.departement).region;
    const estCreation = seq === 1 ? creation : between(rng, creation, today - 1);
    let open: boolean;
    if (traits.ceased) open = false;
    else if (siege) open = true;
    else if (moved && seq < headSeq) open = seq !== 1 && rng.chance(0.5);
    else open = rng.chance(0.75);
    const closure = !open ? (cessation ?? between(rng, estCreation, today - 1)) : null;
    const estPeriods = closure !== null ? Math.max(2, PERIODS.pick(rng)) : PERIODS.pick(rng);
    const estDebut = closure ?? (estPeriods === 1 ? estCreation : between(rng, estCreation, today - 1));
    const estTranche = !open ? 'NN' : siege ? tranche : TRANCHE_SECONDAIRE.pick(rng);
    const estNaf = rng.chance(0.9) ? naf : pickRelatedNaf(rng, naf);
    const addr = address(rng, estRegion);
    let ens = '';
    let denomUsuelle = '';
    if (individual) {
      if (rng.chance(0.5)) ens = enseigne(rng, estNaf, nom);
    } else if (rng.chance(siege ? 0.06 : 0.2)) {
      ens = enseigne(rng, estNaf, family);
    } else if (rng.chance(0.04)) {
      denomUsuelle = denomination;
    }
    const registreMetiers =
      (individual || ['00', '01', '02', '03', 'NN'].includes(tranche)) && rng.chance(0.4)
        ? `${estNaf.replace('.', '')}${String.fromCharCode(65 + rng.int(0, 2))}`
        : '';
    const addressId =
      addr.numero && rng.chance(0.7) ? `${estCommune.code}_${rng.digits(4)}_${addr.numero.padStart(5, '0')}` : '';
    const nic = nicFor(siren, seq);
    const est: Establishment = {
      nic,
      siret: siren + nic,
      siege,
      commune: estCommune,
      address: addr,
      creation: estCreation,
      dateDebut: estDebut,
      periods: estPeriods,
      lastUpdate: between(rng, Math.max(estDebut, today - 5 * 365), today),
      lastUpdateSecond: rng.int(6 * 3600, 20 * 3600),
      open,
      naf: estNaf,
      tranche: estTranche,
      enseigne: ens,
      denominationUsuelle: denomUsuelle,
      registreMetiers,
      addressId,
      jitterLat: (rng.next() - 0.5) * 0.03,
      jitterLon: (rng.next() - 0.5) * 0.04,
    };
    establishments.push(est);
    if (siege) head = est;
  }

  return {
    index,
    siren,
    individual,
    sexe,
    nom,
    prenoms,
    displayName,
    officialName: registerText(individual ? `${nom} ${prenoms[0] ?? ''}` : denomination),
    denomination,
    sigle,
    categorie: traits.categorie,
    naf,
    commune,
    region,
    ceased: traits.ceased,
    creation,
    cessation,
    dateDebut,
    periods,
    lastUpdate,
    lastUpdateSecond,
    tranche,
    anneeEffectifs: tranche === 'NN' ? '' : String(year - 2),
    categorieEntreprise,
    anneeCategorie: categorieEntreprise ? String(year - 3) : '',
    ess: traits.categorie === '5458' ? 'O' : 'N',
    establishments,
    head: head!,
  };
}

function pickRelatedNaf(rng: Rng, naf: string): string {
  const sameDivision = NAF_CODES.filter((c) => c.slice(0, 2) === naf.slice(0, 2));
  return rng.pick(sameDivision);
}

/**
 * Traits of every company, bucketed by region and NAF over the active ones, to draw
 * plausible winners of a contract (a company of the right trade near the buyer).
 */
/**
 * Companies indexed for picking at most (awards' holders, announcements' subjects…): past it,
 * one company in `stride` is indexed, spread over the whole set, so that the memory of a
 * national set (10 million companies) stays bounded. The small and large sets index all.
 */
export const MAX_INDEXED_COMPANIES = 1_000_000;

export class CompanyIndex {
  private readonly byRegionNaf = new Map<string, number[]>();
  private readonly byNaf = new Map<string, number[]>();
  private readonly active: number[] = [];

  constructor(
    private readonly ctx: DemoContext,
    readonly count: number,
  ) {
    const stride = Math.max(1, Math.ceil(count / MAX_INDEXED_COMPANIES));
    for (let i = 0; i < count; i += stride) {
      const t = companyTraits(ctx, i);
      if (t.ceased) continue;
      const region = departement(COMMUNES[t.communeIndex]!.departement).region;
      const naf = NAF_CODES[t.nafIndex]!;
      push(this.byRegionNaf, `${region}|${naf}`, i);
      push(this.byNaf, naf, i);
      this.active.push(i);
    }
  }

  /** An active company of one of the NAF codes, in the region when there is one, else anywhere. */
  pick(rng: Rng, region: string, nafs: readonly string[]): number {
    const local = nafs.map((n) => this.byRegionNaf.get(`${region}|${n}`)).filter((l): l is number[] => !!l && l.length > 0);
    if (local.length > 0 && rng.chance(0.93)) return rng.pick(rng.pick(local));
    const national = nafs.map((n) => this.byNaf.get(n)).filter((l): l is number[] => !!l && l.length > 0);
    if (national.length > 0) return rng.pick(rng.pick(national));
    return rng.pick(this.active);
  }

  company(index: number): Company {
    return companyAt(this.ctx, index);
  }
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** SIRET of a public buyer: SIREN "21" + commune or "22" + department (as the real ones), NIC 0001x. */
export function buyerSiret(sirenBody8: string): string {
  const siren = sirenBody8 + luhnKey(sirenBody8);
  return siren + nicFor(siren, 1);
}
