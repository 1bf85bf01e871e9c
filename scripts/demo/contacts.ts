// Directory contacts in our JSON-lines format (contract: ContactLine): people of the demo
// buyers' services and of the demo companies, with their organisation's SIRET. Every line
// also carries contact details, as directories have them (telephone, e-mail, sometimes a
// website or a profile link under another key): the import must drop them all.
import type { BuyerPicker } from './buyers.js';
import type { CompanyIndex, DemoContext } from './companies.js';
import { telephonePrefix } from './communes.js';
import { familyName, firstName, slug } from './names.js';
import { rngFor } from './prng.js';
import { FileWriter } from './util.js';

const BUYER_ROLES: readonly [string, string][] = [
  ['Directeur des services techniques', 'Directrice des services techniques'],
  ['Responsable de la commande publique', 'Responsable de la commande publique'],
  ['Directeur général des services', 'Directrice générale des services'],
  ['Adjoint au maire chargé des travaux', 'Adjointe au maire chargée des travaux'],
  ['Responsable du service voirie', 'Responsable du service voirie'],
  ["Chargé d'opérations bâtiments", "Chargée d'opérations bâtiments"],
  ['Technicien bâtiments et travaux', 'Technicienne bâtiments et travaux'],
];
const DEPARTEMENT_ROLES: readonly [string, string][] = [
  ['Directeur des routes et des infrastructures', 'Directrice des routes et des infrastructures'],
  ['Responsable de la commande publique', 'Responsable de la commande publique'],
  ['Vice-président chargé des routes et des travaux', 'Vice-présidente chargée des routes et des travaux'],
  ['Directeur du patrimoine et des collèges', 'Directrice du patrimoine et des collèges'],
  ['Chef du service des bâtiments départementaux', 'Cheffe du service des bâtiments départementaux'],
];
const COMPANY_ROLES: readonly [string, string][] = [
  ['Gérant', 'Gérante'],
  ['Conducteur de travaux', 'Conductrice de travaux'],
  ["Chargé d'affaires", "Chargée d'affaires"],
  ['Responsable des marchés publics', 'Responsable des marchés publics'],
  ['Président', 'Présidente'],
];

export interface ContactLineOut {
  id: string;
  nom: string;
  role: string;
  organisation: string;
  organisation_siret: string;
  commune: string;
  commune_nom: string;
  telephone: string;
  email?: string;
  site_internet?: string;
  linkedin?: string;
}

export function contactAt(ctx: DemoContext, k: number, picker: BuyerPicker, companies: CompanyIndex): ContactLineOut {
  const rng = rngFor(ctx.seed, 'contact', k);
  const sexe = rng.chance(0.5) ? 'F' : 'M';
  const first = firstName(rng, sexe);
  const b = picker.pick(rng);
  const last = familyName(rng, b.region);
  const nom = `${sexe === 'F' ? 'Mme' : 'M.'} ${first} ${last}`;
  const id = `CONTACT-${String(k + 1).padStart(6, '0')}`;
  const pair = (roles: readonly [string, string][]) => {
    const [m, f] = rng.pick(roles);
    return sexe === 'F' ? f : m;
  };
  const person = `${slug(first)}.${slug(last)}`;
  if (rng.chance(0.6)) {
    const domain = b.url.replace(/^https:\/\/www\./, '');
    const line: ContactLineOut = {
      id,
      nom,
      role: pair(b.kind === 'commune' ? BUYER_ROLES : DEPARTEMENT_ROLES),
      organisation: b.nom,
      organisation_siret: b.siret,
      commune: b.kind === 'commune' ? b.code : b.seat.code,
      commune_nom: b.communeNom,
      telephone: `${telephonePrefix(b.departement)} ${rng.digits(2)} ${rng.digits(2)} ${rng.digits(2)}`,
    };
    if (rng.chance(0.8)) line.email = `${person}@${domain}`;
    if (rng.chance(0.3)) line.site_internet = b.url;
    return line;
  }
  const company = companies.company(companies.pick(rng, b.region, ['43.91A', '42.11Z', '43.21A', '43.32A', '41.20A', '43.99C']));
  const line: ContactLineOut = {
    id,
    nom,
    role: pair(COMPANY_ROLES),
    organisation: company.displayName,
    organisation_siret: company.head.siret,
    commune: company.head.commune.code,
    commune_nom: company.head.commune.nom,
    telephone: `06 ${rng.digits(2)} ${rng.digits(2)} ${rng.digits(2)} ${rng.digits(2)}`,
  };
  if (rng.chance(0.7)) line.email = `${person}@${slug(company.displayName)}.fr`;
  if (rng.chance(0.2)) line.linkedin = `https://www.linkedin.com/in/${person}`;
  return line;
}

export async function writeContacts(ctx: DemoContext, count: number, picker: BuyerPicker, companies: CompanyIndex, path: string): Promise<{ rows: number; bytes: number }> {
  const out = await FileWriter.open(path);
  try {
    for (let k = 0; k < count; k++) {
      out.push(JSON.stringify(contactAt(ctx, k, picker, companies)) + '\n');
      if (out.full) await out.flush();
    }
    return { rows: count, bytes: await out.close() };
  } catch (err) {
    await out.abort();
    throw err;
  }
}
