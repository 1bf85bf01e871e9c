// Public buyers of the demo: the communes of the table (Paris, Lyon and Marseille once) and
// their departments (or the collectivities that replaced them), with SIRETs shaped like
// the real ones and the contact details the notices carry.
import { buyerSiret } from './companies.js';
import { COMMUNES, deCommune, deDepartement, departement, telephonePrefix, type Commune } from './communes.js';
import { familyName, firstName, address, addressLine, slug } from './names.js';
import { rngFor, Weighted, type Rng } from './prng.js';

export interface Buyer {
  kind: 'commune' | 'departement';
  /** "Ville de Quimper", "Commune de Briec", "Département du Finistère". */
  nom: string;
  /** INSEE code of the commune, or the department code. */
  code: string;
  /** Where it sits (for an arrondissement-split city: one of its arrondissements). */
  seat: Commune;
  /** Name of the commune itself ("Paris" rather than "Paris 11e Arrondissement"). */
  communeNom: string;
  departement: string;
  region: string;
  siret: string;
  poids: number;
  contact: string;
  telephone: string;
  email: string;
  url: string;
  adresse: string;
}

const SPECIAL_COLLECTIVITIES: Readonly<Record<string, { nom: string; body: string; domain: string }>> = {
  '2A': { nom: 'Collectivité de Corse', body: '20007695', domain: 'isula.corsica' },
  '2B': { nom: 'Collectivité de Corse', body: '20007695', domain: 'isula.corsica' },
  '67': { nom: "Collectivité européenne d'Alsace", body: '20009433', domain: 'alsace.eu' },
  '68': { nom: "Collectivité européenne d'Alsace", body: '20009433', domain: 'alsace.eu' },
  '972': { nom: 'Collectivité territoriale de Martinique', body: '20005550', domain: 'collectivitedemartinique.mq' },
  '973': { nom: 'Collectivité territoriale de Guyane', body: '20005596', domain: 'ctguyane.fr' },
};

function communeSirenBody(code: string): string {
  if (code.startsWith('97')) return `21${code.slice(0, 3)}0${code.slice(3)}`;
  const dep = code.startsWith('2A') || code.startsWith('2B') ? '20' : code.slice(0, 2);
  return `21${dep}0${code.slice(2)}`;
}

function departementSirenBody(dep: string): string {
  return dep.length === 3 ? `22${dep}001` : `22${dep}0001`;
}

function phone(rng: Rng, dep: string): string {
  return `${telephonePrefix(dep)} ${rng.digits(2)} ${rng.digits(2)} ${rng.digits(2)}`;
}

function contactPerson(rng: Rng, region: string, service: string): string {
  if (rng.chance(0.5)) return service;
  const sexe = rng.chance(0.55) ? 'F' : 'M';
  return `${sexe === 'F' ? 'Mme' : 'M.'} ${firstName(rng, sexe)} ${familyName(rng, region)}, ${service.charAt(0).toLowerCase()}${service.slice(1)}`;
}

/** All buyers, in a fixed order; contact details drawn from the seed. */
export function buildBuyers(seed: number): Buyer[] {
  const buyers: Buyer[] = [];
  const seen = new Set<string>();
  const bestSeat = new Map<string, Commune>();
  for (const c of COMMUNES) {
    const best = bestSeat.get(c.departement);
    if (!best || c.poids > best.poids) bestSeat.set(c.departement, c);
    const code = c.ville?.code ?? c.code;
    if (seen.has(code)) continue;
    seen.add(code);
    const rng = rngFor(seed, 'acheteur', buyers.length);
    const communeNom = c.ville?.nom ?? c.nom;
    const region = departement(c.departement).region;
    const big = c.poids >= 4 || !!c.ville;
    const base = slug(communeNom);
    const domain = region === '53' && big ? `${base}.bzh` : big ? `${base}.fr` : `mairie-${base}.fr`;
    buyers.push({
      kind: 'commune',
      nom: `${big ? 'Ville' : 'Commune'} ${deCommune(communeNom)}`,
      code,
      seat: c,
      communeNom,
      departement: c.departement,
      region,
      siret: buyerSiret(communeSirenBody(code)),
      poids: c.ville ? 12 : c.poids,
      contact: contactPerson(rng, region, rng.pick(['Service de la commande publique', 'Direction des services techniques', 'Service des marchés publics'])),
      telephone: phone(rng, c.departement),
      email: `${rng.pick(['marches', 'commande.publique', 'marches-publics', 'achats'])}@${domain}`,
      url: `https://www.${domain}`,
      adresse: `${big ? 'Hôtel de ville' : 'Mairie'}, ${addressLine(address(rng, region))}`,
    });
  }
  const seenSpecial = new Set<string>();
  for (const [dep, seat] of bestSeat) {
    if (dep === '75') continue; // Paris is one collectivity: the city
    const special = SPECIAL_COLLECTIVITIES[dep];
    if (special && seenSpecial.has(special.nom)) continue;
    if (special) seenSpecial.add(special.nom);
    const rng = rngFor(seed, 'acheteur', buyers.length);
    const d = departement(dep);
    const domain = special?.domain ?? `${slug(d.nom).replace(/-/g, '')}.fr`;
    buyers.push({
      kind: 'departement',
      nom: special?.nom ?? `Département ${deDepartement(dep)}`,
      code: dep,
      seat,
      communeNom: seat.ville?.nom ?? seat.nom,
      departement: dep,
      region: d.region,
      siret: buyerSiret(special?.body ?? departementSirenBody(dep)),
      poids: 14,
      contact: contactPerson(rng, d.region, rng.pick(['Direction des routes et des infrastructures', 'Direction du patrimoine et des collèges', 'Service de la commande publique'])),
      telephone: phone(rng, dep),
      email: `${rng.pick(['marches', 'commande-publique', 'marchespublics'])}@${domain}`,
      url: `https://www.${domain}`,
      adresse: `${special ? 'Hôtel de la Collectivité' : 'Hôtel du Département'}, ${addressLine(address(rng, d.region))}`,
    });
  }
  return buyers;
}

export class BuyerPicker {
  private readonly weighted: Weighted<number>;
  private readonly communesByDept = new Map<string, Commune[]>();

  constructor(readonly buyers: readonly Buyer[]) {
    this.weighted = new Weighted(buyers.map((b, i) => [i, b.poids] as const));
    for (const c of COMMUNES) {
      if (c.ville) continue;
      const list = this.communesByDept.get(c.departement) ?? [];
      list.push(c);
      this.communesByDept.set(c.departement, list);
    }
  }

  pick(rng: Rng): Buyer {
    return this.buyers[this.weighted.pickIndex(rng)]!;
  }

  /** Another commune of the same department (for "entre X et Y"), or the seat itself. */
  neighbour(rng: Rng, b: Buyer): string {
    const same = (this.communesByDept.get(b.departement) ?? []).filter((c) => c.code !== b.seat.code);
    return same.length > 0 ? rng.pick(same).nom : b.communeNom;
  }
}
